package io.ashlar.route.rule;

import io.ashlar.route.RouteKind;
import io.ashlar.route.RouteResult;
import io.ashlar.route.RouteUnit;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The rules of one logical database compiled into an immutable snapshot: every sharded table with its data nodes
 * expanded and its algorithms created and bound to their targets, binding groups as indexes, the broadcast tables,
 * the single tables and where they live, and the route results that never change (session, default data source,
 * broadcast write). The proxy compiles a snapshot at start and on every configuration change and swaps it
 * atomically; the route engine reads it without locks and without looking at configuration.
 *
 * <p>Table names are matched as PostgreSQL resolves unquoted identifiers: rule names are folded to lower case, and
 * a statement's (already normalised) name must equal one. A schema-qualified name matches only in schema
 * {@code public}.
 *
 * @see <a href="https://shardingsphere.apache.org/document/5.4.1/en/user-manual/shardingsphere-jdbc/yaml-config/rules/sharding/">ShardingSphere YAML sharding rule</a>
 * @see <a href="https://shardingsphere.apache.org/document/5.4.1/en/user-manual/shardingsphere-jdbc/yaml-config/rules/broadcast/">ShardingSphere broadcast rule</a>
 * @see <a href="https://shardingsphere.apache.org/document/5.4.1/en/user-manual/shardingsphere-jdbc/yaml-config/rules/single/">ShardingSphere single rule</a>
 */
public final class ShardingRules {

    /** No data source and no rule. */
    public static final ShardingRules NONE = new ShardingRules(List.of(), -1, Map.of(), List.of(), List.of(), Map.of());

    private final List<String> dataSources;

    private final Map<String, Integer> dataSourceIndex;

    private final int defaultDataSource;

    private final Map<String, RuleTable> tables;

    private final List<ShardingTable> shardingTables;

    private final List<List<String>> bindingGroups;

    private final Map<String, String> indexTables;

    private final boolean empty;

    private final RouteResult sessionResult;

    private final RouteResult defaultResult;

    private final RouteResult[] singleResults;

    private final RouteResult broadcastWrite;

    ShardingRules(List<String> dataSources, int defaultDataSource, Map<String, RuleTable> tables, List<ShardingTable> shardingTables,
                  List<List<String>> bindingGroups, Map<String, String> indexTables) {
        this.dataSources = List.copyOf(dataSources);
        Map<String, Integer> index = new HashMap<>();
        for (int i = 0; i < this.dataSources.size(); i++) {
            index.put(this.dataSources.get(i), i);
        }
        this.dataSourceIndex = Map.copyOf(index);
        this.defaultDataSource = defaultDataSource;
        this.tables = Map.copyOf(tables);
        this.shardingTables = List.copyOf(shardingTables);
        this.bindingGroups = List.copyOf(bindingGroups);
        this.indexTables = Map.copyOf(indexTables);
        boolean onlyDefault = true;
        for (RuleTable each : this.tables.values()) {
            if (!(each instanceof SingleTable single) || single.dataSourceIndex() != defaultDataSource) {
                onlyDefault = false;
                break;
            }
        }
        this.empty = onlyDefault;
        this.sessionResult = new RouteResult(RouteKind.SESSION, List.of());
        this.singleResults = new RouteResult[this.dataSources.size()];
        List<RouteUnit> all = new ArrayList<>(this.dataSources.size());
        for (int i = 0; i < singleResults.length; i++) {
            RouteUnit unit = new RouteUnit(this.dataSources.get(i), List.of());
            all.add(unit);
            singleResults[i] = new RouteResult(RouteKind.SINGLE, List.of(unit));
        }
        this.defaultResult = new RouteResult(RouteKind.DEFAULT, List.of(new RouteUnit(defaultDataSource(), List.of())));
        this.broadcastWrite = new RouteResult(all.size() == 1 ? RouteKind.SINGLE : RouteKind.BROADCAST_WRITE, all);
    }

    /**
     * Compiles the rule configuration of one logical database.
     *
     * @param ruleConfigs the rule records of {@code io.ashlar.route.config}: {@code ShardingRuleConfig},
     *                    {@code BroadcastRuleConfig}, {@code SingleRuleConfig}
     * @param dataSourceNames the logical database's data sources, in configuration order
     * @param singleTables lower-case table name to data source, as found in the backends' catalogs (tables that a rule
     *                     names are not single and are ignored here)
     * @throws RuleCompilationException naming the table, the strategy and the problem
     */
    public static ShardingRules compile(List<Object> ruleConfigs, List<String> dataSourceNames, Map<String, String> singleTables) {
        return new RuleCompiler(dataSourceNames).compile(ruleConfigs, singleTables);
    }

