package io.ashlar.route.rule;

import io.ashlar.route.RouteException;
import io.ashlar.route.RouteKind;
import io.ashlar.route.RouteResult;
import io.ashlar.route.RouteUnit;
import io.ashlar.route.TableMapping;
import io.ashlar.sharding.ShardingAlgorithmException;
import io.ashlar.sharding.TargetSet;
import io.ashlar.sharding.keygen.KeyGenerator;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

/**
 * A sharded logic table, compiled: its data nodes expanded and put in a canonical order (data source order of the
 * logical database, then the order of {@code actualDataNodes} within a data source), its database and table
 * strategies bound to their targets, its key generator created, and the route units of each single node built once.
 *
 * <p>Node indexes are positions in that canonical order. Binding tables are checked at compile time to have the same
 * number of actual tables on the same data sources, so node {@code i} of every table of a binding group lies on the
 * same data source at the same place: a join among them runs node {@code i} with node {@code i}, which is
 * ShardingSphere's binding route by actual table index.
 *
 * <p>Immutable and thread-safe, except that key generation advances the generator's own lock-free state.
 *
 * @see <a href="https://shardingsphere.apache.org/document/5.4.1/en/user-manual/shardingsphere-jdbc/yaml-config/rules/sharding/">ShardingSphere YAML sharding rule</a>
 */
public final class ShardingTable implements RuleTable {

    /** Returned by {@link #routeRow} when the values belong to no data node. */
    public static final int NO_NODE = -1;

    /** Returned by {@link #routeRow} when the values leave more than one data node possible. */
    public static final int SEVERAL_NODES = -2;

    /**
     * Returned by {@link #routeRow} when an algorithm cannot use one of the values (text where it computes with
     * numbers, a value of a type it does not know); {@link #unusableReason} says why.
     */
    public static final int UNUSABLE_VALUE = -3;

    /** IN lists up to this long are routed value by value, so that one unplaceable value widens only its own route. */
    private static final int MAX_SPLIT = 64;

    private final String logicTable;

    private final List<DataNode> nodes;

    private final int[] nodeDataSource;

    private final List<String> columns;

    private final List<String> bindingKey;

    private final CompiledStrategy databaseStrategy;

    private final CompiledStrategy[] tableStrategies;

    private final int[][] nodeOf;

    private final int bindingGroup;

    private final String keyColumn;

    private final KeyGenerator keyGenerator;

    private final String description;

    /** Each strategy's sharding columns in its own order, lower case: the database strategy's, then the table strategy's. */
    private final List<String> databaseColumns;

    private final List<String> tableColumns;

    /** How equal sharding values are placed, comparable between tables (see {@link #placesLike}). */
    private final String topology;

    private final TableMapping[] mappings;

    private final RouteUnit[] units;

    private final RouteResult[] singleResults;

    private final RouteResult allNodesQuery;

    ShardingTable(String logicTable, List<DataNode> nodes, int[] nodeDataSource, List<String> columns, List<String> bindingKey,
                  CompiledStrategy databaseStrategy, CompiledStrategy[] tableStrategies, int[][] nodeOf, int bindingGroup,
                  String keyColumn, KeyGenerator keyGenerator, String description, List<String> databaseColumns, List<String> tableColumns,
                  String topology) {
        this.logicTable = logicTable;
        this.nodes = List.copyOf(nodes);
        this.nodeDataSource = nodeDataSource;
        this.columns = List.copyOf(columns);
        this.bindingKey = List.copyOf(bindingKey);
        this.databaseStrategy = databaseStrategy;
        this.tableStrategies = tableStrategies;
        this.nodeOf = nodeOf;
        this.bindingGroup = bindingGroup;
        this.keyColumn = keyColumn;
        this.keyGenerator = keyGenerator;
        this.description = description;
        this.databaseColumns = List.copyOf(databaseColumns);
        this.tableColumns = List.copyOf(tableColumns);
        this.topology = topology;
        int count = nodes.size();
        mappings = new TableMapping[count];
        units = new RouteUnit[count];
        singleResults = new RouteResult[count];
        for (int i = 0; i < count; i++) {
            DataNode node = nodes.get(i);
            mappings[i] = new TableMapping(logicTable, node.table());
            units[i] = new RouteUnit(node.dataSource(), List.of(mappings[i]));
            singleResults[i] = new RouteResult(RouteKind.SINGLE, List.of(units[i]));
        }
        List<RouteUnit> all = new ArrayList<>(count);
        Collections.addAll(all, units);
        allNodesQuery = new RouteResult(count == 1 ? RouteKind.SINGLE : RouteKind.MULTI_QUERY, all);
    }

