package io.ashlar.bench.jmh;

import io.ashlar.backend.config.DataSourceConfig;
import io.ashlar.backend.config.LogicalDatabaseConfig;
import io.ashlar.backend.datasource.BackendDataSource;
import io.ashlar.backend.session.LogicalDatabase;
import io.ashlar.bootstrap.config.ProxyConfigurationLoader;
import io.ashlar.route.RouteParameters;
import io.ashlar.route.rule.ShardingRules;
import java.math.BigDecimal;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What the kernel benchmarks feed the kernel: one logical database's rules, read from YAML by the
 * proxy's own configuration loader and compiled as the proxy compiles them at start, and the
 * statements real clients send through it, with the parameter values they bind.
 *
 * <p>The rules follow {@code conf/config-sharding.yaml} ({@code t_order}/{@code t_order_item}
 * sharded by database and by table, bound together; {@code t_address} broadcast) and add the
 * tables of pgbench (by their key, MOD 2) and of BenchmarkSQL 5.0's TPC-C (by warehouse id,
 * MOD 2, {@code bmsql_item} broadcast), as {@code ../shared/peers/} shards them for
 * ShardingSphere-Proxy. The statements are written with {@code $n} markers, as pgjdbc and
 * pgbench send them.
 */
public final class Workload {

    /** The logical database, in the ShardingSphere 5.4 shape the proxy reads. */
    public static final String CONFIG_YAML = """
            databaseName: sharding_db
            dataSources:
              ds_0:
                url: jdbc:postgresql://127.0.0.1:1/demo_ds_0
                username: postgres
                password: postgres
                minPoolSize: 0
              ds_1:
                url: jdbc:postgresql://127.0.0.1:1/demo_ds_1
                username: postgres
                password: postgres
                minPoolSize: 0
            rules:
              - !SHARDING
                tables:
                  t_order:
                    actualDataNodes: ds_${0..1}.t_order_${0..1}
                    databaseStrategy:
                      standard:
                        shardingColumn: user_id
                        shardingAlgorithmName: database_inline
                    tableStrategy:
                      standard:
                        shardingColumn: order_id
                        shardingAlgorithmName: t_order_mod
                  t_order_item:
                    actualDataNodes: ds_${0..1}.t_order_item_${0..1}
                    databaseStrategy:
                      standard:
                        shardingColumn: user_id
                        shardingAlgorithmName: database_inline
                    tableStrategy:
                      standard:
                        shardingColumn: order_id
                        shardingAlgorithmName: t_order_mod
                  pgbench_accounts:
                    actualDataNodes: ds_${0..1}.pgbench_accounts
                    databaseStrategy:
                      standard:
                        shardingColumn: aid
                        shardingAlgorithmName: mod_2
                  pgbench_branches:
                    actualDataNodes: ds_${0..1}.pgbench_branches
                    databaseStrategy:
                      standard:
                        shardingColumn: bid
                        shardingAlgorithmName: mod_2
                  pgbench_tellers:
                    actualDataNodes: ds_${0..1}.pgbench_tellers
                    databaseStrategy:
                      standard:
                        shardingColumn: tid
                        shardingAlgorithmName: mod_2
                  pgbench_history:
                    actualDataNodes: ds_${0..1}.pgbench_history
                    databaseStrategy:
                      standard:
                        shardingColumn: aid
                        shardingAlgorithmName: mod_2
                  bmsql_warehouse:
                    actualDataNodes: ds_${0..1}.bmsql_warehouse
                    databaseStrategy:
                      standard:
                        shardingColumn: w_id
                        shardingAlgorithmName: mod_2
                  bmsql_district:
                    actualDataNodes: ds_${0..1}.bmsql_district
                    databaseStrategy:
                      standard:
                        shardingColumn: d_w_id
                        shardingAlgorithmName: mod_2
                  bmsql_customer:
                    actualDataNodes: ds_${0..1}.bmsql_customer
                    databaseStrategy:
                      standard:
                        shardingColumn: c_w_id
                        shardingAlgorithmName: mod_2
                  bmsql_history:
                    actualDataNodes: ds_${0..1}.bmsql_history
                    databaseStrategy:
                      standard:
                        shardingColumn: h_w_id
                        shardingAlgorithmName: mod_2
                  bmsql_new_order:
                    actualDataNodes: ds_${0..1}.bmsql_new_order
                    databaseStrategy:
                      standard:
                        shardingColumn: no_w_id
                        shardingAlgorithmName: mod_2
                  bmsql_oorder:
                    actualDataNodes: ds_${0..1}.bmsql_oorder
                    databaseStrategy:
                      standard:
                        shardingColumn: o_w_id
                        shardingAlgorithmName: mod_2
                  bmsql_order_line:
                    actualDataNodes: ds_${0..1}.bmsql_order_line
                    databaseStrategy:
                      standard:
                        shardingColumn: ol_w_id
                        shardingAlgorithmName: mod_2
                  bmsql_stock:
                    actualDataNodes: ds_${0..1}.bmsql_stock
                    databaseStrategy:
                      standard:
                        shardingColumn: s_w_id
                        shardingAlgorithmName: mod_2
                  bmsql_config:
                    actualDataNodes: ds_0.bmsql_config
                bindingTables:
                  - t_order, t_order_item
                  - bmsql_warehouse, bmsql_customer
                  - bmsql_stock, bmsql_district, bmsql_order_line
                shardingAlgorithms:
                  database_inline:
                    type: INLINE
                    props:
                      algorithm-expression: ds_${user_id % 2}
                  t_order_mod:
                    type: MOD
                    props:
                      sharding-count: 2
                  mod_2:
                    type: MOD
                    props:
                      sharding-count: 2
              - !BROADCAST
                tables:
                  - t_address
                  - bmsql_item
            """;

