package io.ashlar.bench.tpcc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ashlar.backend.config.LogicalDatabaseConfig;
import io.ashlar.bootstrap.ProxyRuntime;
import io.ashlar.bootstrap.config.ProxyConfiguration;
import io.ashlar.bootstrap.config.ProxyConfigurationLoader;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The TPC-C driver through Ashlar with the example configurations of {@code conf/tpcc/}, over two
 * embedded PostgreSQL servers: every statement BenchmarkSQL sends (schema, loader batches, the
 * five transactions) must work, the TPC-C consistency conditions must hold through the proxy and
 * on each shard alone, and the rows must be where the rule puts them.
 *
 * <p>Server 0 holds databases tpcc, tpcc_0 and tpcc_2, server 1 tpcc_1 and tpcc_3; the example
 * files' URLs are rewritten to them.
 */
class TpccThroughAshlarTest {

    private static final Path EXAMPLES = Path.of("..", "conf", "tpcc");
    private static final Pattern URL = Pattern.compile("jdbc:postgresql://127\\.0\\.0\\.1:5432/(tpcc(?:_(\\d))?)");
    private static final int SCALE_DOWN = 50;
    private static final int WAREHOUSES = 2;

    /** The 8 tables sharded by warehouse, with their sharding column. */
    private static final Map<String, String> SHARDED = Map.of("bmsql_warehouse", "w_id", "bmsql_district", "d_w_id",
            "bmsql_customer", "c_w_id", "bmsql_history", "h_w_id", "bmsql_new_order", "no_w_id", "bmsql_oorder", "o_w_id",
            "bmsql_order_line", "ol_w_id", "bmsql_stock", "s_w_id");

    private static EmbeddedPostgres server0;
    private static EmbeddedPostgres server1;
    private static final PrintStream OUT = System.out;

    @BeforeAll
    static void startServers() throws IOException, SQLException {
        server0 = EmbeddedPostgres.builder().setServerConfig("max_prepared_transactions", "64").start();
        server1 = EmbeddedPostgres.builder().setServerConfig("max_prepared_transactions", "64").start();
        for (String each : List.of("tpcc", "tpcc_0", "tpcc_2")) {
            createDatabase(server0, each);
        }
        for (String each : List.of("tpcc_1", "tpcc_3")) {
            createDatabase(server1, each);
        }
    }

    @AfterAll
    static void stopServers() throws IOException {
        if (server1 != null) {
            server1.close();
        }
        if (server0 != null) {
            server0.close();
        }
    }

