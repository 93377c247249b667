package io.ashlar.bootstrap.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ashlar.bootstrap.ProxyRuntime;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The proxy's admin commands (docs/operations.md) as psql and pgjdbc read them: pgbouncer's SHOW POOLS, CLIENTS,
 * SERVERS and STATS for admin users, ShardingSphere's DistSQL (SHOW STORAGE UNITS and 5.1's names for it, SHOW
 * SHARDING TABLE RULES, SHOW SHARDING ALGORITHMS, PREVIEW) for every user, 42501 for a user who is no admin, 42601
 * for admin syntax the proxy does not know, and PostgreSQL's own SHOW still answered by the backend. A sharded
 * database uses the route golden files' rules (kernel-route's route/rules/sharding.yaml) so that PREVIEW can be
 * compared with what those files and the rewrite golden files expect; a pooled database shows its relay answers too.
 */
final class AdminCommandsTest {

    private static final Path PSQL = Path.of("/usr/bin/psql");
    private static final String SHARDED = OpsProxy.SHARDED;
    private static final String POOLED = OpsProxy.POOLED;

    private static OpsProxy ops;
    private static EmbeddedPostgres postgres;
    private static ProxyRuntime proxy;

    @BeforeAll
    static void start() throws Exception {
        if (!Files.isExecutable(PSQL)) {
            throw new AssertionError(PSQL + " is not installed: apt-get install postgresql-client");
        }
        ops = OpsProxy.start("");
        postgres = ops.postgres;
        proxy = ops.proxy;
    }

    @AfterAll
    static void stop() throws Exception {
        if (ops != null) {
            ops.close();
        }
    }

    private static Connection backend(String database) throws SQLException {
        return ops.backend(database);
    }

    private static Connection connect(String database, String user, String mode) throws SQLException {
        return ops.connect(database, user, mode);
    }

    private static List<String> query(Connection c, String sql) throws SQLException {
        return OpsProxy.query(c, sql);
    }

