package io.ashlar.bootstrap.sharding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ashlar.backend.config.LogicalDatabaseConfig;
import io.ashlar.bootstrap.ProxyRuntime;
import io.ashlar.bootstrap.config.ProxyConfiguration;
import io.ashlar.bootstrap.config.ProxyConfigurationLoader;
import io.ashlar.bootstrap.config.ServerConfig;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * BenchmarkSQL 5.0's {@code foreignKeys.sql} through the proxy over ShardingSphere's 2-shard TPC-C rules
 * ({@code peers/shardingsphere-proxy-5.1.0/conf-2shard}: every table on {@code ds_${warehouse id % 2}}, bmsql_item
 * broadcast, bmsql_config on ds_0): the keys between tables sharded alike by their warehouse ids are created on each
 * data source between its actual tables and enforced there (23503 for a missing parent or a referenced parent's
 * delete); the key to the broadcast bmsql_item too; the two keys that reach another warehouse ({@code h_customer_fkey},
 * {@code ol_stock_fkey}) are enforced by the proxy across data sources (a remote order line's stock is looked up on its
 * own data source). The logical catalog shows all ten keys by their logical names. TRUNCATE and DROP TABLE of several sharded tables laid out
 * alike run once per data source, naming them all.
 */
class TpccForeignKeysTest {

    private static final String CONFIG = """
            databaseName: sharding_db
            dataSources:
              ds_0:
                url: "@DS0@"
                username: postgres
                password: ""
              ds_1:
                url: "@DS1@"
                username: postgres
                password: ""
            rules:
              - !SHARDING
                tables:
                  bmsql_warehouse:
                    actualDataNodes: ds_${0..1}.bmsql_warehouse
                    databaseStrategy: {standard: {shardingColumn: w_id, shardingAlgorithmName: mod_2}}
                  bmsql_district:
                    actualDataNodes: ds_${0..1}.bmsql_district
                    databaseStrategy: {standard: {shardingColumn: d_w_id, shardingAlgorithmName: mod_2}}
                  bmsql_customer:
                    actualDataNodes: ds_${0..1}.bmsql_customer
                    databaseStrategy: {standard: {shardingColumn: c_w_id, shardingAlgorithmName: mod_2}}
                  bmsql_history:
                    actualDataNodes: ds_${0..1}.bmsql_history
                    databaseStrategy: {standard: {shardingColumn: h_w_id, shardingAlgorithmName: mod_2}}
                  bmsql_new_order:
                    actualDataNodes: ds_${0..1}.bmsql_new_order
                    databaseStrategy: {standard: {shardingColumn: no_w_id, shardingAlgorithmName: mod_2}}
                  bmsql_oorder:
                    actualDataNodes: ds_${0..1}.bmsql_oorder
                    databaseStrategy: {standard: {shardingColumn: o_w_id, shardingAlgorithmName: mod_2}}
                  bmsql_order_line:
                    actualDataNodes: ds_${0..1}.bmsql_order_line
                    databaseStrategy: {standard: {shardingColumn: ol_w_id, shardingAlgorithmName: mod_2}}
                  bmsql_stock:
                    actualDataNodes: ds_${0..1}.bmsql_stock
                    databaseStrategy: {standard: {shardingColumn: s_w_id, shardingAlgorithmName: mod_2}}
                  bmsql_config:
                    actualDataNodes: ds_0.bmsql_config
                  t_order:
                    actualDataNodes: ds_${0..1}.t_order_${0..1}
                    databaseStrategy: {standard: {shardingColumn: user_id, shardingAlgorithmName: mod_2}}
                    tableStrategy: {standard: {shardingColumn: order_id, shardingAlgorithmName: t_order_inline}}
                  t_order_item:
                    actualDataNodes: ds_${0..1}.t_order_item_${0..1}
                    databaseStrategy: {standard: {shardingColumn: user_id, shardingAlgorithmName: mod_2}}
                    tableStrategy: {standard: {shardingColumn: order_id, shardingAlgorithmName: t_order_item_inline}}
                  t_twin_a:
                    actualDataNodes: ds_${0..1}.t_twin_a
                    databaseStrategy: {standard: {shardingColumn: w_id, shardingAlgorithmName: mod_2}}
                  t_twin_b:
                    actualDataNodes: ds_${0..1}.t_twin_b
                    databaseStrategy: {standard: {shardingColumn: w_id, shardingAlgorithmName: mod_2}}
                bindingTables:
                  - bmsql_warehouse, bmsql_customer
                  - bmsql_stock, bmsql_district, bmsql_order_line
                broadcastTables:
                  - bmsql_item
                defaultDatabaseStrategy:
                  none:
                defaultTableStrategy:
                  none:
                shardingAlgorithms:
                  mod_2:
                    type: MOD
                    props:
                      sharding-count: 2
                  t_order_inline:
                    type: INLINE
                    props:
                      algorithm-expression: t_order_${order_id % 2}
                  t_order_item_inline:
                    type: INLINE
                    props:
                      algorithm-expression: t_order_item_${order_id % 2}
            """;

