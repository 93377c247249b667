package io.ashlar.backend.session;

import io.ashlar.backend.datasource.BackendDataSource;
import io.ashlar.backend.metadata.LogicalCatalog;
import io.ashlar.backend.sharding.PlanCache;
import io.ashlar.backend.transaction.TwoPhaseCommit;
import io.ashlar.route.rule.ShardingRules;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A logical database as clients see it: its name and the backend data sources it spans, in
 * configuration order. A logical database with one data source and no rules is a pooler: every
 * statement goes to that data source unchanged.
 */
public final class LogicalDatabase implements AutoCloseable {

    private final String name;
    private final List<BackendDataSource> dataSources;
    private final Map<String, Integer> dataSourceIndexes = new HashMap<>();
    private final PlanCache plans = new PlanCache();
    private final java.util.concurrent.atomic.AtomicReference<ShardingRules> rules = new java.util.concurrent.atomic.AtomicReference<>();
    private final long statementMemoryLimit;
    private final TwoPhaseCommit twoPhaseCommit;
    private volatile List<Object> ruleConfigs = List.of();
    /** sql-show and the slow-query log, or null while both are off. */
    private volatile io.ashlar.backend.metrics.StatementLog statementLog;
    /** Its sessions' counters, or null while metrics are off (server.yaml's metrics-port unset). */
    private volatile io.ashlar.backend.metrics.DatabaseMetrics metrics;

    /** The default of server.yaml's {@code proxy-statement-memory-limit}: 256 MiB. */
    public static final long DEFAULT_STATEMENT_MEMORY_LIMIT = 256L << 20;
    private final LogicalCatalog catalog = new LogicalCatalog(this);

    /** A pooler: no rules. */
    public LogicalDatabase(String name, List<BackendDataSource> dataSources) {
        this(name, dataSources, ShardingRules.NONE);
    }

    public LogicalDatabase(String name, List<BackendDataSource> dataSources, ShardingRules rules) {
        this(name, dataSources, rules, DEFAULT_STATEMENT_MEMORY_LIMIT);
    }

    /**
     * @param statementMemoryLimit bytes one statement may hold in the proxy for rows it cannot
     *        stream (server.yaml's {@code proxy-statement-memory-limit}, read once at start)
     */
    public LogicalDatabase(String name, List<BackendDataSource> dataSources, ShardingRules rules, long statementMemoryLimit) {
        this(name, dataSources, rules, statementMemoryLimit, TwoPhaseCommit.DISABLED);
    }

    /**
     * @param twoPhaseCommit how transactions that wrote to several data sources commit (the proxy's one, shared by
     *        its databases; {@link TwoPhaseCommit#DISABLED} for one data source after another)
     */
    public LogicalDatabase(String name, List<BackendDataSource> dataSources, ShardingRules rules, long statementMemoryLimit,
                           TwoPhaseCommit twoPhaseCommit) {
        this.twoPhaseCommit = twoPhaseCommit;
        if (statementMemoryLimit <= 0) {
            throw new IllegalArgumentException("statement memory limit must be positive, got " + statementMemoryLimit);
        }
        this.statementMemoryLimit = statementMemoryLimit;
        if (dataSources.isEmpty()) {
            throw new IllegalArgumentException("logical database " + name + " has no data sources");
        }
        this.name = name;
        this.dataSources = List.copyOf(dataSources);
        for (int i = 0; i < this.dataSources.size(); i++) {
            dataSourceIndexes.put(this.dataSources.get(i).name(), i);
        }
        this.rules.set(rules);
    }

    /** How transactions that wrote to several data sources commit. */
    public TwoPhaseCommit twoPhaseCommit() {
        return twoPhaseCommit;
    }

    /** The compiled rules now in force (a snapshot: swapped whole when they change). */
    public ShardingRules rules() {
        return rules.get();
    }

    /**
     * Swaps in rules derived from the current ones (after CREATE TABLE made a new single table),
     * retrying if another session changed them meanwhile, so that no change is lost.
     */
    public void updateRules(java.util.function.UnaryOperator<ShardingRules> change) {
        rules.updateAndGet(change);
    }

