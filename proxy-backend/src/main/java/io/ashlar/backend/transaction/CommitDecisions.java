package io.ashlar.backend.transaction;

import java.io.IOException;
import java.util.List;
import java.util.Set;

/**
 * Where a proxy keeps the commit decisions of its two-phase commits, durably, and finds those of dead instances:
 * a log on local disk ({@link DecisionLog}), or ZooKeeper in Cluster mode, where any proxy of the cluster finishes
 * what a dead one left in doubt.
 *
 * <p>An instance is one run of one proxy; its id is in the gids it prepares. A dead instance's decisions are an
 * {@link Orphan}: taken by exactly one live instance, which commits what was decided and rolls back the rest of that
 * instance's prepared transactions, then forgets it.
 */
public interface CommitDecisions extends AutoCloseable {

    /** A dead instance taken for recovery: the transactions (gids without their slot) it decided to commit. */
    record Orphan(String instanceId, Set<String> committed, Runnable forget) {
    }

    /** This instance's id now (a registry that lost this instance's session gives it a new one). */
    String instanceId();

    /** Where the decisions are, for messages: a directory, a registry. */
    String describe();

    /** Makes the decision to commit {@code gid} durable; returns once it is, or throws: the transaction must not commit. */
    void commit(String gid) throws IOException;

    /** Every data source committed {@code gid}: its decision may go. */
    void finished(String gid);

    /** The dead instances taken when this one began. */
    List<Orphan> orphans();

    /** Dead instances found and taken since (another proxy of the cluster that died); none for a local log. */
    default List<Orphan> adoptOrphans() {
        return List.of();
    }

    /** Whether another instance with this id keeps its decisions here (a live proxy of the cluster finishes its own). */
    default boolean knows(String instanceId) {
        return false;
    }

    /** Whether {@link #adoptOrphans} is worth asking now and then (other proxies may die while this one runs). */
    default boolean watchesOthers() {
        return false;
    }

    /** Stops; decisions not finished stay for whoever recovers this instance. */
    @Override
    void close();
}