    /**
     * One statement as a client sends it.
     *
     * @param name how the benchmarks' {@code statement} parameter names it
     * @param sql the text, with {@code $n} markers
     * @param values the values bound to {@code $1..$n}, as the sharding algorithms take them
     */
    public record Statement(String name, String sql, Object[] values) {

        /** The values as the router reads them. */
        public RouteParameters parameters() {
            return new Values(values);
        }
    }

    /** Parameter values already converted to Java values (the proxy's conversion is measured in {@link PreparedBindBenchmark}). */
    public record Values(Object[] values) implements RouteParameters {
        @Override
        public int count() {
            return values.length;
        }

        @Override
        public Object value(int index) {
            return values[index];
        }
    }

    /** {@code pgbench -S}: the one statement of its select-only script. */
    public static final Statement PGBENCH_SELECT = new Statement("pgbench_select",
            "SELECT abalance FROM pgbench_accounts WHERE aid = $1", new Object[] {424_242});

    /** The statements of BenchmarkSQL 5.0's New-Order transaction, in the order it runs them. */
    public static final List<Statement> NEW_ORDER = List.of(
            new Statement("no_customer_warehouse", "SELECT c_discount, c_last, c_credit, w_tax "
                    + "    FROM bmsql_customer "
                    + "    JOIN bmsql_warehouse ON (w_id = c_w_id) "
                    + "    WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3", new Object[] {3, 7, 1234}),
            new Statement("no_district", "SELECT d_tax, d_next_o_id "
                    + "    FROM bmsql_district "
                    + "    WHERE d_w_id = $1 AND d_id = $2 "
                    + "    FOR UPDATE", new Object[] {3, 7}),
            new Statement("no_update_district", "UPDATE bmsql_district "
                    + "    SET d_next_o_id = d_next_o_id + 1 "
                    + "    WHERE d_w_id = $1 AND d_id = $2", new Object[] {3, 7}),
            new Statement("no_insert_order", "INSERT INTO bmsql_oorder ("
                    + "    o_id, o_d_id, o_w_id, o_c_id, o_entry_d, "
                    + "    o_ol_cnt, o_all_local) "
                    + "VALUES ($1, $2, $3, $4, $5, $6, $7)",
                    new Object[] {3001, 7, 3, 1234, LocalDateTime.of(2026, 11, 22, 10, 0), 11, 1}),
            new Statement("no_insert_new_order", "INSERT INTO bmsql_new_order ("
                    + "    no_o_id, no_d_id, no_w_id) "
                    + "VALUES ($1, $2, $3)", new Object[] {3001, 7, 3}),
            new Statement("no_stock", "SELECT s_quantity, s_data, "
                    + "       s_dist_01, s_dist_02, s_dist_03, s_dist_04, "
                    + "       s_dist_05, s_dist_06, s_dist_07, s_dist_08, "
                    + "       s_dist_09, s_dist_10 "
                    + "    FROM bmsql_stock "
                    + "    WHERE s_w_id = $1 AND s_i_id = $2 "
                    + "    FOR UPDATE", new Object[] {3, 77_777}),
            new Statement("no_item", "SELECT i_price, i_name, i_data "
                    + "    FROM bmsql_item "
                    + "    WHERE i_id = $1", new Object[] {77_777}),
            new Statement("no_update_stock", "UPDATE bmsql_stock "
                    + "    SET s_quantity = $1, s_ytd = s_ytd + $2, "
                    + "        s_order_cnt = s_order_cnt + 1, "
                    + "        s_remote_cnt = s_remote_cnt + $3 "
                    + "    WHERE s_w_id = $4 AND s_i_id = $5", new Object[] {42, 5, 0, 3, 77_777}),
            new Statement("no_insert_order_line", "INSERT INTO bmsql_order_line ("
                    + "    ol_o_id, ol_d_id, ol_w_id, ol_number, "
                    + "    ol_i_id, ol_supply_w_id, ol_quantity, "
                    + "    ol_amount, ol_dist_info) "
                    + "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
                    new Object[] {3001, 7, 3, 1, 77_777, 3, 5, new BigDecimal("123.45"), "dist-info-24-characters"}));

