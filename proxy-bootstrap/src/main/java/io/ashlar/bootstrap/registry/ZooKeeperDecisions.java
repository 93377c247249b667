package io.ashlar.bootstrap.registry;

import io.ashlar.backend.transaction.CommitDecisions;
import java.io.IOException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.curator.framework.api.transaction.CuratorTransactionResult;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The commit decisions of a Cluster mode proxy's two-phase commits, in ZooKeeper, where every proxy of the cluster
 * sees them: when a proxy dies between its decision and COMMIT PREPARED, another one finishes its transactions (a
 * local log waits for the dead proxy's own restart). Layout under the registry's namespace:
 * <pre>
 * /transactions/instances/&lt;id&gt;         ephemeral: the instance runs (its ZooKeeper session lives)
 * /transactions/decisions/&lt;id&gt;/&lt;gid&gt;   a decision to commit, made durable by ZooKeeper's quorum before COMMIT PREPARED
 * /transactions/recovering/&lt;id&gt;        ephemeral: the live instance that finishes a dead one's transactions
 * </pre>
 *
 * <p>An instance is dead when its {@code decisions} node has no {@code instances} node beside it. The two are made in
 * one ZooKeeper transaction, and each decision is created in one with a check that the instance's node still exists:
 * once a session has expired (and its ephemeral node is gone) no decision of that instance can appear, so whoever
 * takes the dead instance reads every decision it will ever have, and rolls back the rest of its prepared
 * transactions without a race. A proxy whose session expired while it ran goes on under a new instance id (its
 * transactions that were not decided yet fail and roll back).
 */
public final class ZooKeeperDecisions implements CommitDecisions {

    private static final Logger LOG = LoggerFactory.getLogger(ZooKeeperDecisions.class);

    static final String ROOT = "/transactions";
    static final String INSTANCES = ROOT + "/instances";
    static final String DECISIONS = ROOT + "/decisions";
    static final String RECOVERING = ROOT + "/recovering";

    /** How long a decision may wait for ZooKeeper before the transaction is refused. */
    private static final long WRITE_TIMEOUT_MILLIS = 10_000;

    private final CuratorFramework client;
    private final String describe;
    private final SecureRandom random = new SecureRandom();
    /** Held while registering (at start, and after a lost session): a ZooKeeper round trip, never under a monitor. */
    private final java.util.concurrent.locks.ReentrantLock registering = new java.util.concurrent.locks.ReentrantLock();
    private volatile String instanceId;
    /** Decided and not finished, by instance: a clean stop with none leaves nothing behind. */
    private final Set<String> pending = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;
    /** Whether the last look for dead instances failed (said once, until one works again). */
    private boolean lookFailing;

    private ZooKeeperDecisions(CuratorFramework client, String describe) {
        this.client = client;
        this.describe = describe;
    }

    /**
     * Registers a new instance with the registry's client (connected).
     *
     * @throws IOException if ZooKeeper cannot be written
     */
    public static ZooKeeperDecisions open(ZooKeeperRegistry registry) throws IOException {
        ZooKeeperDecisions result = new ZooKeeperDecisions(registry.client(), "ZooKeeper " + registry.describe() + ROOT);
        try {
            for (String each : List.of(INSTANCES, DECISIONS, RECOVERING)) {
                try {
                    registry.client().create().creatingParentsIfNeeded().forPath(each);
                } catch (KeeperException.NodeExistsException exists) {
                    // made by another proxy
                }
            }
            result.register();
        } catch (IOException e) {
            throw e;
        } catch (Exception e) {
            throw new IOException("cannot register with " + result.describe + ": " + e, e);
        }
        return result;
    }

    /** A new instance id, its live node and its decisions node made together. */
    private void register() throws Exception {
        registering.lock();
        try {
            while (true) {
                String id = Long.toString(random.nextLong() >>> 14, 36);
                try {
                    client.transaction().forOperations(
                            client.transactionOp().create().withMode(CreateMode.EPHEMERAL).forPath(INSTANCES + "/" + id),
                            client.transactionOp().create().forPath(DECISIONS + "/" + id));
                    instanceId = id;
                    return;
                } catch (KeeperException.NodeExistsException taken) {
                    // another instance's id: draw again
                }
            }
        } finally {
            registering.unlock();
        }
    }

    @Override
    public String instanceId() {
        return instanceId;
    }

    @Override
    public String describe() {
        return describe;
    }

    /**
     * Creates the decision's node, in one ZooKeeper transaction with a check that this instance's node exists. Parks
     * the caller (a session's virtual thread) meanwhile, without holding its carrier.
     */
    @Override
    public void commit(String gid) throws IOException {
        String id = instanceId;
        if (!gid.startsWith("ashlar_" + id + "_")) {
            throw new IOException("transaction " + gid + " was prepared by an instance of this proxy that " + describe
                    + " no longer knows (its session expired): it is rolled back");
        }
        CompletableFuture<CuratorEvent> done = new CompletableFuture<>();
        try {
            CuratorOp check = client.transactionOp().check().forPath(INSTANCES + "/" + id);
            CuratorOp create = client.transactionOp().create().forPath(DECISIONS + "/" + id + "/" + gid);
            client.transaction().inBackground((c, event) -> done.complete(event)).forOperations(check, create);
        } catch (Exception e) {
            throw new IOException("cannot write the commit decision of " + gid + " to " + describe + ": " + e, e);
        }
        CuratorEvent event;
        try {
            event = done.get(WRITE_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while writing the commit decision of " + gid, e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IOException("the commit decision of " + gid + " was not written to " + describe + " within "
                    + WRITE_TIMEOUT_MILLIS + " ms", e);
        }
        KeeperException.Code code = KeeperException.Code.get(event.getResultCode());
        if (code == KeeperException.Code.OK) {
            pending.add(gid);
            return;
        }
        if (instanceGone(event)) {
            renew(id);
            throw new IOException("this proxy's session with " + describe + " expired before the commit decision of " + gid
                    + " was written: the transaction is rolled back");
        }
        throw new IOException("cannot write the commit decision of " + gid + " to " + describe + ": " + code);
    }

    /** Whether the transaction failed on its check: the instance's node is gone. */
    private static boolean instanceGone(CuratorEvent event) {
        List<CuratorTransactionResult> results = event.getOpResults();
        if (results == null || results.isEmpty()) {
            return KeeperException.Code.get(event.getResultCode()) == KeeperException.Code.NONODE;
        }
        return results.get(0).getError() == KeeperException.Code.NONODE.intValue();
    }

    /** The instance {@code lost} is gone (another proxy finishes it): this proxy goes on as a new one. */
    private void renew(String lost) {
        registering.lock();
        try {
            if (closed || !lost.equals(instanceId)) {
                return;
            }
            register();
            LOG.warn("two-phase commit: instance {} lost its ZooKeeper session (another proxy finishes its transactions);"
                    + " going on as instance {}", lost, instanceId);
        } catch (Exception e) {
            LOG.warn("two-phase commit: instance {} lost its ZooKeeper session and cannot register again yet: {}", lost, e.toString());
        } finally {
            registering.unlock();
        }
    }

    @Override
    public void finished(String gid) {
        pending.remove(gid);
        int end = gid.indexOf('_', "ashlar_".length());
        String id = end < 0 ? instanceId : gid.substring("ashlar_".length(), end);
        try {
            client.delete().quietly().inBackground().forPath(DECISIONS + "/" + id + "/" + gid);
        } catch (Exception e) {
            LOG.debug("could not delete the finished decision {}: {}", gid, e.toString());
        }
    }

    @Override
    public List<Orphan> orphans() {
        return adoptOrphans();
    }

    @Override
    public boolean knows(String instanceId) {
        try {
            return client.checkExists().forPath(DECISIONS + "/" + instanceId) != null;
        } catch (Exception e) {
            return true; // cannot tell: not worth a warning
        }
    }

    @Override
    public boolean watchesOthers() {
        return true;
    }

    /**
     * The dead instances nobody finishes yet (called from one thread: the recovery's), each taken by creating its {@code recovering} node (one taker wins; the
     * node goes with this proxy's session, so a taker that dies passes it on), with the decisions it made.
     */
    @Override
    public List<Orphan> adoptOrphans() {
        if (closed) {
            return List.of();
        }
        List<Orphan> result = new ArrayList<>();
        try {
            List<String> live = client.getChildren().forPath(INSTANCES);
            for (String id : client.getChildren().forPath(DECISIONS)) {
                if (live.contains(id) || id.equals(instanceId)) {
                    continue;
                }
                try {
                    client.create().withMode(CreateMode.EPHEMERAL).forPath(RECOVERING + "/" + id);
                } catch (KeeperException.NodeExistsException taken) {
                    continue;
                }
                if (client.checkExists().forPath(INSTANCES + "/" + id) != null) {
                    // It was starting when the list was read: alive after all.
                    client.delete().quietly().forPath(RECOVERING + "/" + id);
                    continue;
                }
                List<String> decided;
                try {
                    client.sync().forPath(DECISIONS + "/" + id);
                    decided = client.getChildren().forPath(DECISIONS + "/" + id);
                } catch (KeeperException.NoNodeException finished) {
                    client.delete().quietly().forPath(RECOVERING + "/" + id);
                    continue;
                }
                Set<String> committed = new LinkedHashSet<>(decided);
                result.add(new Orphan(id, committed, () -> forget(id)));
            }
            if (lookFailing) {
                lookFailing = false;
                LOG.info("two-phase commit: {} answers again", describe);
            }
        } catch (Exception e) {
            if (!lookFailing) {
                lookFailing = true;
                LOG.warn("two-phase commit: cannot look for proxy instances that are gone in {} (said once, until it answers): {}",
                        describe, e.toString());
            }
        }
        return result;
    }

    /** A dead instance's transactions are all finished: its decisions go, then the mark of its taker. */
    private void forget(String id) {
        try {
            client.delete().deletingChildrenIfNeeded().forPath(DECISIONS + "/" + id);
        } catch (KeeperException.NoNodeException gone) {
            // already
        } catch (Exception e) {
            LOG.warn("could not delete the finished decisions of instance {} from {}: {}", id, describe, e.toString());
            return;
        }
        try {
            client.delete().quietly().forPath(RECOVERING + "/" + id);
        } catch (Exception e) {
            LOG.debug("could not delete {}: {}", RECOVERING + "/" + id, e.toString());
        }
    }

    /**
     * Stops: with no decision left to carry out, the instance's nodes go; otherwise its live node goes and its
     * decisions stay, for another proxy of the cluster to carry out. The registry's client stays open (its owner's).
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        String id = instanceId;
        try {
            if (pending.isEmpty()) {
                client.delete().deletingChildrenIfNeeded().forPath(DECISIONS + "/" + id);
            } else {
                LOG.warn("two-phase commit: {} commit decisions not yet carried out on every data source stay in {} for another"
                        + " proxy to finish", pending.size(), describe);
            }
            client.delete().quietly().forPath(INSTANCES + "/" + id);
        } catch (Exception e) {
            LOG.warn("two-phase commit: cannot remove instance {} from {}: {}", id, describe, e.toString());
        }
    }
}