    /** Runs psql -A (unaligned, '|' between values) on one command; its stdout. */
    private static String psql(String database, String user, String command) throws Exception {
        ProcessBuilder builder = new ProcessBuilder(PSQL.toString(), "-X", "-A", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1",
                "-p", String.valueOf(proxy.port()), "-U", user, "-d", database, "-c", command);
        builder.environment().keySet().removeIf(key -> key.startsWith("PG"));
        builder.environment().put("PGPASSWORD", user);
        builder.redirectErrorStream(true);
        Process process = builder.start();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("psql did not finish: " + command);
        }
        return new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }

    // ------------------------------------------------------------------ pgbouncer's commands

    @Test
    void showPoolsListsEachDataSourceOfEachDatabaseForPsql() throws Exception {
        for (String database : new String[] {SHARDED, POOLED}) {
            String out = psql(database, "root", "SHOW POOLS");
            String[] lines = out.split("\n");
            assertEquals("database|data_source|user|cl_active|cl_waiting|sv_active|sv_idle|sv_login|maxwait|maxwait_us"
                    + "|pool_mode|max_pool_size", lines[0], out);
            assertTrue(out.contains("\n" + SHARDED + "|ds_0|postgres|"), out);
            assertTrue(out.contains("\n" + SHARDED + "|ds_1|postgres|"), out);
            assertTrue(out.contains("\n" + POOLED + "|ds_0|postgres|"), out);
            assertTrue(out.endsWith("(3 rows)\n"), out);
        }
    }

    @Test
    void showClientsListsTheConnectedClients() throws Exception {
        try (Connection app = connect(POOLED, "app", "extended");
             Connection root = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + proxy.port() + "/" + SHARDED
                     + "?preferQueryMode=simple&assumeMinServerVersion=9.0&ApplicationName=ops console", "root", "root")) {
            List<String> rows = query(root, "SHOW CLIENTS");
            assertEquals("type:text|user:text|database:text|state:text|addr:text|port:int4|local_addr:text|local_port:int4"
                    + "|connect_time:text|ptr:int4|tls:text|application_name:text", rows.get(0));
            assertTrue(rows.stream().anyMatch(row -> row.startsWith("C|app|" + POOLED + "|idle|127.0.0.1|")), rows::toString);
            assertTrue(rows.stream().anyMatch(row -> row.startsWith("C|root|" + SHARDED + "|active|127.0.0.1|")
                    && row.endsWith("|ops console")), rows::toString);
        }
    }

    @Test
    void showServersListsBackendConnectionsAndShowStatsCountsWhatTheyDid() throws Exception {
        try (Connection root = connect(POOLED, "root", "simple"); Connection app = connect(POOLED, "app", "extended")) {
            query(app, "SELECT 0"); // the session's settings are on the connection it borrows from now on
            List<String> before = query(root, "SHOW STATS");
            assertEquals("database:text|data_source:text|total_xact_count:int8|total_query_count:int8|total_received:int8"
                    + "|total_sent:int8|total_xact_time:int8|total_query_time:int8|total_wait_time:int8"
                    + "|total_wait_count:int8|total_server_connections:int8", before.get(0));
            try (Statement s = app.createStatement()) {
                for (int i = 0; i < 10; i++) {
                    s.executeQuery("SELECT " + i).close();
                }
                app.setAutoCommit(false);
                s.executeQuery("SELECT 1").close();
                s.executeQuery("SELECT 2").close();
                app.commit();
            }
            long[] was = stats(before, POOLED);
            long[] now = stats(query(root, "SHOW STATS"), POOLED);
            // 10 autocommit statements and one transaction of four round trips to the backend (BEGIN and the first
            // SELECT reach it as two, then the second SELECT, then COMMIT).
            // (A connection another test's session gave back may be reset meanwhile: a round trip or two more.)
            assertTrue(now[0] - was[0] >= 11 && now[0] - was[0] <= 13, "transactions " + (now[0] - was[0]));
            assertTrue(now[1] - was[1] >= 14 && now[1] - was[1] <= 16, "queries " + (now[1] - was[1]));
            assertTrue(now[2] > was[2] && now[3] > was[3], "bytes both ways");
            assertTrue(now[5] > was[5], "query time");
            List<String> servers = query(root, "SHOW SERVERS");
            assertEquals("type:text|user:text|database:text|data_source:text|state:text|addr:text|port:int4"
                    + "|local_addr:text|local_port:int4|connect_time:text|remote_pid:int4|tls:text", servers.get(0));
            assertTrue(servers.stream().anyMatch(row -> row.startsWith("S|postgres|demo_ds_0|ds_0|")), servers::toString);
        }
    }

    /** The counts of SHOW STATS's row for a database's ds_0: transactions, queries, received, sent, xact time, query time. */
    private static long[] stats(List<String> rows, String database) {
        for (String each : rows) {
            if (each.startsWith(database + "|ds_0|")) {
                String[] values = each.split("\\|");
                return new long[] {Long.parseLong(values[2]), Long.parseLong(values[3]), Long.parseLong(values[4]),
                        Long.parseLong(values[5]), Long.parseLong(values[6]), Long.parseLong(values[7])};
            }
        }
        throw new AssertionError("no row of " + database + " in " + rows);
    }

    @Test
    void aUserWhoIsNoAdminGetsPermissionDeniedForPgbouncersCommands() throws Exception {
        for (String database : new String[] {SHARDED, POOLED}) {
            try (Connection app = connect(database, "app", "simple")) {
                for (String command : new String[] {"SHOW POOLS", "SHOW CLIENTS", "SHOW SERVERS", "SHOW STATS"}) {
                    SQLException e = assertThrows(SQLException.class, () -> query(app, command));
                    assertEquals("42501", e.getSQLState(), command + ": " + e.getMessage());
                }
                // The connection goes on; DistSQL that reads rules is every user's.
                assertEquals(3, query(app, "SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3").size() - 1);
                assertTrue(query(app, "SHOW SHARDING ALGORITHMS").size() >= 1);
            }
            String out = psql(database, "app", "SHOW POOLS");
            assertTrue(out.contains("ERROR:  permission denied for SHOW POOLS"), out);
        }
    }

    @Test
    void unknownAdminSyntaxIsASyntaxErrorAndPostgresqlsShowStillWorks() throws Exception {
        for (String database : new String[] {SHARDED, POOLED}) {
            try (Connection root = connect(database, "root", "simple")) {
                for (String command : new String[] {"SHOW SHARDING TABLES", "SHOW POOLS now", "SHOW STORAGE UNIT",
                        "SHOW SHARDING TABLE RULES FROM", "PREVIEW"}) {
                    SQLException e = assertThrows(SQLException.class, () -> query(root, command));
                    assertEquals("42601", e.getSQLState(), command + ": " + e.getMessage());
                }
                assertEquals(List.of("search_path:text", "\"$user\", public"), query(root, "SHOW search_path"));
                SQLException unknown = assertThrows(SQLException.class, () -> query(root, "SHOW no_such_setting"));
                assertEquals("42704", unknown.getSQLState());
            }
        }
    }

    // ------------------------------------------------------------------ DistSQL

    @Test
    void showStorageUnitsHasShardingSpheresColumnsUnderEachOfItsNames() throws Exception {
        try (Connection app = connect(SHARDED, "app", "simple")) {
            List<String> units = query(app, "SHOW STORAGE UNITS");
            assertEquals("name:text|type:text|host:text|port:int4|db:text|connection_timeout_milliseconds:int8"
                    + "|idle_timeout_milliseconds:int8|max_lifetime_milliseconds:int8|max_pool_size:int4|min_pool_size:int4"
                    + "|read_only:bool|other_attributes:text|status:text|status_since:text|last_error:text", units.get(0));
            assertTrue(units.get(1).startsWith("ds_0|PostgreSQL|127.0.0.1|" + postgres.getPort()
                    + "|demo_ds_0|30000|60000|1800000|50|1|f|{}|up|"), units.get(1));
            assertTrue(units.get(1).endsWith(" UTC|null"), units.get(1)); // up since the start, never down: no last error
            assertEquals(3, units.size());
            assertEquals(units, query(app, "show schema resources;"));
            assertEquals(units, query(app, "SHOW RESOURCES"));
            assertEquals(units, query(app, "SHOW STORAGE UNITS FROM " + SHARDED));
            List<String> pooled = query(app, "SHOW STORAGE UNITS FROM " + POOLED);
            assertEquals(units.get(0), pooled.get(0));
            assertTrue(pooled.get(1).startsWith("ds_0|PostgreSQL|127.0.0.1|" + postgres.getPort()
                    + "|demo_ds_0|30000|60000|1800000|50|1|f|{}|up|"), pooled.get(1));
            assertEquals(2, pooled.size());
            SQLException missing = assertThrows(SQLException.class, () -> query(app, "SHOW STORAGE UNITS FROM nowhere"));
            assertEquals("3D000", missing.getSQLState());
        }
    }

    @Test
    void showShardingTableRulesAndAlgorithmsShowTheRulesAsConfigured() throws Exception {
        try (Connection app = connect(POOLED, "app", "simple")) {
            List<String> rules = query(app, "SHOW SHARDING TABLE RULES FROM " + SHARDED);
            assertEquals("table:text|actual_data_nodes:text|actual_data_sources:text|database_strategy_type:text"
                    + "|database_sharding_column:text|database_sharding_algorithm_type:text"
                    + "|database_sharding_algorithm_props:text|table_strategy_type:text|table_sharding_column:text"
                    + "|table_sharding_algorithm_type:text|table_sharding_algorithm_props:text|key_generate_column:text"
                    + "|key_generator_type:text|key_generator_props:text", rules.get(0));
            assertEquals("t_order|ds_${0..1}.t_order_${0..1}||STANDARD|user_id|INLINE|{\"algorithm-expression\":\"ds_${user_id % 2}\"}"
                    + "|STANDARD|order_id|INLINE|{\"algorithm-expression\":\"t_order_${order_id % 2}\"}|order_id|SNOWFLAKE|{}",
                    rules.get(1));
            assertEquals("t_user|ds_${0..1}.t_user||STANDARD|id|MOD|{\"sharding-count\":\"2\"}|NONE||||||", rules.get(3));
            assertEquals(4, rules.size());
            assertEquals(List.of(rules.get(0), rules.get(3)), query(app, "SHOW SHARDING TABLE RULE T_USER FROM " + SHARDED));
            assertEquals(List.of(rules.get(0)), query(app, "SHOW SHARDING TABLE RULES"));
            List<String> algorithms = query(app, "SHOW SHARDING ALGORITHMS FROM " + SHARDED);
            assertEquals(List.of("name:text|type:text|props:text",
                    "database_inline|INLINE|{\"algorithm-expression\":\"ds_${user_id % 2}\"}",
                    "t_order_inline|INLINE|{\"algorithm-expression\":\"t_order_${order_id % 2}\"}",
                    "t_order_item_inline|INLINE|{\"algorithm-expression\":\"t_order_item_${order_id % 2}\"}",
                    "user_mod|MOD|{\"sharding-count\":\"2\"}"), algorithms);
        }
        String out = psql(SHARDED, "app", "SHOW SHARDING TABLE RULE t_order");
        assertTrue(out.startsWith("table|actual_data_nodes|"), out);
        assertTrue(out.endsWith("(1 row)\n"), out);
    }

    /**
     * PREVIEW against the golden files: route/select.txt's "equality on both sharding columns" and rewrite/binding.txt's
     * "canonical binding join with a literal renames both tables on each node of the primary table" (its units, SQL
     * and merge line, the plan before the shards' column types are known), and rewrite/select.txt's "limit and offset
     * literals become one limit" (its SQL per unit, on the four nodes sharding.yaml gives).
     */
    @Test
    void previewShowsTheUnitsActualSqlAndMergePlanTheGoldenFilesExpect() throws Exception {
        try (Connection app = connect(SHARDED, "app", "simple")) {
            assertEquals(List.of("data_source_name:text|actual_sql:text|merge_plan:text",
                    "ds_1|SELECT * FROM t_order_0 WHERE user_id = 1 AND order_id = 2|null"),
                    query(app, "PREVIEW SELECT * FROM t_order WHERE user_id = 1 AND order_id = 2"));
            List<String> paged = query(app, "preview SELECT order_id FROM t_order ORDER BY order_id LIMIT 10 OFFSET 20;");
            assertEquals(List.of("data_source_name:text|actual_sql:text|merge_plan:text",
                    "ds_0|SELECT order_id FROM t_order_0 ORDER BY order_id LIMIT 30|derived=0 orderBy=[#0 ASC] offset=20 limit=10",
                    "ds_0|SELECT order_id FROM t_order_1 ORDER BY order_id LIMIT 30|null",
                    "ds_1|SELECT order_id FROM t_order_0 ORDER BY order_id LIMIT 30|null",
                    "ds_1|SELECT order_id FROM t_order_1 ORDER BY order_id LIMIT 30|null"), paged);
            assertEquals(List.of("data_source_name:text|actual_sql:text|merge_plan:text",
                    "ds_0|SELECT i.* FROM t_order_1 o JOIN t_order_item_1 i ON o.order_id = i.order_id WHERE o.order_id = 5"
                            + "|derived=0 offset=0 limit=none",
                    "ds_1|SELECT i.* FROM t_order_1 o JOIN t_order_item_1 i ON o.order_id = i.order_id WHERE o.order_id = 5|null"),
                    query(app, "PREVIEW SELECT i.* FROM t_order o JOIN t_order_item i ON o.order_id = i.order_id"
                            + " WHERE o.order_id = 5"));
            // A write goes where its row goes and is not run.
            assertEquals(List.of("data_source_name:text|actual_sql:text|merge_plan:text",
                    "ds_1|INSERT INTO t_order_1 (order_id, user_id, status) VALUES (7, 3, 'new')|null"),
                    query(app, "PREVIEW INSERT INTO t_order (order_id, user_id, status) VALUES (7, 3, 'new')"));
            try (Connection ds1 = backend("demo_ds_1"); Statement s = ds1.createStatement();
                 ResultSet rs = s.executeQuery("SELECT count(*) FROM t_order_1")) {
                rs.next();
                assertEquals(0, rs.getInt(1));
            }
            SQLException refused = assertThrows(SQLException.class, () -> query(app, "PREVIEW SELECT 'unterminated"));
            assertEquals("42601", refused.getSQLState(), refused.getMessage());
        }
        try (Connection app = connect(POOLED, "app", "simple")) {
            assertEquals(List.of("data_source_name:text|actual_sql:text|merge_plan:text", "ds_0|SELECT 1|null"),
                    query(app, "PREVIEW SELECT 1"));
        }
    }

    @Test
    void anAdminCommandInATransactionBlockAnswersWithTheBlocksStatus() throws Exception {
        for (String database : new String[] {SHARDED, POOLED}) {
            try (Connection root = connect(database, "root", "simple")) {
                root.setAutoCommit(false);
                query(root, "SELECT 1");
                assertEquals(2, query(root, "SHOW SHARDING ALGORITHMS FROM " + SHARDED).size() - 3);
                query(root, "SELECT 2");
                // An admin error fails the block, as any error does on PostgreSQL.
                assertThrows(SQLException.class, () -> query(root, "SHOW SHARDING NOTHING"));
                SQLException aborted = assertThrows(SQLException.class, () -> query(root, "SELECT 3"));
                assertEquals("25P02", aborted.getSQLState(), database);
                root.rollback();
                assertEquals(List.of("?column?:int4", "4"), query(root, "SELECT 4"));
            }
        }
    }

    /**
     * pgjdbc's default, the extended protocol, on a sharded database: DistSQL as ShardingSphere's JDBC users run it,
     * and a statement prepared on the server (past prepareThreshold) answered afresh at each execution.
     */
    @Test
    void theExtendedProtocolGetsTheAnswersOnAShardedDatabase() throws Exception {
        try (Connection root = connect(SHARDED, "root", "extended")) {
            assertEquals(query(connect(SHARDED, "root", "simple"), "SHOW SHARDING ALGORITHMS"), query(root, "SHOW SHARDING ALGORITHMS"));
            List<String> preview = query(root, "PREVIEW SELECT * FROM t_order WHERE user_id = 1 AND order_id = 2");
            assertEquals("ds_1|SELECT * FROM t_order_0 WHERE user_id = 1 AND order_id = 2|null", preview.get(1));
            long previous = -1;
            try (java.sql.PreparedStatement stats = root.prepareStatement("SHOW STATS")) {
                for (int i = 0; i < 7; i++) {
                    query(root, "SELECT count(*) FROM t_order WHERE user_id = 1");
                    long queries = 0;
                    try (ResultSet rs = stats.executeQuery()) {
                        while (rs.next()) {
                            if (rs.getString("database").equals(SHARDED) && rs.getString("data_source").equals("ds_1")) {
                                queries = rs.getLong("total_query_count");
                            }
                        }
                    }
                    assertTrue(queries > previous, "execution " + i + ": " + queries + " after " + previous);
                    previous = queries;
                }
            }
            SQLException unknown = assertThrows(SQLException.class, () -> query(root, "SHOW SHARDING NOTHING"));
            assertEquals("42601", unknown.getSQLState());
        }
        try (Connection app = connect(SHARDED, "app", "extended")) {
            SQLException denied = assertThrows(SQLException.class, () -> query(app, "SHOW POOLS"));
            assertEquals("42501", denied.getSQLState());
        }
    }

    @Test
    void pgbouncersCommandsAnswerPgjdbcInEveryQueryModeOnAPooledDatabase() throws Exception {
        Map<String, Integer> types = new LinkedHashMap<>();
        try (Connection root = connect(POOLED, "root", "simple"); Statement s = root.createStatement();
             ResultSet rs = s.executeQuery("SHOW POOLS")) {
            for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
                types.put(rs.getMetaData().getColumnName(i), rs.getMetaData().getColumnType(i));
            }
            assertTrue(rs.next());
            assertEquals(Types.INTEGER, types.get("cl_active"));
            assertEquals(Types.BIGINT, types.get("maxwait"));
            assertEquals("transaction", rs.getString("pool_mode"));
            assertNull(rs.getWarnings());
        }
    }
}