    @Test
    void tpccThroughTwoShards(@TempDir Path conf) throws Exception {
        try (ProxyRuntime proxy = ProxyRuntime.start(load(conf, 2), 0)) {
            TpccConnector viaProxy = new TpccConnector("jdbc:postgresql://127.0.0.1:" + proxy.port() + "/tpcc", "root", "root");
            Tpcc.create(viaProxy, true, true, OUT);
            TpccScale scale = TpccScale.of(WAREHOUSES, SCALE_DOWN);
            TpccLoader.load(viaProxy, scale, 3, OUT);

            TpccRun.Result result = TpccRun.run(viaProxy, new TpccRun.Settings(4, 10, 1, true, 0), OUT);
            TpccRun.print(result, OUT);
            assertEquals(0, result.errorsAll(), "errors (the first are printed on stderr)");
            for (TransactionType type : TransactionType.values()) {
                assertTrue(result.completed(type) > 0, type.displayName() + " never completed");
            }
            assertTrue(result.tpmC() > 0);

            TpccCheck.Result check;
            try (Connection connection = viaProxy.open()) {
                check = TpccCheck.check(connection);
            }
            assertEquals(List.of(), check.failures(), "consistency through the proxy");
            assertEquals(WAREHOUSES, check.warehouses());
            assertEquals(WAREHOUSES * TpccScale.DISTRICTS, check.districts());

            // Each shard alone is consistent too: the checks above did not pass by merging.
            for (TpccConnector shard : List.of(direct(server0, "tpcc_0"), direct(server1, "tpcc_1"))) {
                try (Connection connection = shard.open()) {
                    TpccCheck.Result alone = TpccCheck.check(connection);
                    assertEquals(List.of(), alone.failures(), "consistency of " + shard.url());
                    assertEquals(1, alone.warehouses(), shard.url());
                }
            }

            // Warehouse 1 lives on ds_1 (1 % 2), warehouse 2 on ds_0; items on both, the config on ds_0 only.
            assertPlacement(direct(server1, "tpcc_1"), 1, scale);
            assertPlacement(direct(server0, "tpcc_0"), 2, scale);
            try (Connection connection = direct(server1, "tpcc_1").open(); Statement statement = connection.createStatement();
                 ResultSet rs = statement.executeQuery("SELECT to_regclass('bmsql_config')")) {
                assertTrue(rs.next());
                assertNull(rs.getString(1), "bmsql_config must exist on ds_0 only");
            }

            // The checks notice a broken database: a warehouse's YTD and an order's line count changed on a shard.
            try (Connection connection = direct(server1, "tpcc_1").open(); Statement statement = connection.createStatement()) {
                statement.executeUpdate("UPDATE bmsql_warehouse SET w_ytd = w_ytd + 1 WHERE w_id = 1");
                statement.executeUpdate("UPDATE bmsql_oorder SET o_ol_cnt = o_ol_cnt + 1 WHERE o_w_id = 1 AND o_d_id = 3 AND o_id = 1");
                connection.commit();
                try (Connection checked = viaProxy.open()) {
                    List<String> failures = TpccCheck.check(checked).failures();
                    assertEquals(2, failures.size(), failures.toString());
                    assertTrue(failures.get(0).startsWith("condition 1: warehouse 1:"), failures.toString());
                    assertTrue(failures.get(1).startsWith("condition 4: district 1/3:"), failures.toString());
                }
                statement.executeUpdate("UPDATE bmsql_warehouse SET w_ytd = w_ytd - 1 WHERE w_id = 1");
                statement.executeUpdate("UPDATE bmsql_oorder SET o_ol_cnt = o_ol_cnt - 1 WHERE o_w_id = 1 AND o_d_id = 3 AND o_id = 1");
                connection.commit();
            }
        }
    }

    /** Every example configuration loads, compiles, and puts warehouse w on ds_(w % shards). */
    @ParameterizedTest
    @ValueSource(ints = {1, 2, 4})
    void exampleConfigurationLoadsAndRoutesByWarehouse(int shards, @TempDir Path conf) throws Exception {
        ProxyConfiguration configuration = load(conf, shards);
        LogicalDatabaseConfig database = configuration.database("tpcc").orElseThrow();
        assertEquals(shards, database.dataSources().size());
        try (ProxyRuntime proxy = ProxyRuntime.start(configuration, 0)) {
            TpccConnector viaProxy = new TpccConnector("jdbc:postgresql://127.0.0.1:" + proxy.port() + "/tpcc", "root", "root");
            Tpcc.create(viaProxy, true, true, OUT);
            try (Connection connection = viaProxy.open();
                 PreparedStatement insert = connection.prepareStatement(TpccLoader.INSERT_WAREHOUSE)) {
                for (int w = 1; w <= 4; w++) {
                    insert.setInt(1, w);
                    insert.setString(2, "w" + w);
                    insert.setString(3, "s1");
                    insert.setString(4, "s2");
                    insert.setString(5, "c");
                    insert.setString(6, "ST");
                    insert.setString(7, "123411111");
                    insert.setDouble(8, 0.1);
                    insert.setDouble(9, 300_000.0);
                    insert.addBatch();
                }
                insert.executeBatch();
                connection.commit();
            }
            for (int shard = 0; shard < shards; shard++) {
                TpccConnector backend = shards == 1 ? direct(server0, "tpcc") : backend(shard);
                try (Connection connection = backend.open(); Statement statement = connection.createStatement();
                     ResultSet rs = statement.executeQuery("SELECT w_id FROM bmsql_warehouse ORDER BY w_id")) {
                    StringBuilder found = new StringBuilder();
                    while (rs.next()) {
                        found.append(rs.getInt(1)).append(' ');
                    }
                    StringBuilder expected = new StringBuilder();
                    for (int w = 1; w <= 4; w++) {
                        if (w % shards == shard) {
                            expected.append(w).append(' ');
                        }
                    }
                    assertEquals(expected.toString(), found.toString(), "warehouses on ds_" + shard + " of " + shards);
                }
            }
        }
    }