    /** BenchmarkSQL 5.0's tableCreates.sql (without the history sequence, which is not this test's concern). */
    private static final List<String> TABLE_CREATES = List.of(
            "create table bmsql_config (cfg_name varchar(30) primary key, cfg_value varchar(50))",
            "create table bmsql_warehouse (w_id integer not null, w_ytd decimal(12,2), w_tax decimal(4,4), w_name varchar(10), w_street_1 varchar(20), "
                    + "w_street_2 varchar(20), w_city varchar(20), w_state char(2), w_zip char(9))",
            "create table bmsql_district (d_w_id integer not null, d_id integer not null, d_ytd decimal(12,2), d_tax decimal(4,4), d_next_o_id integer, "
                    + "d_name varchar(10), d_street_1 varchar(20), d_street_2 varchar(20), d_city varchar(20), d_state char(2), d_zip char(9))",
            "create table bmsql_customer (c_w_id integer not null, c_d_id integer not null, c_id integer not null, c_discount decimal(4,4), "
                    + "c_credit char(2), c_last varchar(16), c_first varchar(16), c_credit_lim decimal(12,2), c_balance decimal(12,2), "
                    + "c_ytd_payment decimal(12,2), c_payment_cnt integer, c_delivery_cnt integer, c_street_1 varchar(20), c_street_2 varchar(20), "
                    + "c_city varchar(20), c_state char(2), c_zip char(9), c_phone char(16), c_since timestamp, c_middle char(2), c_data varchar(500))",
            "create table bmsql_history (hist_id integer, h_c_id integer, h_c_d_id integer, h_c_w_id integer, h_d_id integer, h_w_id integer, "
                    + "h_date timestamp, h_amount decimal(6,2), h_data varchar(24))",
            "create table bmsql_new_order (no_w_id integer not null, no_d_id integer not null, no_o_id integer not null)",
            "create table bmsql_oorder (o_w_id integer not null, o_d_id integer not null, o_id integer not null, o_c_id integer, "
                    + "o_carrier_id integer, o_ol_cnt integer, o_all_local integer, o_entry_d timestamp)",
            "create table bmsql_order_line (ol_w_id integer not null, ol_d_id integer not null, ol_o_id integer not null, ol_number integer not null, "
                    + "ol_i_id integer not null, ol_delivery_d timestamp, ol_amount decimal(6,2), ol_supply_w_id integer, ol_quantity integer, "
                    + "ol_dist_info char(24))",
            "create table bmsql_item (i_id integer not null, i_name varchar(24), i_price decimal(5,2), i_data varchar(50), i_im_id integer)",
            "create table bmsql_stock (s_w_id integer not null, s_i_id integer not null, s_quantity integer, s_ytd integer, s_order_cnt integer, "
                    + "s_remote_cnt integer, s_data varchar(50), s_dist_01 char(24), s_dist_02 char(24))");

    /** The primary keys of indexCreates.sql that the foreign keys reference. */
    private static final List<String> PRIMARY_KEYS = List.of(
            "alter table bmsql_warehouse add constraint bmsql_warehouse_pkey primary key (w_id)",
            "alter table bmsql_district add constraint bmsql_district_pkey primary key (d_w_id, d_id)",
            "alter table bmsql_customer add constraint bmsql_customer_pkey primary key (c_w_id, c_d_id, c_id)",
            "alter table bmsql_oorder add constraint bmsql_oorder_pkey primary key (o_w_id, o_d_id, o_id)",
            "alter table bmsql_new_order add constraint bmsql_new_order_pkey primary key (no_w_id, no_d_id, no_o_id)",
            "alter table bmsql_order_line add constraint bmsql_order_line_pkey primary key (ol_w_id, ol_d_id, ol_o_id, ol_number)",
            "alter table bmsql_stock add constraint bmsql_stock_pkey primary key (s_w_id, s_i_id)",
            "alter table bmsql_item add constraint bmsql_item_pkey primary key (i_id)");