    /** Whether there is nothing to route: no sharded or broadcast table, no single table off the default data source. */
    public boolean isEmpty() {
        return empty;
    }

    /** The data sources, in configuration order; indexes into this list are data source indexes. */
    public List<String> dataSources() {
        return dataSources;
    }

    /** The index of a data source, or -1. */
    public int dataSourceIndex(String dataSource) {
        Integer result = dataSourceIndex.get(dataSource);
        return result == null ? -1 : result;
    }

    /**
     * Where statements that touch no rule table run, and where CREATE TABLE puts a new single table: the
     * {@code !SINGLE} rule's {@code defaultDataSource}, else the first data source; empty for {@link #NONE}.
     */
    public String defaultDataSource() {
        return defaultDataSource < 0 ? "" : dataSources.get(defaultDataSource);
    }

    /** The index of {@link #defaultDataSource()}, -1 for {@link #NONE}. */
    public int defaultDataSourceIndex() {
        return defaultDataSource;
    }

    /**
     * What the rules say about a (normalised, unqualified) table name; empty for a table no rule or catalog names.
     * One hash lookup (the name's hash is cached by String); the Optional does not outlive an inlined call.
     */
    public Optional<RuleTable> find(String table) {
        return Optional.ofNullable(tables.get(table));
    }

    /** Every table the rules name, sharded, broadcast and single, in no particular order. */
    public java.util.Collection<RuleTable> tables() {
        return tables.values();
    }

    /** The sharded tables, in configuration order ({@code tables}, then {@code autoTables}). */
    public List<ShardingTable> shardingTables() {
        return shardingTables;
    }

    /** The binding groups by group index (see {@link ShardingTable#bindingGroup()}). */
    public List<List<String>> bindingGroups() {
        return bindingGroups;
    }

    /** The logic table an index was created on through the proxy, by index name (for DROP INDEX without a table). */
    public Optional<String> indexTable(String index) {
        return Optional.ofNullable(indexTables.get(index));
    }

    /**
     * A snapshot that also knows a single table: the proxy calls this after CREATE TABLE of an unsharded table went
     * through it. A table some rule names keeps its rule.
     */
    public ShardingRules withSingleTable(String table, String dataSource) {
        String name = table.toLowerCase(Locale.ROOT);
        int index = dataSourceIndex(dataSource);
        if (index < 0) {
            throw new IllegalArgumentException("unknown data source '" + dataSource + "'");
        }
        RuleTable existing = tables.get(name);
        if (existing != null && !(existing instanceof SingleTable)) {
            return this;
        }
        Map<String, RuleTable> copy = new HashMap<>(tables);
        copy.put(name, new SingleTable(name, dataSource, index));
        return new ShardingRules(dataSources, defaultDataSource, copy, shardingTables, bindingGroups, indexTables);
    }

    /** A snapshot that no longer knows a single table (after DROP TABLE through the proxy). */
    public ShardingRules withoutSingleTable(String table) {
        String name = table.toLowerCase(Locale.ROOT);
        if (!(tables.get(name) instanceof SingleTable)) {
            return this;
        }
        Map<String, RuleTable> copy = new HashMap<>(tables);
        copy.remove(name);
        return new ShardingRules(dataSources, defaultDataSource, copy, shardingTables, bindingGroups, indexTables);
    }

    /**
     * A snapshot that knows which logic table an index belongs to, so that {@code DROP INDEX name} (which names no
     * table) reaches the index's copies on every data node; the proxy calls it after CREATE INDEX went through it.
     */
    public ShardingRules withIndex(String index, String table) {
        Map<String, String> copy = new HashMap<>(indexTables);
        copy.put(index, table.toLowerCase(Locale.ROOT));
        return new ShardingRules(dataSources, defaultDataSource, tables, shardingTables, bindingGroups, copy);
    }

    /** The SESSION result: no unit (shared instance). */
    public RouteResult sessionResult() {
        return sessionResult;
    }

    /** The DEFAULT result: one unit on the default data source, nothing renamed (shared instance). */
    public RouteResult defaultResult() {
        return defaultResult;
    }

    /** A SINGLE result on data source {@code index}, nothing renamed (shared instance). */
    public RouteResult singleResult(int index) {
        return singleResults[index];
    }

    /** Every data source, nothing renamed: BROADCAST_WRITE, or SINGLE with one data source (shared instance). */
    public RouteResult broadcastWrite() {
        return broadcastWrite;
    }

    @Override
    public String toString() {
        return "ShardingRules" + dataSources + " " + tables.keySet();
    }
}
