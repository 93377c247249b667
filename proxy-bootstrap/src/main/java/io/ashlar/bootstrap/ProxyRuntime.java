package io.ashlar.bootstrap;

import io.ashlar.backend.config.DataSourceConfig;
import io.ashlar.backend.config.LogicalDatabaseConfig;
import io.ashlar.backend.datasource.BackendDataSource;
import io.ashlar.backend.session.LogicalDatabase;
import io.ashlar.backend.sharding.SingleTableScanner;
import io.ashlar.route.rule.ShardingRules;
import io.ashlar.bootstrap.config.ConfigurationException;
import io.ashlar.bootstrap.config.ProxyConfiguration;
import io.ashlar.bootstrap.config.TransactionConfig;
import io.ashlar.backend.transaction.TwoPhaseCommit;
import io.ashlar.frontend.auth.LoginMethod;
import io.ashlar.protocol.ClientDialect;
import io.ashlar.frontend.server.FrontendContext;
import io.ashlar.frontend.server.PgServer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running proxy: the logical databases with their data source pools, and the frontend
 * listening for clients. Built from a loaded configuration with plain constructors; closing it
 * stops accepting, lets running statements finish (bounded) and closes the pools.
 */
public final class ProxyRuntime implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ProxyRuntime.class);
    private static final long SHUTDOWN_GRACE_MILLIS = 10_000;

    /** Retired data sources are closed this long after a configuration change, when running statements are done. */
    private static final long RETIRE_GRACE_MILLIS = 30_000;

    /** Replaced whole by {@link #apply} and {@link #remove}, which only the registry's one thread calls. */
    private volatile Map<String, LogicalDatabase> databases;
    private final java.util.Queue<BackendDataSource> retired = new java.util.concurrent.ConcurrentLinkedQueue<>();
    private final FrontendContext context;
    private final PgServer server;
    private final java.util.concurrent.atomic.AtomicBoolean closed = new java.util.concurrent.atomic.AtomicBoolean();

    /** server.yaml's proxy-statement-memory-limit, read at start: databases added later get it too. */
    private final long memoryLimit;
    /** How transactions over several data sources commit, shared by every logical database. */
    private final TwoPhaseCommit twoPhaseCommit;
    /** Whether sessions count what they do (server.yaml's metrics-port is set): databases added later count too. */
    private final boolean metricsOn;
    /** sql-show and the slow-query log, for databases added later too; null while both are off. */
    private io.ashlar.backend.metrics.StatementLog statementLog;
    private MetricsEndpoint metrics;

    private ProxyRuntime(Map<String, LogicalDatabase> databases, FrontendContext context, PgServer server, long memoryLimit,
                         TwoPhaseCommit twoPhaseCommit, boolean metricsOn) {
        this.memoryLimit = memoryLimit;
        this.twoPhaseCommit = twoPhaseCommit;
        this.metricsOn = metricsOn;
        this.databases = Map.copyOf(databases);
        this.context = context;
        this.server = server;
    }

    /**
     * Opens the data sources and starts listening.
     *
     * @param port port to listen on, overriding server.yaml; -1 to take server.yaml's (0 picks a free port)
     */
    public static ProxyRuntime start(ProxyConfiguration configuration, int port) throws InterruptedException {
        return start(configuration, port, null);
    }

    /**
     * Opens the data sources and starts listening, with the decisions of two-phase commits kept by {@code decisions}
     * (a Cluster mode proxy's, in ZooKeeper) rather than in server.yaml's transaction-log-directory.
     *
     * @param decisions where two-phase commits keep their decisions; null for the local directory. Closed with the
     *                  proxy, or here if the start fails
     */
    public static ProxyRuntime start(ProxyConfiguration configuration, int port,
                                     io.ashlar.backend.transaction.CommitDecisions decisions) throws InterruptedException {
        long started = System.nanoTime();
        long memoryLimit = configuration.server().props().statementMemoryLimit();
        TwoPhaseCommit twoPhaseCommit;
        if (decisions != null && configuration.server().transaction().twoPhase()) {
            twoPhaseCommit = TwoPhaseCommit.open(decisions);
        } else {
            if (decisions != null) {
                decisions.close();
            }
            twoPhaseCommit = openTwoPhaseCommit(configuration.server().transaction(), configuration.databases());
        }
        Map<String, LogicalDatabase> databases;
        try {
            databases = openDatabases(configuration.databases(), memoryLimit, twoPhaseCommit);
        } catch (RuntimeException e) {
            twoPhaseCommit.close();
            throw e;
        }
        // Before clients: what an earlier run left prepared is finished, and data sources that cannot prepare are known;
        // in a cluster, what proxies that die later leave is finished on the data sources served then.
        java.util.concurrent.atomic.AtomicReference<ProxyRuntime> self = new java.util.concurrent.atomic.AtomicReference<>();
        Map<String, LogicalDatabase> opened = databases;
        twoPhaseCommit.recover(() -> {
            ProxyRuntime running = self.get();
            return shardedDataSources(running == null ? opened : running.databases);
        });
        var props = configuration.server().props();
        int metricsPort = props.observability().metricsPort();
        if (metricsPort != 0) {
            databases.values().forEach(each -> each.metrics(new io.ashlar.backend.metrics.DatabaseMetrics()));
        }
        io.ashlar.backend.metrics.StatementLog statementLog = statementLog(props);
        databases.values().forEach(each -> each.statementLog(statementLog));
        FrontendContext context;
        try {
            context = FrontendSetup.context(configuration.server(), databases);
        } catch (RuntimeException e) {
            twoPhaseCommit.close();
            databases.values().forEach(LogicalDatabase::close);
            throw e;
        }
        PgServer server = new PgServer(context, props.bindAddress(), port >= 0 ? port : props.port(),
                props.frontendExecutorSize());
        try {
            server.start();
        } catch (RuntimeException | InterruptedException e) {
            context.close();
            twoPhaseCommit.close();
            databases.values().forEach(LogicalDatabase::close);
            throw e;
        }
        ProxyRuntime result = new ProxyRuntime(databases, context, server, memoryLimit, twoPhaseCommit, metricsPort != 0);
        self.set(result);
        result.statementLog = statementLog;
        if (metricsPort != 0) {
            String address = props.bindAddress().split(",")[0].strip();
            try {
                result.metrics = MetricsEndpoint.start(address, metricsPort, () -> result.databases, context::clients);
            } catch (java.io.IOException e) {
                result.close();
                throw new ConfigurationException("server.yaml: metrics-port " + metricsPort + ": cannot listen on " + address
                        + ":" + metricsPort + ": " + e.getMessage(), e);
            }
            LOG.info("metrics at http://{}:{}/metrics", address, metricsPort);
        }
        LOG.info("Ashlar ready on port {} in {} ms: logical databases {}", server.port(),
                (System.nanoTime() - started) / 1_000_000, databases.keySet());
        return result;
    }

    /** sql-show and the slow-query log as server.yaml sets them, or null when both are off. */
    private static io.ashlar.backend.metrics.StatementLog statementLog(io.ashlar.bootstrap.config.ServerProps props) {
        long slow = props.observability().slowQueryThresholdMillis();
        return props.sqlShow() || slow > 0 ? new io.ashlar.backend.metrics.StatementLog(props.sqlShow(), props.sqlSimple(), slow)
                : null;
    }

    /**
     * The log of two-phase commits. A directory that cannot hold it stops the start when a sharded database needs it; a
     * proxy of pooled databases only (whose clients run their own transactions) starts without it.
     */
    private static TwoPhaseCommit openTwoPhaseCommit(TransactionConfig transaction, List<LogicalDatabaseConfig> databases) {
        if (!transaction.twoPhase()) {
            return TwoPhaseCommit.DISABLED;
        }
        try {
            return TwoPhaseCommit.open(transaction.logDirectory());
        } catch (java.io.IOException e) {
            boolean sharded = false;
            for (LogicalDatabaseConfig each : databases) {
                sharded |= !each.rules().isEmpty();
            }
            if (!sharded) {
                LOG.warn("transaction-log-directory {}: the log of two-phase commits cannot be kept there ({}); no sharded"
                        + " database needs it now, and one added later commits one data source after another",
                        transaction.logDirectory().toAbsolutePath(), e.toString());
                return TwoPhaseCommit.DISABLED;
            }
            throw new ConfigurationException("transaction-log-directory " + transaction.logDirectory().toAbsolutePath()
                    + ": the log of two-phase commits cannot be kept there: " + e, e);
        }
    }

    /** The data sources of sharded databases (a pooler's client runs its own transactions), each once. */
    private static List<BackendDataSource> shardedDataSources(Map<String, LogicalDatabase> databases) {
        List<BackendDataSource> result = new ArrayList<>();
        for (LogicalDatabase each : databases.values()) {
            if (!each.rules().isEmpty()) {
                result.addAll(each.dataSources());
            }
        }
        return result;
    }

    private static Map<String, LogicalDatabase> openDatabases(List<LogicalDatabaseConfig> configs, long memoryLimit,
                                                              TwoPhaseCommit twoPhaseCommit) {
        Map<String, LogicalDatabase> result = new LinkedHashMap<>();
        Map<String, List<BackendDataSource>> opened = new LinkedHashMap<>();
        for (LogicalDatabaseConfig config : configs) {
            if (config.dataSources().isEmpty()) {
                LOG.warn("logical database {} has no data sources: it is not served", config.name());
                continue;
            }
            List<BackendDataSource> dataSources = new ArrayList<>();
            try {
                for (DataSourceConfig dataSource : config.dataSources().values()) {
                    dataSources.add(openDataSource(config.name(), dataSource));
                }
            } catch (ConfigurationException e) {
                dataSources.forEach(BackendDataSource::close);
                opened.values().forEach(each -> each.forEach(BackendDataSource::close));
                throw e;
            }
            opened.put(config.name(), dataSources);
        }
        List<BackendDataSource> all = new ArrayList<>();
        opened.values().forEach(all::addAll);
        awaitFirstChecks(all);
        try {
            for (LogicalDatabaseConfig config : configs) {
                List<BackendDataSource> dataSources = opened.get(config.name());
                if (dataSources == null) {
                    continue;
                }
                ShardingRules rules = compile(config, dataSources, dataSources);
                LogicalDatabase database = new LogicalDatabase(config.name(), dataSources, rules, memoryLimit, twoPhaseCommit);
                database.ruleConfigs(config.rules());
                startCatalog(database);
                result.put(config.name(), database);
            }
        } catch (RuntimeException e) {
            result.values().forEach(LogicalDatabase::close);
            all.forEach(BackendDataSource::close);
            throw e;
        }
        return result;
    }

    /**
     * Reads the logical tables of a sharded database and makes its catalog database (a pooler has neither: its
     * one data source answers everything).
     */
    private static void startCatalog(LogicalDatabase database) {
        if (!database.rules().isEmpty()) {
            database.catalog().start(true);
        }
    }

    /** Opens a data source; a setting its connections cannot use (a TLS file that cannot be read) is a ConfigurationException. */
    private static BackendDataSource openDataSource(String database, DataSourceConfig dataSource) {
        BackendDataSource result;
        try {
            result = BackendDataSource.open(dataSource);
        } catch (IllegalArgumentException e) {
            throw new ConfigurationException("logical database " + database + ", data source " + dataSource.name() + ": "
                    + e.getMessage(), e);
        }
        // Connects now, in the background: a data source that is down is said so in one line, with the reason, and
        // retried; statements that need it fail at once meanwhile (08006). The proxy starts all the same.
        result.health().start();
        return result;
    }

    /**
     * Waits (a moment: each data source's health check timeout at most, all of them at once) for the first answer
     * of each data source, so that reading the schema at start skips those already known down instead of trying
     * each of them in turn.
     */
    private static void awaitFirstChecks(List<BackendDataSource> dataSources) {
        long longest = 0;
        for (BackendDataSource each : dataSources) {
            longest = Math.max(longest, each.config().healthCheckTimeoutMilliseconds());
        }
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(longest + 500);
        for (BackendDataSource each : dataSources) {
            while (!each.health().settled() && System.nanoTime() - deadline < 0) {
                try {
                    Thread.sleep(10);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    /** Compiles the rules; on failure closes {@code opened} (the data sources this attempt opened) and throws. */
    private static ShardingRules compile(LogicalDatabaseConfig config, List<BackendDataSource> dataSources, List<BackendDataSource> opened) {
        if (config.rules().isEmpty()) {
            return ShardingRules.NONE;
        }
        try {
            Map<String, String> singleTables = SingleTableScanner.scan(dataSources);
            return ShardingRules.compile(config.rules(), List.copyOf(config.dataSources().keySet()), singleTables);
        } catch (RuntimeException e) {
            opened.forEach(BackendDataSource::close);
            throw new ConfigurationException("logical database " + config.name() + ": " + e.getMessage(), e);
        }
    }

    /**
     * Applies a changed (or new) logical database while clients run: data sources whose settings are unchanged are
     * kept, new ones are opened and the rules compiled before anything is swapped; then the database is swapped
     * atomically (only its rules when its data sources are the same). Statements already running finish on what they
     * started with; data sources no longer used are closed after a grace period. Not thread-safe: one caller (the
     * registry's thread).
     *
     * @throws ConfigurationException if the rules do not compile; nothing is changed then
     */
    public void apply(LogicalDatabaseConfig config) {
        long started = System.nanoTime();
        if (config.dataSources().isEmpty()) {
            LOG.warn("logical database {} has no data sources: it is not served", config.name());
            remove(config.name());
            return;
        }
        LogicalDatabase current = databases.get(config.name());
        Map<String, BackendDataSource> kept = new LinkedHashMap<>();
        if (current != null) {
            for (BackendDataSource each : current.dataSources()) {
                kept.put(each.name(), each);
            }
        }
        List<BackendDataSource> dataSources = new ArrayList<>();
        List<BackendDataSource> opened = new ArrayList<>();
        try {
            for (DataSourceConfig each : config.dataSources().values()) {
                BackendDataSource existing = kept.get(each.name());
                if (existing != null && existing.config().equals(each)) {
                    dataSources.add(existing);
                } else {
                    BackendDataSource fresh = openDataSource(config.name(), each);
                    opened.add(fresh);
                    dataSources.add(fresh);
                }
            }
        } catch (ConfigurationException e) {
            opened.forEach(BackendDataSource::close);
            throw e;
        }
        awaitFirstChecks(opened);
        ShardingRules rules = compile(config, dataSources, opened);
        String what;
        if (current != null && current.dataSources().equals(dataSources)) {
            current.rules(rules);
            current.ruleConfigs(config.rules());
            startCatalog(current);
            what = "rules";
        } else {
            Map<String, LogicalDatabase> next = new LinkedHashMap<>(databases);
            LogicalDatabase database = new LogicalDatabase(config.name(), dataSources, rules, memoryLimit, twoPhaseCommit);
            database.ruleConfigs(config.rules());
            if (metricsOn) {
                database.metrics(new io.ashlar.backend.metrics.DatabaseMetrics());
            }
            database.statementLog(statementLog);
            startCatalog(database);
            next.put(config.name(), database);
            swap(next);
            what = current == null ? "added" : "data sources and rules";
            if (current != null) {
                for (BackendDataSource each : current.dataSources()) {
                    if (!dataSources.contains(each)) {
                        retire(each);
                    }
                }
                retireCatalog(current);
            }
        }
        LOG.info("logical database {}: {} applied in {} ms", config.name(), what, (System.nanoTime() - started) / 1_000_000);
    }

    /** Stops serving a logical database: new sessions cannot open it; its data sources close after a grace period. */
    public void remove(String name) {
        LogicalDatabase current = databases.get(name);
        if (current == null) {
            return;
        }
        Map<String, LogicalDatabase> next = new LinkedHashMap<>(databases);
        next.remove(name);
        swap(next);
        current.dataSources().forEach(this::retire);
        retireCatalog(current);
        LOG.info("logical database {}: removed", name);
    }

    private void swap(Map<String, LogicalDatabase> next) {
        databases = Map.copyOf(next);
        context.databases(next);
    }

    private void retireCatalog(LogicalDatabase database) {
        BackendDataSource catalog = database.catalog().catalogDataSource();
        if (catalog != null) {
            retire(catalog);
        }
    }

    private void retire(BackendDataSource dataSource) {
        retired.add(dataSource);
        Thread.ofPlatform().daemon().name("ashlar-retire-" + dataSource.name()).start(() -> {
            try {
                Thread.sleep(RETIRE_GRACE_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (retired.remove(dataSource)) {
                try {
                    dataSource.close();
                } catch (Throwable e) {
                    LOG.warn("closing retired data source {}: {}", dataSource.name(), e.toString());
                }
            }
        });
    }

    public int port() {
        return server.port();
    }

    /** How many clients of a dialect logged in with an exchange since the proxy started. */
    public long logins(ClientDialect dialect, LoginMethod method) {
        return context.logins(dialect, method);
    }

    public Map<String, LogicalDatabase> databases() {
        return databases;
    }

    /** How transactions over several data sources commit (its instance id, and a crash point for tests). */
    public TwoPhaseCommit twoPhaseCommit() {
        return twoPhaseCommit;
    }


    /** Stops as SIGTERM does: see {@link #stop(long)}, with a grace of 10 s. */
    @Override
    public void close() {
        stop(SHUTDOWN_GRACE_MILLIS);
    }

    /**
     * Stops accepting; idle sessions end at once with FATAL 57P01, busy ones when they are idle, within
     * {@code graceMillis}; the rest then end the same way, their running statements cancelled (see
     * {@link PgServer#shutdown}); then the data sources close every connection, and the event loops stop.
     */
    public void stop(long graceMillis) {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        if (metrics != null) {
            metrics.close();
        }
        server.endSessions(graceMillis);
        context.close();
        twoPhaseCommit.close();
        for (LogicalDatabase database : databases.values()) {
            database.close();
        }
        for (BackendDataSource each = retired.poll(); each != null; each = retired.poll()) {
            each.close();
        }
        server.stopLoops(); // after the data sources: their idle connections close on the loops
        LOG.info("Ashlar stopped");
    }
}