    private static void assertPlacement(TpccConnector shard, int warehouse, TpccScale scale) throws SQLException {
        try (Connection connection = shard.open(); Statement statement = connection.createStatement()) {
            for (Map.Entry<String, String> table : SHARDED.entrySet()) {
                String sql = "SELECT count(*) FILTER (WHERE " + table.getValue() + " = " + warehouse + "), count(*) FILTER (WHERE "
                        + table.getValue() + " <> " + warehouse + ") FROM " + table.getKey();
                try (ResultSet rs = statement.executeQuery(sql)) {
                    assertTrue(rs.next());
                    assertTrue(rs.getLong(1) > 0, table.getKey() + " has no row of warehouse " + warehouse + " on " + shard.url());
                    assertEquals(0, rs.getLong(2), table.getKey() + " has rows of another warehouse on " + shard.url());
                }
            }
            try (ResultSet rs = statement.executeQuery("SELECT count(*) FROM bmsql_item")) {
                assertTrue(rs.next());
                assertEquals(scale.items(), rs.getInt(1), "bmsql_item is broadcast: every item on " + shard.url());
            }
            connection.rollback();
        }
        assertFalse(shard.url().isEmpty());
    }

    /** Copies server.yaml and config-tpcc-{shards}shard.yaml into {@code conf}, URLs pointing at the embedded servers, and loads them. */
    private static ProxyConfiguration load(Path conf, int shards) throws IOException {
        Files.copy(EXAMPLES.resolve("server.yaml"), conf.resolve("server.yaml"));
        String name = "config-tpcc-" + shards + "shard.yaml";
        String yaml = Files.readString(EXAMPLES.resolve(name), StandardCharsets.UTF_8);
        Matcher urls = URL.matcher(yaml);
        StringBuilder rewritten = new StringBuilder();
        while (urls.find()) {
            String database = urls.group(1);
            int shard = urls.group(2) == null ? 0 : Integer.parseInt(urls.group(2));
            EmbeddedPostgres server = shard % 2 == 0 ? server0 : server1;
            urls.appendReplacement(rewritten, Matcher.quoteReplacement(
                    "jdbc:postgresql://127.0.0.1:" + server.getPort() + "/" + database));
        }
        urls.appendTail(rewritten);
        String text = rewritten.toString().replace("password: postgres", "password: \"\"");
        assertFalse(text.contains(":5432/"), "every URL rewritten");
        Files.writeString(conf.resolve(name), text, StandardCharsets.UTF_8);
        return ProxyConfigurationLoader.load(conf);
    }

    private static TpccConnector backend(int shard) {
        return direct(shard % 2 == 0 ? server0 : server1, "tpcc_" + shard);
    }

    private static TpccConnector direct(EmbeddedPostgres server, String database) {
        return new TpccConnector("jdbc:postgresql://127.0.0.1:" + server.getPort() + "/" + database, "postgres", "");
    }

    private static void createDatabase(EmbeddedPostgres server, String name) throws SQLException {
        try (Connection connection = DriverManager.getConnection(
                "jdbc:postgresql://127.0.0.1:" + server.getPort() + "/postgres", "postgres", "");
             Statement statement = connection.createStatement()) {
            statement.execute("CREATE DATABASE " + name);
        }
    }
}
