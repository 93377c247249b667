package io.ashlar.backend.transaction;

import io.ashlar.backend.datasource.BackendDataSource;
import java.io.IOException;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The proxy's side of two-phase commit, for transactions of sharded databases that wrote to
 * several data sources (the session runs the protocol: {@code PreparedCommit}): the gids, the
 * durable decisions ({@link DecisionLog}), what is left to do after a failure (retried in the
 * background), and the recovery at start of what an earlier run left prepared.
 *
 * <p>A gid is {@code ashlar_<instance>_<n>_<slot>}: the instance is this run of this proxy (a
 * proxy only ever finishes gids of instances whose logs it took, never another live proxy's),
 * {@code n} counts its transactions, and {@code slot} tells its data sources apart (a gid is
 * unique in a whole PostgreSQL server, whose databases may be several data sources).
 *
 * <p>Recovery follows Citus's: for every data source, {@code SELECT gid FROM pg_prepared_xacts},
 * COMMIT PREPARED those whose transaction the log says committed, ROLLBACK PREPARED the rest of
 * the dead instances'. A data source out of reach is tried again in the background.
 *
 * @see <a href="https://www.postgresql.org/docs/current/sql-prepare-transaction.html">PREPARE TRANSACTION</a>
 * @see <a href="https://docs.citusdata.com/en/stable/develop/api_udf.html#citus-recover-transactions">citus_recover_transactions</a>
 */
public final class TwoPhaseCommit implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(TwoPhaseCommit.class);

    /** Commits one data source after another, in one phase each (server.yaml's transaction type LOCAL; tools and tests). */
    public static final TwoPhaseCommit DISABLED = new TwoPhaseCommit(null);

    static final String PREFIX = "ashlar_";

    private static final long RETRY_FIRST_MILLIS = 500;
    private static final long RETRY_MAX_MILLIS = 30_000;

    /** How often a proxy of a cluster looks for dead proxies' transactions to finish. */
    private static final long ORPHAN_SCAN_MILLIS = 2_000;

    private final CommitDecisions log;
    private final AtomicLong transactions = new AtomicLong();
    /** Data sources known to refuse PREPARE TRANSACTION (max_prepared_transactions = 0), by identity. */
    private final Set<BackendDataSource> withoutPrepare = ConcurrentHashMap.newKeySet();
    private final ScheduledExecutorService background;
    /** Set by tests that stand for a crash: commits stop after their decision, as if the proxy had died there. */
    private volatile CountDownLatch haltAfterDecision;
    /** Whether commits halted by a test carry on once released ({@link #pauseAfterDecision}) rather than end. */
    private volatile boolean resumeAfterHalt;
    private volatile boolean closed;
    /** The data sources whose prepared transactions a dead instance may have left (set by {@link #recover}). */
    private volatile java.util.function.Supplier<Collection<BackendDataSource>> dataSources = List::of;

    private TwoPhaseCommit(CommitDecisions log) {
        this.log = log;
        if (log == null) {
            this.background = null;
        } else {
            ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1,
                    Thread.ofPlatform().daemon().name("ashlar-2pc-recovery").factory());
            executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
            this.background = executor;
        }
    }

    /** Two-phase commit with its decisions in {@code directory} (made if missing), and a new instance id. */
    public static TwoPhaseCommit open(Path directory) throws IOException {
        return open(DecisionLog.open(directory));
    }

    /** Two-phase commit with its decisions kept by {@code decisions} (ZooKeeper, in Cluster mode). */
    public static TwoPhaseCommit open(CommitDecisions decisions) {
        TwoPhaseCommit result = new TwoPhaseCommit(decisions);
        LOG.info("two-phase commit: instance {}, decisions in {}", decisions.instanceId(), decisions.describe());
        return result;
    }

    /** Whether transactions that wrote to several data sources commit in two phases. */
    public boolean enabled() {
        return log != null;
    }

    /** This run's instance id, in its gids (empty when disabled). */
    public String instanceId() {
        return log == null ? "" : log.instanceId();
    }

    /** A new transaction's gid, to which each data source's slot is added. */
    public String nextGid() {
        return log == null ? PREFIX + transactions.incrementAndGet()
                : PREFIX + log.instanceId() + "_" + transactions.incrementAndGet();
    }

    /** How many transactions this run committed in two phases (or began to). */
    public long transactionsPrepared() {
        return transactions.get();
    }

    /** Whether a data source is known to refuse PREPARE TRANSACTION. */
    public boolean refusesPrepare(BackendDataSource dataSource) {
        return !withoutPrepare.isEmpty() && withoutPrepare.contains(dataSource);
    }

    /**
     * Makes the decision to commit durable (parks the caller until it is on disk).
     *
     * @return whether to carry it out now; false only where a test stands for a crash
     *         ({@link #haltAfterDecision}): the prepared transactions are then left as a dead proxy leaves them
     */
    public boolean decideCommit(String gid) throws IOException {
        log.commit(gid);
        CountDownLatch halt = haltAfterDecision;
        if (halt == null) {
            return true;
        }
        try {
            halt.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return resumeAfterHalt && !closed;
    }

    /** Every data source committed the transaction. */
    public void finished(String gid) {
        log.finished(gid);
    }

    /**
     * Stands for a crash between the decision and COMMIT PREPARED: commits from now on stop there
     * (their sessions wait until the proxy closes). For tests of recovery.
     */
    public void haltAfterDecision() {
        haltAfterDecision = new CountDownLatch(1);
    }

    /**
     * Holds commits between their decision and COMMIT PREPARED until {@link #endHalted}, then lets them carry on: for
     * tests of what fails there.
     */
    public void pauseAfterDecision() {
        resumeAfterHalt = true;
        haltAfterDecision = new CountDownLatch(1);
    }

    /**
     * The sessions halted by {@link #haltAfterDecision} end, without COMMIT PREPARED: their clients get 57P01, their
     * data sources keep the transactions prepared, the log keeps the decisions (before the proxy closes: their
     * threads run on the event loops it stops). Those held by {@link #pauseAfterDecision} carry on.
     */
    public void endHalted() {
        CountDownLatch halt = haltAfterDecision;
        if (halt != null) {
            halt.countDown();
        }
    }

    /**
     * Finishes in the background what a session could not: COMMIT PREPARED (the decision is
     * durable) or ROLLBACK PREPARED of {@code gids} on their data sources, retried with backoff
     * until done, or until the proxy stops (the next start's recovery finishes it then).
     *
     * @param transaction the transaction's gid, whose end is logged once all are committed
     */
    public void finishLater(String transaction, List<BackendDataSource> dataSources, List<String> gids, boolean commit) {
        if (background == null || closed) {
            return;
        }
        List<BackendDataSource> sources = new ArrayList<>(dataSources);
        List<String> left = new ArrayList<>(gids);
        background.execute(() -> finish(transaction, sources, left, commit, RETRY_FIRST_MILLIS));
    }

    private void finish(String transaction, List<BackendDataSource> dataSources, List<String> gids, boolean commit, long delay) {
        for (int i = gids.size() - 1; i >= 0; i--) {
            try {
                end(dataSources.get(i), gids.get(i), commit);
                LOG.info("{} of {} on data source {} done in the background", commit ? "COMMIT PREPARED" : "ROLLBACK PREPARED",
                        gids.get(i), dataSources.get(i).name());
                dataSources.remove(i);
                gids.remove(i);
            } catch (SQLException e) {
                LOG.warn("{} of {} on data source {} failed, retrying in {} ms: {}", commit ? "COMMIT PREPARED" : "ROLLBACK PREPARED",
                        gids.get(i), dataSources.get(i).name(), delay, e.getMessage());
            }
        }
        if (gids.isEmpty()) {
            if (commit) {
                log.finished(transaction);
            }
            return;
        }
        if (!closed) {
            background.schedule(() -> finish(transaction, dataSources, gids, commit, Math.min(delay * 2, RETRY_MAX_MILLIS)),
                    delay, TimeUnit.MILLISECONDS);
        }
    }

    /** COMMIT PREPARED or ROLLBACK PREPARED; a gid that is not prepared (any more) counts as done. */
    private static void end(BackendDataSource dataSource, String gid, boolean commit) throws SQLException {
        try {
            dataSource.query((commit ? "COMMIT PREPARED '" : "ROLLBACK PREPARED '") + gid + "'");
        } catch (SQLException e) {
            if (!"42704".equals(e.getSQLState())) {
                throw e;
            }
        }
    }

    /**
     * At start, before clients: for each data source, whether it can prepare transactions (said
     * once in the log when it cannot), and the dead instances' prepared transactions finished as
     * their logs decided. Data sources out of reach are tried again in the background; the dead
     * instances' logs go once every data source was recovered.
     */
    public void recover(Collection<BackendDataSource> dataSources) {
        recover(() -> dataSources);
    }

    /**
     * {@link #recover(Collection)} of what {@code current} gives; in a cluster, whose proxies may die while this one
     * runs, their transactions are looked for every {@value #ORPHAN_SCAN_MILLIS} ms and finished on the data sources
     * {@code current} gives then.
     */
    public void recover(java.util.function.Supplier<Collection<BackendDataSource>> current) {
        if (log == null) {
            return;
        }
        this.dataSources = current;
        recoverEverywhere(log.orphans(), current.get(), true);
        if (log.watchesOthers()) {
            background.scheduleWithFixedDelay(this::adoptOrphans, ORPHAN_SCAN_MILLIS, ORPHAN_SCAN_MILLIS, TimeUnit.MILLISECONDS);
        }
    }

    /** Recovers {@code orphans} on every data source now; those out of reach later, then forgets the orphans. */
    private void recoverEverywhere(List<CommitDecisions.Orphan> orphans, Collection<BackendDataSource> current, boolean atStart) {
        List<BackendDataSource> left = new ArrayList<>();
        for (BackendDataSource each : unique(current)) {
            if (!recover(each, orphans, atStart)) {
                left.add(each);
            }
        }
        if (left.isEmpty()) {
            forget(orphans);
        } else {
            background.schedule(() -> recoverLater(orphans, left, RETRY_FIRST_MILLIS, atStart), RETRY_FIRST_MILLIS,
                    TimeUnit.MILLISECONDS);
        }
    }

    private static List<BackendDataSource> unique(Collection<BackendDataSource> dataSources) {
        Map<BackendDataSource, Boolean> seen = new IdentityHashMap<>();
        List<BackendDataSource> result = new ArrayList<>();
        for (BackendDataSource each : dataSources) {
            if (seen.put(each, Boolean.TRUE) == null) {
                result.add(each);
            }
        }
        return result;
    }

    /** Another proxy of the cluster died: its transactions in doubt are finished here, as a restart would finish them. */
    private void adoptOrphans() {
        if (closed) {
            return;
        }
        try {
            List<CommitDecisions.Orphan> orphans = log.adoptOrphans();
            if (orphans.isEmpty()) {
                return;
            }
            List<String> ids = new ArrayList<>();
            for (CommitDecisions.Orphan each : orphans) {
                ids.add(each.instanceId());
            }
            LOG.info("two-phase commit: finishing the transactions in doubt of proxy instances that are gone: {}", ids);
            recoverEverywhere(orphans, dataSources.get(), false);
        } catch (RuntimeException e) {
            LOG.warn("two-phase commit: looking for the transactions of proxy instances that are gone failed: {}", e.toString());
        }
    }

    /** @param atStart whether the data sources {@code left} missed the start's recovery (and its check of PREPARE) */
    private void recoverLater(List<CommitDecisions.Orphan> orphans, List<BackendDataSource> left, long delay, boolean atStart) {
        left.removeIf(each -> recover(each, orphans, atStart));
        if (left.isEmpty()) {
            forget(orphans);
        } else if (!closed) {
            background.schedule(() -> recoverLater(orphans, left, Math.min(delay * 2, RETRY_MAX_MILLIS), atStart), delay,
                    TimeUnit.MILLISECONDS);
        }
    }

    private static void forget(List<CommitDecisions.Orphan> orphans) {
        for (CommitDecisions.Orphan each : orphans) {
            each.forget().run();
        }
    }

    /**
     * One data source's recovery of {@code orphans}' transactions; false when it could not be done now. At start, also
     * whether the data source can prepare transactions at all.
     */
    private boolean recover(BackendDataSource dataSource, List<CommitDecisions.Orphan> orphans, boolean atStart) {
        if (orphans.isEmpty() && !atStart) {
            return true;
        }
        List<String[]> rows;
        try {
            if (atStart) {
                checkPrepare(dataSource);
            }
            rows = dataSource.query("SELECT gid FROM pg_prepared_xacts WHERE gid LIKE '" + PREFIX
                    + "%' AND database = current_database()");
        } catch (SQLException e) {
            LOG.warn("data source {} is out of reach: its in-doubt transactions are recovered when it is back: {}",
                    dataSource.name(), e.getMessage());
            return false;
        }
        Map<String, CommitDecisions.Orphan> byInstance = new LinkedHashMap<>();
        for (CommitDecisions.Orphan each : orphans) {
            byInstance.put(each.instanceId(), each);
        }
        String ownPrefix = PREFIX + log.instanceId() + "_";
        boolean done = true;
        List<String> foreign = new ArrayList<>();
        for (String[] row : rows) {
            String gid = row[0];
            int instanceEnd = gid.indexOf('_', PREFIX.length());
            int slotStart = gid.lastIndexOf('_');
            if (instanceEnd < 0 || slotStart <= instanceEnd) {
                if (atStart) {
                    foreign.add(gid);
                }
                continue;
            }
            String instance = gid.substring(PREFIX.length(), instanceEnd);
            CommitDecisions.Orphan orphan = byInstance.get(instance);
            if (orphan == null) {
                if (atStart && !gid.startsWith(ownPrefix) && !log.knows(instance)) {
                    foreign.add(gid);
                }
                continue;
            }
            boolean commit = orphan.committed().contains(gid.substring(0, slotStart));
            try {
                end(dataSource, gid, commit);
                LOG.info("recovered in-doubt transaction {} on data source {}: {}", gid, dataSource.name(),
                        commit ? "committed, as decided" : "rolled back (no commit decision was logged)");
            } catch (SQLException e) {
                LOG.warn("could not finish in-doubt transaction {} on data source {}: {}", gid, dataSource.name(), e.getMessage());
                done = false;
            }
        }
        // Another live instance's transactions are its own to finish (in a cluster, any proxy's once it is gone).
        if (!foreign.isEmpty()) {
            LOG.warn("data source {} holds prepared transactions of Ashlar instances whose logs are not in {} (another proxy's,"
                    + " or a lost log): {}; they keep their locks until that proxy finishes them or an operator runs COMMIT"
                    + " PREPARED or ROLLBACK PREPARED", dataSource.name(), log.describe(), foreign);
        }
        return done;
    }

    /** Whether the data source can prepare transactions at all (said once in the log when it cannot). */
    private void checkPrepare(BackendDataSource dataSource) throws SQLException {
        List<String[]> setting = dataSource.query("SHOW max_prepared_transactions");
        if (!setting.isEmpty() && "0".equals(setting.get(0)[0])) {
            withoutPrepare.add(dataSource);
            LOG.warn("data source {} has max_prepared_transactions = 0: transactions that write to it and to another data"
                    + " source cannot commit atomically, and are refused (set max_prepared_transactions above 0 on it,"
                    + " or choose transaction type LOCAL in server.yaml for commits one data source after another)",
                    dataSource.name());
        } else {
            withoutPrepare.remove(dataSource);
        }
    }

    /** Stops the background work (what is left stays in the log for the next start) and closes the log. */
    @Override
    public void close() {
        if (log == null || closed) {
            return;
        }
        closed = true;
        CountDownLatch halt = haltAfterDecision;
        if (halt != null) {
            halt.countDown();
        }
        background.shutdownNow();
        try {
            background.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        log.close();
    }
}