    /** BenchmarkSQL 5.0's run/sql.common/foreignKeys.sql, statement by statement, as its runDatabaseBuild.sh sends them. */
    private static final List<String> FOREIGN_KEYS = List.of(
            "alter table bmsql_district add constraint d_warehouse_fkey\n    foreign key (d_w_id)\n    references bmsql_warehouse (w_id)",
            "alter table bmsql_customer add constraint c_district_fkey\n    foreign key (c_w_id, c_d_id)\n    references bmsql_district (d_w_id, d_id)",
            "alter table bmsql_history add constraint h_customer_fkey\n    foreign key (h_c_w_id, h_c_d_id, h_c_id)\n"
                    + "    references bmsql_customer (c_w_id, c_d_id, c_id)",
            "alter table bmsql_history add constraint h_district_fkey\n    foreign key (h_w_id, h_d_id)\n    references bmsql_district (d_w_id, d_id)",
            "alter table bmsql_new_order add constraint no_order_fkey\n    foreign key (no_w_id, no_d_id, no_o_id)\n"
                    + "    references bmsql_oorder (o_w_id, o_d_id, o_id)",
            "alter table bmsql_oorder add constraint o_customer_fkey\n    foreign key (o_w_id, o_d_id, o_c_id)\n"
                    + "    references bmsql_customer (c_w_id, c_d_id, c_id)",
            "alter table bmsql_order_line add constraint ol_order_fkey\n    foreign key (ol_w_id, ol_d_id, ol_o_id)\n"
                    + "    references bmsql_oorder (o_w_id, o_d_id, o_id)",
            "alter table bmsql_order_line add constraint ol_stock_fkey\n    foreign key (ol_supply_w_id, ol_i_id)\n    references bmsql_stock (s_w_id, s_i_id)",
            "alter table bmsql_stock add constraint s_warehouse_fkey\n    foreign key (s_w_id)\n    references bmsql_warehouse (w_id)",
            "alter table bmsql_stock add constraint s_item_fkey\n    foreign key (s_i_id)\n    references bmsql_item (i_id)");

    /** On each data source: every key but the two the proxy enforces, between the actual tables there. */
    private static final String EXPECTED_KEYS = """
            bmsql_customer c_district_fkey -> bmsql_district
            bmsql_district d_warehouse_fkey -> bmsql_warehouse
            bmsql_history h_district_fkey -> bmsql_district
            bmsql_new_order no_order_fkey -> bmsql_oorder
            bmsql_oorder o_customer_fkey -> bmsql_customer
            bmsql_order_line ol_order_fkey -> bmsql_oorder
            bmsql_stock s_item_fkey -> bmsql_item
            bmsql_stock s_warehouse_fkey -> bmsql_warehouse
            """;

    /** In the logical catalog: all ten. */
    private static final String LOGICAL_KEYS = """
            bmsql_customer c_district_fkey -> bmsql_district
            bmsql_district d_warehouse_fkey -> bmsql_warehouse
            bmsql_history h_customer_fkey -> bmsql_customer
            bmsql_history h_district_fkey -> bmsql_district
            bmsql_new_order no_order_fkey -> bmsql_oorder
            bmsql_oorder o_customer_fkey -> bmsql_customer
            bmsql_order_line ol_order_fkey -> bmsql_oorder
            bmsql_order_line ol_stock_fkey -> bmsql_stock
            bmsql_stock s_item_fkey -> bmsql_item
            bmsql_stock s_warehouse_fkey -> bmsql_warehouse
            """;

    private static EmbeddedPostgres postgres;

    private static ProxyRuntime proxy;

    @BeforeAll
    static void start() throws IOException, SQLException, InterruptedException {
        postgres = EmbeddedPostgres.builder().setServerConfig("max_prepared_transactions", "10").start();
        try (Connection connection = postgres.getPostgresDatabase().getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE DATABASE ds_0");
            statement.execute("CREATE DATABASE ds_1");
        }
        String yaml = CONFIG.replace("@DS0@", url("ds_0")).replace("@DS1@", url("ds_1"));
        LogicalDatabaseConfig database = ProxyConfigurationLoader.loadDatabase("config-sharding.yaml", yaml);
        proxy = ProxyRuntime.start(new ProxyConfiguration(ServerConfig.DEFAULTS, List.of(database)), 0);
        try (Connection connection = proxy(); Statement statement = connection.createStatement()) {
            for (String each : TABLE_CREATES) {
                statement.execute(each);
            }
            for (String each : PRIMARY_KEYS) {
                statement.execute(each);
            }
        }
    }