    ShardingTable withBindingGroup(int group) {
        return new ShardingTable(logicTable, nodes, nodeDataSource, columns, bindingKey, databaseStrategy, tableStrategies, nodeOf, group, keyColumn,
                keyGenerator, description, databaseColumns, tableColumns, topology);
    }

    @Override
    public String logicTable() {
        return logicTable;
    }

    /** The data nodes in canonical order; a node's index here is its node index. */
    public List<DataNode> dataNodes() {
        return nodes;
    }

    public int nodeCount() {
        return nodes.size();
    }

    public DataNode node(int index) {
        return nodes.get(index);
    }

    /** The index in {@link ShardingRules#dataSources()} of node {@code index}'s data source. */
    public int nodeDataSource(int index) {
        return nodeDataSource[index];
    }

    /** The sharding columns of both strategies, lower case; a column's index here is its column id. */
    public List<String> shardingColumns() {
        return columns;
    }

    /**
     * The sharding columns that pick a row's actual table: those of the table strategy, or of the database strategy
     * when the table strategy reads none (one table per data source, an auto table's single strategy). A join of this
     * table with another table of its binding group that equates these columns, position by position, pairs rows on
     * one node, the binding declaration vouching for the coarser columns: an order and its items share the order's
     * {@code user_id}, so {@code o.order_id = i.order_id} pairs rows of one data source. The coarser columns alone
     * ({@code o.user_id = i.user_id}) pair an order with the items of its user's other orders, in other tables, which
     * no binding declaration keeps together.
     *
     * @see <a href="https://shardingsphere.apache.org/document/5.4.1/en/features/sharding/concept/#binding-table">ShardingSphere binding tables</a>
     */
    public List<String> bindingKey() {
        return bindingKey;
    }

    /** The database strategy's sharding columns in its order, lower case (none for {@code none} and {@code hint}). */
    public List<String> databaseColumns() {
        return databaseColumns;
    }

    /** The table strategy's sharding columns in its order, lower case. */
    public List<String> tableColumns() {
        return tableColumns;
    }

    /**
     * Whether this table places rows as {@code other} does, position by position: the same number of actual tables on
     * the same data sources, with the same numeric suffixes, and strategies of the same kind whose algorithms put equal
     * sharding values at the same position (the check that binding tables pass). Two such tables keep related rows
     * (equal values of their sharding columns) in actual tables at the same node index.
     */
    public boolean placesLike(ShardingTable other) {
        if (other == this) {
            return true;
        }
        if (nodes.size() != other.nodes.size() || !topology.equals(other.topology) || topology.contains("hint ")) {
            return false;
        }
        for (int i = 0; i < nodes.size(); i++) {
            if (nodeDataSource[i] != other.nodeDataSource[i] || !suffix(nodes.get(i).table()).equals(suffix(other.nodes.get(i).table()))) {
                return false;
            }
        }
        return true;
    }

    /** Whether node {@code i} of this table and of {@code other} is on the same data source, for every node. */
    public boolean sameLayout(ShardingTable other) {
        if (nodes.size() != other.nodes.size()) {
            return false;
        }
        for (int i = 0; i < nodes.size(); i++) {
            if (nodeDataSource[i] != other.nodeDataSource[i]) {
                return false;
            }
        }
        return true;
    }

    /** {@code 12} of {@code t_order_12}: the numeric suffix of an actual table name. */
    static String suffix(String name) {
        int start = name.length();
        while (start > 0 && Character.isDigit(name.charAt(start - 1))) {
            start--;
        }
        return name.substring(start);
    }

    /** The strategies' placement, as {@link #placesLike} compares it. */
    public String topology() {
        return topology;
    }

    /** The column id of a sharding column (ignoring case), or -1 when {@code column} does not shard this table. */
    public int columnId(String column) {
        for (int i = 0, n = columns.size(); i < n; i++) {
            String each = columns.get(i);
            // The parser's names are folded already, as the rules' usually are: one intrinsic compare, case only else.
            if (each.equals(column) || each.equalsIgnoreCase(column)) {
                return i;
            }
        }
        return -1;
    }

    /** The binding group this table belongs to, or -1. */
    public int bindingGroup() {
        return bindingGroup;
    }

    /** The column the proxy fills with a generated key when an INSERT leaves it out. */
    public Optional<String> keyGenerateColumn() {
        return Optional.ofNullable(keyColumn);
    }

    /**
     * A new key for {@link #keyGenerateColumn()}.
     *
     * @throws IllegalStateException if the table has no key generator
     */
    public Comparable<?> generateKey() {
        if (keyGenerator == null) {
            throw new IllegalStateException(logicTable + " has no key generator");
        }
        return keyGenerator.generateKey();
    }

