package io.ashlar.bench.tpcc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * BenchmarkSQL 5.0's own build and destroy steps through Ashlar with the example configurations of
 * {@code conf/tpcc/} over 1, 2 and 4 shards, the way its scripts send them: {@code runDatabaseBuild.sh}
 * runs {@code tableCreates.sql}, the loader, then {@code indexCreates.sql}, {@code foreignKeys.sql},
 * {@code extraHistID.sql} and {@code buildFinish.sql}, each file statement by statement as simple
 * queries ({@code runSQL.sh}, as psql would); {@code runDatabaseDestroy.sh} runs {@code tableDrops.sql}.
 * Between build and destroy, a short run of the five transactions (this project's driver sends
 * BenchmarkSQL's transaction SQL) and the TPC-C consistency checks.
 *
 * <p>Every statement must succeed. On 2 and 4 shards the two foreign keys that reference another
 * warehouse's rows ({@code h_customer_fkey}, {@code ol_stock_fkey}) are enforced by the proxy across
 * data sources (docs/sharding.md, Foreign keys): each data source holds the other eight as PostgreSQL
 * keys and these two as the proxy's placeholders, and the run's remote order lines and payments pass
 * their checks.
 */
class BenchmarkSqlBuildThroughAshlarTest {

    private static final Path EXAMPLES = Path.of("..", "conf", "tpcc");
    private static final Pattern URL = Pattern.compile("jdbc:postgresql://127\\.0\\.0\\.1:5432/(tpcc(?:_(\\d))?)");
    private static final int SCALE_DOWN = 100;
    private static final int WAREHOUSES = 2;
    private static final PrintStream OUT = System.out;

    /** The two keys of foreignKeys.sql that reach another warehouse, enforced by the proxy over several shards. */
    private static final Set<String> CROSS_SHARD_KEYS = Set.of("h_customer_fkey", "ol_stock_fkey");

    /** tableCreates.sql (sql.common): the driver's tables, with the sequence made before bmsql_history. */
    static List<String> tableCreates() {
        List<String> result = new ArrayList<>();
        for (String each : TpccSchema.CREATE_TABLES) {
            if (each.contains("create table bmsql_history")) {
                result.add("create sequence bmsql_hist_id_seq");
            }
            result.add(each);
        }
        return result;
    }

    /** indexCreates.sql: the driver's keys and indexes without its two history additions. */
    static List<String> indexCreates() {
        return TpccSchema.CREATE_INDEXES.subList(0, TpccSchema.CREATE_INDEXES.size() - 2);
    }

    /** foreignKeys.sql. */
    static final List<String> FOREIGN_KEYS = List.of(
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
            "alter table bmsql_order_line add constraint ol_stock_fkey\n    foreign key (ol_supply_w_id, ol_i_id)\n"
                    + "    references bmsql_stock (s_w_id, s_i_id)",
            "alter table bmsql_stock add constraint s_warehouse_fkey\n    foreign key (s_w_id)\n    references bmsql_warehouse (w_id)",
            "alter table bmsql_stock add constraint s_item_fkey\n    foreign key (s_i_id)\n    references bmsql_item (i_id)");

    /** sql.postgres/extraHistID.sql. */
    static final List<String> EXTRA_HIST_ID = List.of(
            "select setval('bmsql_hist_id_seq', (select max(hist_id) from bmsql_history))",
            "alter table bmsql_history \n    alter column hist_id set default nextval('bmsql_hist_id_seq')",
            "alter table bmsql_history add primary key (hist_id)");

    /** sql.postgres/buildFinish.sql. */
    static final List<String> BUILD_FINISH = List.of("vacuum analyze");

    /** sql.common/tableDrops.sql. */
    static final List<String> TABLE_DROPS = List.of("drop table bmsql_config", "drop table bmsql_new_order",
            "drop table bmsql_order_line", "drop table bmsql_oorder", "drop table bmsql_history", "drop table bmsql_customer",
            "drop table bmsql_stock", "drop table bmsql_item", "drop table bmsql_district", "drop table bmsql_warehouse",
            "drop sequence bmsql_hist_id_seq");

    private static EmbeddedPostgres server0;
    private static EmbeddedPostgres server1;

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

    /**
     * {@code pgjdbc93}: as BenchmarkSQL 5.0 itself, whose runSQL.sh runs the files with its ExecJDBC (one
     * {@code Statement.execute} per statement, autocommit on: the extended protocol) over the pgjdbc 9.3 it
     * ships, which also loads and runs the transactions. {@code simple}: the files as psql sends them (simple
     * query protocol, pgjdbc 42 with {@code preferQueryMode=simple}), loader and transactions with pgjdbc 42.
     * {@code conf-2shard}: {@code simple} with the binding groups of ShardingSphere-Proxy's conf-2shard
     * ({@code bmsql_warehouse, bmsql_customer} and {@code bmsql_stock, bmsql_district, bmsql_order_line}; the other
     * three tables in none), the example's tables and algorithm otherwise being the same.
     */
    @ParameterizedTest(name = "{0} shard(s), {1}")
    @CsvSource({"1, pgjdbc93", "2, pgjdbc93", "4, pgjdbc93", "2, simple", "4, simple", "2, conf-2shard"})
    void buildRunCheckDestroy(int shards, String mode, @TempDir Path conf) throws Exception {
        for (int shard = 0; shard < shards; shard++) {
            dropLeftovers(backend(shards, shard));
        }
        try (ProxyRuntime proxy = ProxyRuntime.start(load(conf, shards, mode.equals("conf-2shard")), 0)) {
            String url = "jdbc:postgresql://127.0.0.1:" + proxy.port() + "/tpcc";
            TpccConnector viaProxy;
            TpccConnector files;
            if (mode.equals("pgjdbc93")) {
                viaProxy = new TpccConnector(url, "root", "root", Optional.of(TpccPgjdbc93Test.loadPgjdbc93()));
                files = viaProxy;
            } else {
                viaProxy = new TpccConnector(url, "root", "root");
                files = new TpccConnector(url + "?preferQueryMode=simple", "root", "root");
            }
            // runDatabaseBuild.sh, a run, runDatabaseDestroy.sh; then all of it again through the same proxy.
            int warehouses = Math.max(WAREHOUSES, shards);
            for (int round = 1; round <= 2; round++) {
                List<String> failures = new ArrayList<>();
                runSql(files, "tableCreates.sql", tableCreates(), shards, failures);
                TpccScale scale = TpccScale.of(warehouses, SCALE_DOWN);
                TpccLoader.load(viaProxy, scale, 3, OUT);
                runSql(files, "indexCreates.sql", indexCreates(), shards, failures);
                runSql(files, "foreignKeys.sql", FOREIGN_KEYS, shards, failures);
                runSql(files, "extraHistID.sql", EXTRA_HIST_ID, shards, failures);
                runSql(files, "buildFinish.sql", BUILD_FINISH, shards, failures);
                assertEquals(List.of(), failures, "build statements that failed, round " + round);

                // Every data source got the sequence as hist_id's default, and vacuum analyze reached it.
                for (int shard = 0; shard < shards; shard++) {
                    try (Connection connection = backend(shards, shard).open(); Statement statement = connection.createStatement()) {
                        try (ResultSet rs = statement.executeQuery("SELECT column_default FROM information_schema.columns"
                                + " WHERE table_name = 'bmsql_history' AND column_name = 'hist_id'")) {
                            assertTrue(rs.next());
                            assertEquals("nextval('bmsql_hist_id_seq'::regclass)", rs.getString(1), "hist_id default on ds_" + shard);
                        }
                        connection.rollback();
                        assertVacuumed(connection, "ds_" + shard);
                    }
                }

                // Each data source holds the keys that can be enforced there: all 10 on 1 shard, 8 on several, where the
                // other two are the proxy's (their placeholders, named after them, on their referencing tables).
                for (int shard = 0; shard < shards; shard++) {
                    try (Connection connection = backend(shards, shard).open(); Statement statement = connection.createStatement()) {
                        try (ResultSet rs = statement.executeQuery("SELECT count(*) FROM pg_constraint WHERE contype = 'f'"
                                 + " AND conrelid::regclass::text LIKE 'bmsql_%'")) {
                            assertTrue(rs.next());
                            assertEquals(shards == 1 ? 10 : 8, rs.getInt(1), "foreign keys on ds_" + shard);
                        }
                        Set<String> placeholders = new java.util.HashSet<>();
                        try (ResultSet rs = statement.executeQuery("SELECT conname FROM pg_constraint WHERE contype = 'c'"
                                 + " AND pg_get_constraintdef(oid) LIKE '%ashlar foreign key:%'")) {
                            while (rs.next()) {
                                placeholders.add(rs.getString(1));
                            }
                        }
                        assertEquals(shards == 1 ? Set.of() : CROSS_SHARD_KEYS, placeholders, "keys the proxy enforces, on ds_" + shard);
                        connection.rollback();
                    }
                }

                TpccRun.Result result = TpccRun.run(viaProxy, new TpccRun.Settings(4, 3, 1, true, 0), OUT);
                TpccRun.print(result, OUT);
                assertEquals(0, result.errorsAll(), "errors (the first are printed on stderr)");
                assertTrue(result.completedAll() >= 200, "a few hundred transactions: " + result.completedAll());
                assertTrue(result.completed(TransactionType.PAYMENT) > 0);
                assertTrue(result.completed(TransactionType.NEW_ORDER) > 0);

                try (Connection connection = viaProxy.open()) {
                    TpccCheck.Result check = TpccCheck.check(connection);
                    assertEquals(List.of(), check.failures(), "consistency through the proxy");
                    assertEquals(warehouses, check.warehouses());
                    // Payment's history rows took hist_id from the sequence's DEFAULT: unique over every shard.
                    long rows = 0;
                    Set<Integer> ids = new java.util.HashSet<>();
                    try (Statement statement = connection.createStatement();
                         ResultSet rs = statement.executeQuery("SELECT hist_id FROM bmsql_history")) {
                        while (rs.next()) {
                            rows++;
                            ids.add(rs.getInt(1));
                            assertFalse(rs.wasNull(), "null hist_id");
                        }
                    }
                    assertEquals(rows, ids.size(), "hist_id repeated across shards");
                    // The run reached across warehouses: remote order lines and payments of another warehouse's customer.
                    try (Statement statement = connection.createStatement();
                         ResultSet rs = statement.executeQuery("SELECT count(*) FROM bmsql_order_line WHERE ol_supply_w_id <> ol_w_id")) {
                        assertTrue(rs.next());
                        assertTrue(rs.getLong(1) > 0, "no remote order line");
                    }
                    try (Statement statement = connection.createStatement();
                         ResultSet rs = statement.executeQuery("SELECT count(*) FROM bmsql_history WHERE h_c_w_id <> h_w_id")) {
                        assertTrue(rs.next());
                        assertTrue(rs.getLong(1) > 0, "no payment of another warehouse's customer");
                    }
                    connection.rollback();
                }

                crossShardChecks(files);
                // The checks see across shards: one more payment of customer 1/1/1 (warehouse 1), recorded by warehouse 2.
                String remotePayment = "INSERT INTO bmsql_history (hist_id, h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)"
                        + " VALUES (-1, 1, 1, 1, 1, 2, now(), 1.00, 'control')";
                try (Connection connection = backend(shards, 2 % shards).open(); Statement statement = connection.createStatement()) {
                    statement.executeUpdate(remotePayment);
                    connection.commit();
                }
                try (Connection connection = files.open(); Statement statement = connection.createStatement();
                     ResultSet rs = statement.executeQuery(CROSS_SHARD_CHECKS.get(CROSS_SHARD_CHECKS.size() - 1))) {
                    assertTrue(rs.next());
                    assertEquals(1, rs.getLong(1), "the remote payment recorded on another shard than its customer");
                    connection.rollback();
                }

                runSql(files, "tableDrops.sql", TABLE_DROPS, shards, failures);
                assertEquals(List.of(), failures, "destroy statements that failed, round " + round);
                for (int shard = 0; shard < shards; shard++) {
                    try (Connection connection = backend(shards, shard).open(); Statement statement = connection.createStatement();
                         ResultSet rs = statement.executeQuery("SELECT count(*) FROM pg_class WHERE relname LIKE 'bmsql%'")) {
                        assertTrue(rs.next());
                        assertEquals(0, rs.getInt(1), "relations left on ds_" + shard);
                        connection.rollback();
                    }
                }
            }
        }
    }

    /** Checks over the whole database in one statement each: joins, NOT EXISTS and aggregates whose rows may sit on other shards. */
    static final List<String> CROSS_SHARD_CHECKS = List.of(
            // undelivered orders must be in NEW_ORDER, delivered ones not
            "SELECT count(*) FROM bmsql_oorder WHERE o_carrier_id IS NULL AND NOT EXISTS"
                    + " (SELECT 1 FROM bmsql_new_order WHERE no_w_id = o_w_id AND no_d_id = o_d_id AND no_o_id = o_id)",
            "SELECT count(*) FROM bmsql_oorder WHERE o_carrier_id IS NOT NULL AND EXISTS"
                    + " (SELECT 1 FROM bmsql_new_order WHERE no_w_id = o_w_id AND no_d_id = o_d_id AND no_o_id = o_id)",
            // no NEW_ORDER or ORDER_LINE row without its order
            "SELECT count(*) FROM bmsql_new_order WHERE NOT EXISTS"
                    + " (SELECT 1 FROM bmsql_oorder WHERE o_w_id = no_w_id AND o_d_id = no_d_id AND o_id = no_o_id)",
            "SELECT count(*) FROM bmsql_order_line WHERE NOT EXISTS"
                    + " (SELECT 1 FROM bmsql_oorder WHERE o_w_id = ol_w_id AND o_d_id = ol_d_id AND o_id = ol_o_id)",
            // O_OL_CNT is the number of lines
            "SELECT count(*) FROM (SELECT o_w_id, o_d_id, o_id FROM bmsql_oorder LEFT JOIN bmsql_order_line"
                    + " ON ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id"
                    + " GROUP BY o_w_id, o_d_id, o_id, o_ol_cnt HAVING o_ol_cnt <> count(*)) AS x",
            // W_YTD = sum(D_YTD)
            "SELECT count(*) FROM (SELECT w_id FROM bmsql_warehouse LEFT JOIN bmsql_district ON d_w_id = w_id"
                    + " GROUP BY w_id, w_ytd HAVING w_ytd <> sum(d_ytd)) AS x",
            // payments of remote customers: history grouped by the customer's warehouse, not the row's
            "SELECT count(*) FROM bmsql_customer JOIN (SELECT h_c_w_id, h_c_d_id, h_c_id, count(*) AS n FROM bmsql_history"
                    + " GROUP BY h_c_w_id, h_c_d_id, h_c_id) AS h ON h_c_w_id = c_w_id AND h_c_d_id = c_d_id AND h_c_id = c_id"
                    + " WHERE c_payment_cnt <> n");

    /** Each of {@link #CROSS_SHARD_CHECKS} counts 0 rows, and sum(W_YTD) - sum(C_YTD_PAYMENT) in one statement matches two. */
    private static void crossShardChecks(TpccConnector connector) throws SQLException {
        try (Connection connection = connector.open(); Statement statement = connection.createStatement()) {
            for (String sql : CROSS_SHARD_CHECKS) {
                try (ResultSet rs = statement.executeQuery(sql)) {
                    assertTrue(rs.next(), sql);
                    assertEquals(0, rs.getLong(1), sql);
                }
            }
            java.math.BigDecimal separately;
            try (ResultSet rs = statement.executeQuery("SELECT sum(w_ytd) FROM bmsql_warehouse")) {
                assertTrue(rs.next());
                separately = rs.getBigDecimal(1);
            }
            try (ResultSet rs = statement.executeQuery("SELECT sum(c_ytd_payment) FROM bmsql_customer")) {
                assertTrue(rs.next());
                separately = separately.subtract(rs.getBigDecimal(1));
            }
            try (ResultSet rs = statement.executeQuery("SELECT w.total - c.total FROM (SELECT sum(w_ytd) AS total FROM bmsql_warehouse) AS w,"
                    + " (SELECT sum(c_ytd_payment) AS total FROM bmsql_customer) AS c")) {
                assertTrue(rs.next());
                assertEquals(0, separately.compareTo(rs.getBigDecimal(1)), separately + " vs " + rs.getBigDecimal(1));
            }
            connection.rollback();
        }
    }

    /**
     * Every bmsql table of a data source was vacuumed and analyzed; PostgreSQL reports its statistics
     * with a delay of up to a second, so the view is read again until then.
     */
    private static void assertVacuumed(Connection connection, String name) throws SQLException, InterruptedException {
        int vacuumed = -1;
        int tables = -1;
        for (int attempt = 0; attempt < 50; attempt++) {
            try (Statement statement = connection.createStatement();
                 ResultSet rs = statement.executeQuery("SELECT count(*) FILTER (WHERE last_vacuum IS NOT NULL"
                         + " AND last_analyze IS NOT NULL), count(*) FROM pg_stat_user_tables WHERE relname LIKE 'bmsql%'")) {
                assertTrue(rs.next());
                vacuumed = rs.getInt(1);
                tables = rs.getInt(2);
            }
            connection.rollback();
            if (vacuumed == tables) {
                break;
            }
            Thread.sleep(100);
        }
        assertTrue(tables >= 9, "bmsql tables on " + name + ": " + tables);
        assertEquals(tables, vacuumed, "tables vacuumed and analyzed on " + name);
    }

    /** A failed earlier case may have left tables behind on a shard database that the next configuration shares. */
    private static void dropLeftovers(TpccConnector backend) throws SQLException {
        try (Connection connection = backend.open(); Statement statement = connection.createStatement()) {
            for (String table : TpccSchema.TABLES) {
                statement.execute("drop table if exists " + table + " cascade");
            }
            statement.execute("drop sequence if exists bmsql_hist_id_seq");
            connection.commit();
        }
    }

    /** Runs one file's statements one by one as simple queries, autocommit on, as psql does; collects each failure. */
    private static void runSql(TpccConnector connector, String file, List<String> sqls, int shards, List<String> failures)
            throws SQLException {
        try (Connection connection = connector.open()) {
            connection.setAutoCommit(true);
            try (Statement statement = connection.createStatement()) {
                for (String sql : sqls) {
                    try {
                        statement.execute(sql);
                    } catch (SQLException e) {
                        failures.add(file + ": " + e.getSQLState() + " " + e.getMessage() + " in: " + sql);
                    }
                }
            }
        }
    }

    /** Copies server.yaml and config-tpcc-{shards}shard.yaml into {@code conf}, URLs pointing at the embedded servers. */
    private static ProxyConfiguration load(Path conf, int shards, boolean twoBindingGroups) throws IOException {
        Files.copy(EXAMPLES.resolve("server.yaml"), conf.resolve("server.yaml"));
        String name = "config-tpcc-" + shards + "shard.yaml";
        String yaml = Files.readString(EXAMPLES.resolve(name), StandardCharsets.UTF_8);
        Matcher urls = URL.matcher(yaml);
        StringBuilder rewritten = new StringBuilder();
        while (urls.find()) {
            int shard = urls.group(2) == null ? 0 : Integer.parseInt(urls.group(2));
            EmbeddedPostgres server = shard % 2 == 0 ? server0 : server1;
            urls.appendReplacement(rewritten, Matcher.quoteReplacement(
                    "jdbc:postgresql://127.0.0.1:" + server.getPort() + "/" + urls.group(1)));
        }
        urls.appendTail(rewritten);
        String text = rewritten.toString().replace("password: postgres", "password: \"\"");
        if (twoBindingGroups) {
            String one = "      - bmsql_warehouse, bmsql_district, bmsql_customer, bmsql_history, bmsql_new_order, bmsql_oorder,"
                    + " bmsql_order_line, bmsql_stock\n";
            assertTrue(text.contains(one), "the example's binding group");
            text = text.replace(one, "      - bmsql_warehouse, bmsql_customer\n      - bmsql_stock, bmsql_district, bmsql_order_line\n");
        }
        assertFalse(text.contains(":5432/"), "every URL rewritten");
        Files.writeString(conf.resolve(name), text, StandardCharsets.UTF_8);
        return ProxyConfigurationLoader.load(conf);
    }

    private static TpccConnector backend(int shards, int shard) {
        if (shards == 1) {
            return direct(server0, "tpcc");
        }
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