    @AfterAll
    static void stop() throws IOException {
        try {
            if (proxy != null) {
                proxy.close();
            }
        } finally {
            if (postgres != null) {
                postgres.close();
            }
        }
    }

    @Test
    void benchmarkSqlForeignKeysAreAllCreated() throws SQLException {
        try (Connection connection = proxy(); Statement statement = connection.createStatement()) {
            for (String each : FOREIGN_KEYS) {
                statement.execute(each);
            }
        }
        for (String each : List.of("ds_0", "ds_1")) {
            assertEquals(EXPECTED_KEYS, foreignKeys(each, "bmsql"), "foreign keys on " + each);
        }
        try (Connection connection = proxy(); Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery("select conrelid::regclass, conname, confrelid::regclass from pg_constraint "
                        + "where contype = 'f' and conrelid::regclass::text like 'bmsql%' order by 1::text, 2")) {
            StringBuilder logical = new StringBuilder();
            while (rs.next()) {
                logical.append(rs.getString(1)).append(' ').append(rs.getString(2)).append(" -> ").append(rs.getString(3)).append('\n');
            }
            assertEquals(LOGICAL_KEYS, logical.toString(), "foreign keys in the logical catalog");
        }

        try (Connection connection = proxy(); Statement statement = connection.createStatement()) {
            statement.execute("insert into bmsql_item (i_id, i_name) values (1, 'one')");
            statement.execute("insert into bmsql_warehouse (w_id, w_name) values (1, 'odd'), (2, 'even')");
            statement.execute("insert into bmsql_district (d_w_id, d_id) values (1, 1), (2, 1)");
            statement.execute("insert into bmsql_stock (s_w_id, s_i_id) values (1, 1), (2, 1)");

            SQLException orphan = assertThrows(SQLException.class, () -> statement.execute("insert into bmsql_district (d_w_id, d_id) values (3, 1)"));
            assertEquals("23503", orphan.getSQLState(), orphan.getMessage());
            assertTrue(orphan.getMessage().contains("d_warehouse_fkey"), orphan.getMessage());

            SQLException referenced = assertThrows(SQLException.class, () -> statement.execute("delete from bmsql_warehouse where w_id = 2"));
            assertEquals("23503", referenced.getSQLState(), referenced.getMessage());

            SQLException noItem = assertThrows(SQLException.class, () -> statement.execute("insert into bmsql_stock (s_w_id, s_i_id) values (2, 99)"));
            assertEquals("23503", noItem.getSQLState(), noItem.getMessage());
            assertTrue(noItem.getMessage().contains("s_item_fkey"), noItem.getMessage());

            SQLException itemInUse = assertThrows(SQLException.class, () -> statement.execute("delete from bmsql_item where i_id = 1"));
            assertEquals("23503", itemInUse.getSQLState(), itemInUse.getMessage());

            try (ResultSet rs = statement.executeQuery("select count(*) from bmsql_district")) {
                assertTrue(rs.next());
                assertEquals(2, rs.getInt(1));
            }

            // The two keys the proxy enforces: a remote order line's stock and a payment's customer on the other data source.
            statement.execute("insert into bmsql_oorder (o_w_id, o_d_id, o_id) values (1, 1, 1)");
            statement.execute("insert into bmsql_order_line (ol_w_id, ol_d_id, ol_o_id, ol_number, ol_i_id, ol_supply_w_id)"
                    + " values (1, 1, 1, 1, 1, 1), (1, 1, 1, 2, 1, 2)");
            SQLException noStock = assertThrows(SQLException.class, () -> statement.execute("insert into bmsql_order_line"
                    + " (ol_w_id, ol_d_id, ol_o_id, ol_number, ol_i_id, ol_supply_w_id) values (1, 1, 1, 3, 7, 2)"));
            assertEquals("23503", noStock.getSQLState(), noStock.getMessage());
            assertTrue(noStock.getMessage().contains("ol_stock_fkey") && noStock.getMessage().contains("(ol_supply_w_id, ol_i_id)=(2, 7)"),
                    noStock.getMessage());
            SQLException stockInUse = assertThrows(SQLException.class, () -> statement.execute("delete from bmsql_stock where s_w_id = 2"));
            assertEquals("23503", stockInUse.getSQLState(), stockInUse.getMessage());
            assertTrue(stockInUse.getMessage().contains("ol_stock_fkey"), stockInUse.getMessage());
            statement.execute("insert into bmsql_customer (c_w_id, c_d_id, c_id) values (2, 1, 1)");
            statement.execute("insert into bmsql_history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id) values (1, 1, 2, 1, 1)");
            SQLException noCustomer = assertThrows(SQLException.class, () -> statement.execute("insert into bmsql_history"
                    + " (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id) values (2, 1, 2, 1, 1)"));
            assertEquals("23503", noCustomer.getSQLState(), noCustomer.getMessage());
            assertTrue(noCustomer.getMessage().contains("h_customer_fkey"), noCustomer.getMessage());
        }
    }