    /** The mapping of this table to node {@code index}'s actual table (shared instance). */
    public TableMapping mapping(int index) {
        return mappings[index];
    }

    /** The route unit of node {@code index} naming this table alone (shared instance). */
    public RouteUnit unit(int index) {
        return units[index];
    }

    /** The SINGLE route result of node {@code index} (shared instance). */
    public RouteResult singleResult(int index) {
        return singleResults[index];
    }

    /** The result of reading every node (MULTI_QUERY, or SINGLE with one node; shared instance). */
    public RouteResult allNodesQuery() {
        return allNodesQuery;
    }

    /**
     * Adds to {@code result} the nodes that may hold rows satisfying {@code constraints} (indexed by column id). A value
     * an algorithm cannot use ({@code user_id = 'abc'}) widens the route to every node: the statement then runs, and
     * the shards answer it as PostgreSQL does (with no row, or with PostgreSQL's own error such as 22P02).
     *
     * @throws RouteException 0A000 when an algorithm refuses a range
     */
    public void route(ColumnConstraint[] constraints, NodeSet result) {
        for (int column = 0; column < constraints.length; column++) {
            ColumnConstraint constraint = constraints[column];
            if (constraint.kind() == ColumnConstraint.Kind.VALUES && constraint.values().size() > 1 && constraint.values().size() <= MAX_SPLIT) {
                ColumnConstraint[] each = constraints.clone();
                for (Comparable<?> value : constraint.values()) {
                    each[column] = ColumnConstraint.value(value);
                    route(each, result);
                }
                return;
            }
        }
        NodeSet found = NodeSet.empty(nodes.size());
        routeStrictly(constraints, found);
        if (found.isEmpty() && !matchesNothing(constraints)) {
            found.addAll();
        }
        result.or(found);
    }

    /**
     * The nodes a row may stay on once an UPDATE has set the sharding columns given in {@code values} (by column id;
     * {@code null}: a column the UPDATE leaves as it is): a row on one of them is still where the rules place it, a
     * row on any other node would have to move. {@code null} when that cannot be told: a strategy that reads both a
     * set column and one left as it is (the row's other value decides, which the proxy does not see), an algorithm that
     * cannot use a value, or values that place a row on no node.
     */
    public NodeSet nodesAfterSetting(Object[] values) {
        if (!readsOnlySetOrOnlyKept(databaseStrategy, values)) {
            return null;
        }
        for (CompiledStrategy each : tableStrategies) {
            if (!readsOnlySetOrOnlyKept(each, values)) {
                return null;
            }
        }
        ColumnConstraint[] constraints = new ColumnConstraint[columns.size()];
        for (int id = 0; id < constraints.length; id++) {
            Object value = id < values.length ? values[id] : null;
            if (value == null) {
                constraints[id] = ColumnConstraint.UNRESTRICTED;
            } else if (value instanceof Comparable<?> comparable) {
                constraints[id] = ColumnConstraint.value(comparable);
            } else {
                return null;
            }
        }
        NodeSet found = NodeSet.empty(nodes.size());
        try {
            addNodes(constraints, found);
        } catch (CompiledStrategy.RangeRefusal | ShardingAlgorithmException e) {
            return null;
        }
        return found.isEmpty() ? null : found;
    }

    private static boolean readsOnlySetOrOnlyKept(CompiledStrategy strategy, Object[] values) {
        boolean set = false;
        boolean kept = false;
        for (int id = 0; id < values.length; id++) {
            if (strategy.usesColumn(id)) {
                if (values[id] != null) {
                    set = true;
                } else {
                    kept = true;
                }
            }
        }
        return !(set && kept);
    }

    /** The index of the node {@code unit} stands for ({@code NO_NODE} if none of this table's): its data source and actual table. */
    public int nodeOf(RouteUnit unit) {
        String actual = unit.actualTable(logicTable);
        for (int i = 0, n = nodes.size(); i < n; i++) {
            DataNode node = nodes.get(i);
            if (node.table().equals(actual) && node.dataSource().equals(unit.dataSource())) {
                return i;
            }
        }
        return NO_NODE;
    }

    /**
     * No node for values that PostgreSQL may still match (an INLINE algorithm given {@code 1.0} for an integer column
     * computes {@code ds_1.0}) means the algorithm cannot tell: every node. Only an INSERT, which must place its row,
     * treats it as an error ({@link #routeRow}).
     */
    private static boolean matchesNothing(ColumnConstraint[] constraints) {
        for (ColumnConstraint each : constraints) {
            if (each.kind() == ColumnConstraint.Kind.NOTHING || each.kind() == ColumnConstraint.Kind.RANGE) {
                return true;
            }
        }
        return false;
    }