    /** The rules as configured (the records of {@code io.ashlar.route.config}), for DistSQL that shows them. */
    public List<Object> ruleConfigs() {
        return ruleConfigs;
    }

    /** Remembers the rules as configured, beside their compiled form (at start and at each configuration change). */
    public void ruleConfigs(List<Object> configs) {
        this.ruleConfigs = List.copyOf(configs);
    }

    /** The counters of its sessions, or null when metrics are off: sessions look once, when they open. */
    public io.ashlar.backend.metrics.DatabaseMetrics metrics() {
        return metrics;
    }

    /** sql-show and the slow-query log, or null when both are off: sessions look once, when they open. */
    public io.ashlar.backend.metrics.StatementLog statementLog() {
        return statementLog;
    }

    /** Turns sql-show or the slow-query log on (at start, before any session opens). */
    public void statementLog(io.ashlar.backend.metrics.StatementLog log) {
        this.statementLog = log;
    }

    /** Turns its metrics on (at start, before any session opens). */
    public void metrics(io.ashlar.backend.metrics.DatabaseMetrics metrics) {
        this.metrics = metrics;
    }

    /** Swaps in new rules whole (a configuration change). */
    public void rules(ShardingRules newRules) {
        rules.set(newRules);
    }

    /** Bytes one statement may hold in the proxy for rows it cannot stream (in-memory sorts and groups, kept results). */
    public long statementMemoryLimit() {
        return statementMemoryLimit;
    }

    /** Analysed statements of this database, shared by its sessions. */
    public PlanCache plans() {
        return plans;
    }

    /** The position of a data source in {@link #dataSources()}, or -1. */
    public int dataSourceIndex(String dataSourceName) {
        Integer result = dataSourceIndexes.get(dataSourceName);
        return result == null ? -1 : result;
    }

    public String name() {
        return name;
    }

    public List<BackendDataSource> dataSources() {
        return dataSources;
    }

    /**
     * The health of each data source, in the order of {@link #dataSources()}: up or down, since when, and the last
     * error (for {@code SHOW STORAGE UNITS} and metrics; a read of each one's state, no connection made).
     */
    public List<io.ashlar.backend.pg.DataSourceHealth.State> dataSourceHealth() {
        List<io.ashlar.backend.pg.DataSourceHealth.State> result = new java.util.ArrayList<>(dataSources.size());
        for (BackendDataSource each : dataSources) {
            result.add(each.health().state());
        }
        return result;
    }

    /** The logical tables of this database and its catalog database (empty for a pooler, and until started). */
    public LogicalCatalog catalog() {
        return catalog;
    }

    /**
     * How many backend connections a session may hold: one per data source, and one to the catalog database, at
     * index {@link #catalogSlot()}.
     */
    public int connectionSlots() {
        return dataSources.size() + 1;
    }

    /** The connection slot of the catalog database. */
    public int catalogSlot() {
        return dataSources.size();
    }

    /** The data source of a connection slot: a data source, or the catalog database (the default data source without one). */
    public BackendDataSource slotDataSource(int slot) {
        if (slot < dataSources.size()) {
            return dataSources.get(slot);
        }
        BackendDataSource result = catalog.catalogDataSource();
        return result != null ? result : defaultDataSource();
    }

    /** The data source that statements not routed by any rule go to. */
    public BackendDataSource defaultDataSource() {
        ShardingRules current = rules.get();
        int index = current.isEmpty() ? 0 : dataSourceIndex(current.defaultDataSource());
        return dataSources.get(Math.max(index, 0));
    }

    /**
     * The parameters a backend of this database reports at login (server_version, server_encoding,
     * DateStyle, TimeZone, ...), read from a live connection; empty values when none could be made.
     */
    public Map<String, String> backendParameters() {
        return defaultDataSource().backendParameters();
    }


    @Override
    public void close() {
        catalog.close();
        for (BackendDataSource dataSource : dataSources) {
            dataSource.close();
        }
    }
}