    @Test
    void tableLevelShardingPairsActualTablesBySuffix() throws SQLException {
        try (Connection connection = proxy(); Statement statement = connection.createStatement()) {
            statement.execute("create table t_order (user_id int, order_id int, primary key (user_id, order_id))");
            statement.execute("create table t_order_item (item_id int, user_id int, order_id int)");
            // The sharding columns mapped crosswise: rows may be on different data sources, so the proxy enforces it.
            statement.execute("alter table t_order_item add constraint fk_user foreign key (user_id, order_id) references t_order (order_id, user_id)");
            statement.execute("alter table t_order_item add constraint fk_order foreign key (user_id, order_id) references t_order (user_id, order_id)");
            statement.execute("insert into t_order values (1, 1), (1, 2), (2, 1), (2, 2)");
            statement.execute("insert into t_order_item values (1, 1, 1), (2, 1, 2), (3, 2, 1), (4, 2, 2)");
            SQLException orphan = assertThrows(SQLException.class, () -> statement.execute("insert into t_order_item values (5, 1, 3)"));
            assertEquals("23503", orphan.getSQLState(), orphan.getMessage());
        }
        for (String each : List.of("ds_0", "ds_1")) {
            String keys = foreignKeys(each, "t_order");
            assertEquals("t_order_item_0 fk_order_t_order_item_0 -> t_order_0\nt_order_item_1 fk_order_t_order_item_1 -> t_order_1\n", keys,
                    each + ": fk_user is enforced by the proxy, not by PostgreSQL");
        }
    }

    @Test
    void severalShardedTablesInOneStatement() throws SQLException {
        try (Connection connection = proxy(); Statement statement = connection.createStatement()) {
            statement.execute("create table t_twin_a (w_id int primary key)");
            statement.execute("create table t_twin_b (w_id int references t_twin_a (w_id))");
            statement.execute("insert into t_twin_a values (1), (2)");
            statement.execute("insert into t_twin_b values (1), (2)");
            statement.execute("truncate t_twin_a, t_twin_b");
            for (String each : List.of("t_twin_a", "t_twin_b")) {
                try (ResultSet rs = statement.executeQuery("select count(*) from " + each)) {
                    assertTrue(rs.next());
                    assertEquals(0, rs.getInt(1), each);
                }
            }
            SQLException layouts = assertThrows(SQLException.class, () -> statement.execute("truncate t_twin_a, bmsql_config"));
            assertEquals("0A000", layouts.getSQLState(), layouts.getMessage());
            assertTrue(layouts.getMessage().contains("t_twin_a and bmsql_config"), layouts.getMessage());
            statement.execute("drop table t_twin_a, t_twin_b");
        }
        for (String each : List.of("ds_0", "ds_1")) {
            try (Connection connection = DriverManager.getConnection(url(each), "postgres", "");
                    Statement statement = connection.createStatement();
                    ResultSet rs = statement.executeQuery("select count(*) from pg_class where relname like 't_twin_%'")) {
                assertTrue(rs.next());
                assertEquals(0, rs.getInt(1), "tables left on " + each);
            }
        }
    }

    /** The foreign keys of the tables whose names start with {@code prefix}, one line each. */
    private static String foreignKeys(String dataSource, String prefix) throws SQLException {
        StringBuilder result = new StringBuilder();
        try (Connection connection = DriverManager.getConnection(url(dataSource), "postgres", "");
                Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery("select conrelid::regclass, conname, confrelid::regclass from pg_constraint "
                        + "where contype = 'f' and conrelid::regclass::text like '" + prefix + "%' order by 1::text, 2")) {
            while (rs.next()) {
                result.append(rs.getString(1)).append(' ').append(rs.getString(2)).append(" -> ").append(rs.getString(3)).append('\n');
            }
        }
        return result.toString();
    }

    private static Connection proxy() throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + proxy.port() + "/sharding_db?connectTimeout=10&socketTimeout=60", "root", "root");
    }

    private static String url(String database) {
        return "jdbc:postgresql://127.0.0.1:" + postgres.getPort() + "/" + database;
    }
}