    private void routeStrictly(ColumnConstraint[] constraints, NodeSet result) {
        try {
            addNodes(constraints, result);
        } catch (CompiledStrategy.RangeRefusal e) {
            throw new RouteException("0A000", "a range condition on sharded table " + logicTable + " cannot be routed: " + e.getMessage(), false);
        } catch (ShardingAlgorithmException e) {
            result.addAll();
        }
    }

    /** Adds the nodes the strategies pick for {@code constraints}; an algorithm's refusal propagates. */
    private void addNodes(ColumnConstraint[] constraints, NodeSet result) {
        TargetSet dataSources = databaseStrategy.route(constraints);
        for (int i = 0, n = dataSources.size(); i < n; i++) {
            int dataSource = dataSources.index(i);
            TargetSet tables = tableStrategies[dataSource].route(constraints);
            int[] nodesOfDataSource = nodeOf[dataSource];
            for (int j = 0, m = tables.size(); j < m; j++) {
                result.add(nodesOfDataSource[tables.index(j)]);
            }
        }
    }

    /**
     * The one node of a row whose sharding values are known: an INSERT row, a COPY row, or a WHERE clause that fixes
     * every sharding column with one value.
     *
     * <p>When the database strategy leaves several data sources open (strategy {@code none}, as every auto table
     * has, or a value missing), the node is the one the table strategy picks among the actual tables of all of them:
     * an auto table's {@code MOD} picks {@code t_log_1}, which lives on one data source only.
     *
     * @param values by column id; {@code null} where the row gives no value
     * @return a node index, {@link #NO_NODE}, {@link #SEVERAL_NODES} or {@link #UNUSABLE_VALUE}
     */
    public int routeRow(Object[] values) {
        for (Object each : values) {
            if (each != null && !(each instanceof Comparable<?>)) {
                return UNUSABLE_VALUE;
            }
        }
        try {
            int dataSource = databaseStrategy.routeOne(values);
            if (dataSource < 0) {
                return dataSource == CompiledStrategy.SEVERAL ? routeRowOnEveryDataSource(values) : NO_NODE;
            }
            int table = tableStrategies[dataSource].routeOne(values);
            if (table < 0) {
                return table == CompiledStrategy.SEVERAL ? SEVERAL_NODES : NO_NODE;
            }
            return nodeOf[dataSource][table];
        } catch (ShardingAlgorithmException e) {
            return UNUSABLE_VALUE;
        }
    }

    private int routeRowOnEveryDataSource(Object[] values) {
        int result = NO_NODE;
        for (int dataSource = 0; dataSource < tableStrategies.length; dataSource++) {
            int table = tableStrategies[dataSource].routeOne(values);
            if (table == CompiledStrategy.SEVERAL || table >= 0 && result >= 0) {
                return SEVERAL_NODES;
            }
            if (table >= 0) {
                result = nodeOf[dataSource][table];
            }
        }
        return result;
    }

    /** Why {@link #routeRow} answered {@link #UNUSABLE_VALUE} for these values: the algorithm's own words. */
    public String unusableReason(Object[] values) {
        for (Object each : values) {
            if (each != null && !(each instanceof Comparable<?>)) {
                return "no algorithm routes by a value of type " + each.getClass().getSimpleName();
            }
        }
        try {
            int dataSource = databaseStrategy.routeOne(values);
            if (dataSource >= 0) {
                tableStrategies[dataSource].routeOne(values);
            } else {
                for (CompiledStrategy each : tableStrategies) {
                    each.routeOne(values);
                }
            }
        } catch (ShardingAlgorithmException e) {
            return e.getMessage();
        }
        return "the values are usable";
    }

    /**
     * A router for rows given in a fixed column order, for COPY ... FROM STDIN: {@link RowRouter#route} answers the
     * node index of each row, which is the index of its unit in the COPY statement's route result.
     *
     * @param rowColumns the columns of the rows, in order (the COPY column list, or the table's columns)
     */
    public RowRouter rowRouter(List<String> rowColumns) {
        int[] positions = new int[columns.size()];
        for (int i = 0; i < positions.length; i++) {
            positions[i] = -1;
            for (int j = 0; j < rowColumns.size(); j++) {
                if (rowColumns.get(j).equalsIgnoreCase(columns.get(i))) {
                    positions[i] = j;
                    break;
                }
            }
        }
        return new RowRouter(this, positions);
    }

    /** The strategies, for EXPLAIN-style descriptions and error messages. */
    public String describe() {
        return description;
    }

    @Override
    public String toString() {
        return logicTable + " " + nodes;
    }
}
