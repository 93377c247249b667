package io.ashlar.bootstrap.sharding;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The layout of {@code sharding/config-sharding.yaml} written out as code: each logical table's columns, its actual
 * tables, and the node each row must land on by ShardingSphere's rules. The tests use it to create the actual tables
 * before the proxy starts, to load rows straight into the shards, and to check, by reading the shards directly,
 * that every row the proxy wrote is where a ShardingSphere-Proxy with the same YAML would have put it.
 *
 * <p>The two descriptions must change together: the YAML is what the proxy reads, this is what the test expects.
 *
 * @see <a href="https://shardingsphere.apache.org/document/5.4.1/en/user-manual/common-config/builtin-algorithm/sharding/">ShardingSphere built-in sharding algorithms</a>
 */
final class ShardingLayout {

    static final List<String> DATA_SOURCES = List.of("ds_0", "ds_1");

    /** One actual table on one data source. */
    record Node(String dataSource, String table) {

        @Override
        public String toString() {
            return dataSource + "." + table;
        }
    }

    /** A column of a logical table: its name and its definition in CREATE TABLE. */
    record Column(String name, String definition) {
    }

    /**
     * A logical table: columns, actual tables, and where a row goes.
     *
     * @param name logical table name
     * @param columns columns in CREATE TABLE order
     * @param nodes every actual table of the logical table
     * @param createdAtStart whether the actual tables exist before the proxy starts
     * @param broadcast whether every node holds every row
     * @param placement the node a row must be on (for a broadcast table: unused), from the row's values by column name
     */
    record LogicalTable(String name, List<Column> columns, List<Node> nodes, boolean createdAtStart, boolean broadcast,
            Function<Map<String, String>, Node> placement) {

        List<String> columnNames() {
            List<String> result = new ArrayList<>();
            for (Column each : columns) {
                result.add(each.name());
            }
            return result;
        }

        String columnDefinitions() {
            StringBuilder result = new StringBuilder();
            for (Column each : columns) {
                if (!result.isEmpty()) {
                    result.append(", ");
                }
                result.append(each.name()).append(' ').append(each.definition());
            }
            return result.toString();
        }

        /** The nodes that must hold a row with these values: all of them for a broadcast table, else exactly one. */
        List<Node> nodesOf(Map<String, String> row) {
            return broadcast ? nodes : List.of(placement.apply(row));
        }
    }

    static final LogicalTable T_USER = new LogicalTable("t_user", List.of(
            new Column("user_id", "INT PRIMARY KEY"),
            new Column("name", "TEXT"),
            new Column("city", "TEXT"),
            new Column("score", "INT"),
            new Column("balance", "NUMERIC(14,2)"),
            new Column("joined", "DATE")),
            List.of(new Node("ds_0", "t_user"), new Node("ds_1", "t_user")), true, false,
            row -> new Node("ds_" + hashMod(row.get("user_id"), 2), "t_user"));

    static final LogicalTable T_ORDER = new LogicalTable("t_order", List.of(
            new Column("order_id", "BIGINT PRIMARY KEY"),
            new Column("user_id", "INT NOT NULL"),
            new Column("status", "VARCHAR(20)"),
            new Column("amount", "NUMERIC(12,2)"),
            new Column("discount", "NUMERIC"),
            new Column("weight", "DOUBLE PRECISION"),
            new Column("rate", "REAL"),
            new Column("note", "TEXT"),
            new Column("created_at", "TIMESTAMP")),
            twoByTwo("t_order"), true, false,
            row -> new Node("ds_" + mod(row.get("user_id"), 2), "t_order_" + mod(row.get("order_id"), 2)));

    static final LogicalTable T_ORDER_ITEM = new LogicalTable("t_order_item", List.of(
            new Column("order_item_id", "BIGINT PRIMARY KEY"),
            new Column("order_id", "BIGINT NOT NULL"),
            new Column("user_id", "INT NOT NULL"),
            new Column("product_id", "INT"),
            new Column("quantity", "INT"),
            new Column("price", "NUMERIC(10,3)")),
            twoByTwo("t_order_item"), true, false,
            row -> new Node("ds_" + mod(row.get("user_id"), 2), "t_order_item_" + mod(row.get("order_id"), 2)));