    /** A join of two bound sharded tables with GROUP BY, ORDER BY an aggregate and LIMIT: four units and a merge. */
    public static final Statement JOIN_GROUP_ORDER_LIMIT = new Statement("join_group_order_limit",
            "SELECT o.user_id, o.status, count(*) AS items, sum(i.quantity) AS quantity "
                    + "FROM t_order o JOIN t_order_item i ON o.order_id = i.order_id AND o.user_id = i.user_id "
                    + "WHERE o.status = $1 GROUP BY o.user_id, o.status ORDER BY quantity DESC, o.user_id LIMIT 10",
            new Object[] {"new"});

    /** One order by both sharding keys: one unit, whose actual table is renamed ({@code t_order_1} on ds_1). */
    public static final Statement ORDER_BY_KEYS = new Statement("order_by_keys",
            "SELECT order_id, user_id, status FROM t_order WHERE user_id = $1 AND order_id = $2",
            new Object[] {7, 1001});

    /** One user's orders, sorted: both tables of one data source, merged by ORDER BY. */
    public static final Statement USER_ORDERS = new Statement("user_orders",
            "SELECT order_id, status FROM t_order WHERE user_id = $1 ORDER BY order_id DESC LIMIT 20",
            new Object[] {7});

    private static final Map<String, Statement> BY_NAME = byName();

    private Workload() {
    }

    private static Map<String, Statement> byName() {
        java.util.HashMap<String, Statement> result = new java.util.HashMap<>();
        for (Statement each : NEW_ORDER) {
            result.put(each.name(), each);
        }
        result.put(PGBENCH_SELECT.name(), PGBENCH_SELECT);
        result.put(JOIN_GROUP_ORDER_LIMIT.name(), JOIN_GROUP_ORDER_LIMIT);
        result.put(ORDER_BY_KEYS.name(), ORDER_BY_KEYS);
        result.put(USER_ORDERS.name(), USER_ORDERS);
        return Map.copyOf(result);
    }

    /**
     * The statements a benchmark's {@code statement} parameter names: one statement by its name,
     * or {@code new_order} for all nine statements of a New-Order transaction.
     */
    public static List<Statement> statements(String name) {
        if (name.equals("new_order")) {
            return NEW_ORDER;
        }
        Statement result = BY_NAME.get(name);
        if (result == null) {
            throw new IllegalArgumentException("unknown statement " + name + "; known: new_order, " + BY_NAME.keySet());
        }
        return List.of(result);
    }

    /** The logical database's configuration, read by the proxy's loader. */
    public static LogicalDatabaseConfig config() {
        return ProxyConfigurationLoader.loadDatabase("config-sharding.yaml", CONFIG_YAML);
    }

    /**
     * The logical database as the proxy builds it at start: its data sources (pools that make no
     * connection until asked: {@code minPoolSize: 0}, and nothing listens on their port) and its
     * compiled rules. Close it when done.
     */
    public static LogicalDatabase database() {
        LogicalDatabaseConfig config = config();
        List<BackendDataSource> dataSources = new ArrayList<>();
        for (DataSourceConfig each : config.dataSources().values()) {
            dataSources.add(BackendDataSource.open(each));
        }
        ShardingRules rules = ShardingRules.compile(config.rules(), List.copyOf(config.dataSources().keySet()), Map.of());
        return new LogicalDatabase(config.name(), dataSources, rules);
    }

    /** The rules compiled as the proxy compiles them at start. */
    public static ShardingRules rules() {
        LogicalDatabaseConfig config = config();
        return ShardingRules.compile(config.rules(), List.copyOf(config.dataSources().keySet()), Map.of());
    }
}