    static final LogicalTable T_DICT = new LogicalTable("t_dict", List.of(
            new Column("code", "VARCHAR(20) PRIMARY KEY"),
            new Column("label", "TEXT NOT NULL"),
            new Column("rank", "INT")),
            List.of(new Node("ds_0", "t_dict"), new Node("ds_1", "t_dict")), true, true, row -> {
                throw new IllegalStateException("a broadcast table has no placement");
            });

    static final LogicalTable T_LOG = new LogicalTable("t_log", List.of(
            new Column("id", "BIGINT PRIMARY KEY"),
            new Column("user_id", "INT"),
            new Column("level", "TEXT"),
            new Column("message", "TEXT"),
            new Column("cost", "NUMERIC(8,4)"),
            new Column("logged_at", "TIMESTAMPTZ")),
            List.of(new Node("ds_0", "t_log_0"), new Node("ds_1", "t_log_1"), new Node("ds_0", "t_log_2"), new Node("ds_1", "t_log_3")),
            true, false, row -> {
                long suffix = mod(row.get("id"), 4);
                return new Node("ds_" + suffix % 2, "t_log_" + suffix);
            });

    static final LogicalTable T_EVENT = new LogicalTable("t_event", List.of(
            new Column("id", "INT PRIMARY KEY"),
            new Column("kind", "TEXT"),
            new Column("qty", "INT")),
            List.of(new Node("ds_0", "t_event"), new Node("ds_1", "t_event")), true, false,
            row -> new Node("ds_" + mod(row.get("id"), 2), "t_event"));

    static final LogicalTable T_SINGLE = new LogicalTable("t_single", List.of(
            new Column("id", "INT PRIMARY KEY"),
            new Column("name", "TEXT"),
            new Column("value", "NUMERIC(10,2)")),
            List.of(new Node("ds_1", "t_single")), true, false, row -> new Node("ds_1", "t_single"));

    static final LogicalTable T_DDL = new LogicalTable("t_ddl", List.of(
            new Column("id", "INT PRIMARY KEY"),
            new Column("label", "TEXT")),
            twoByTwo("t_ddl"), false, false,
            row -> new Node("ds_" + mod(row.get("id"), 2), "t_ddl_" + Math.floorDiv(Long.parseLong(row.get("id")), 2) % 2));

    /** Every logical table, in the order rows are loaded. */
    static final List<LogicalTable> TABLES = List.of(T_USER, T_ORDER, T_ORDER_ITEM, T_DICT, T_LOG, T_EVENT, T_SINGLE, T_DDL);

    private ShardingLayout() {
    }

    static LogicalTable table(String name) {
        for (LogicalTable each : TABLES) {
            if (each.name().equals(name)) {
                return each;
            }
        }
        throw new IllegalArgumentException("no logical table " + name + " in the test layout");
    }

    private static List<Node> twoByTwo(String logicTable) {
        List<Node> result = new ArrayList<>();
        for (String dataSource : DATA_SOURCES) {
            for (int i = 0; i < 2; i++) {
                result.add(new Node(dataSource, logicTable + "_" + i));
            }
        }
        return result;
    }

    /** ShardingSphere's MOD and INLINE {@code x % n}: Java's remainder of the long value (negative for negative keys). */
    private static long mod(String value, int count) {
        return Long.parseLong(value) % count;
    }

    /**
     * ShardingSphere's HASH_MOD: {@code Math.abs((long) value.hashCode()) % count}, where the value of an int4 literal
     * is an Integer (ShardingSphere parses a numeric literal into the narrowest of Integer, Long, BigInteger).
     */
    static long hashMod(String value, int count) {
        long parsed = Long.parseLong(value);
        Object boxed = parsed >= Integer.MIN_VALUE && parsed <= Integer.MAX_VALUE ? (Object) (int) parsed : (Object) parsed;
        return Math.abs((long) boxed.hashCode()) % count;
    }
}
