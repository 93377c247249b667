package io.ashlar.backend.sharding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ashlar.backend.config.DataSourceConfig;
import io.ashlar.backend.datasource.BackendConnection;
import io.ashlar.backend.datasource.BackendDataSource;
import io.ashlar.backend.execute.BufferedResult;
import io.ashlar.backend.execute.ErrorFields;
import io.ashlar.backend.execute.StatementFailure;
import io.ashlar.backend.session.LogicalDatabase;
import io.ashlar.route.config.AlgorithmConfig;
import io.ashlar.route.config.ShardingRuleConfig;
import io.ashlar.route.config.ShardingStrategyConfig;
import io.ashlar.route.config.TableRuleConfig;
import io.ashlar.route.rule.ShardingRules;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import io.ashlar.backend.execute.BackendError;

/**
 * A sharded COPY against real PostgreSQL shards, driven as the frontend drives it: t_order on ds_0 and ds_1, tables
 * t_order_0 and t_order_1 on each, data source by {@code user_id % 2} (INLINE), table by {@code order_id % 2} (MOD).
 * Each test runs the COPY in one transaction per data source, committed only if the COPY succeeded, and then reads the
 * shards directly.
 */
class ShardedCopyInTest {

    private static EmbeddedPostgres postgres;
    private static LogicalDatabase database;

    @BeforeAll
    static void start() throws Exception {
        postgres = EmbeddedPostgres.builder().start();
        List<BackendDataSource> dataSources = new ArrayList<>();
        try (Connection admin = postgres.getPostgresDatabase().getConnection(); Statement statement = admin.createStatement()) {
            for (String each : List.of("ds_0", "ds_1")) {
                statement.execute("CREATE DATABASE " + each);
                try (Connection shard = shard(each); Statement create = shard.createStatement()) {
                    for (String table : List.of("t_order_0", "t_order_1")) {
                        create.execute("CREATE TABLE " + table + " (order_id BIGINT PRIMARY KEY, user_id INT NOT NULL,"
                                + " doubled BIGINT GENERATED ALWAYS AS (order_id * 2) STORED, amount NUMERIC(10,2), note TEXT)");
                    }
                }
                dataSources.add(BackendDataSource.open(new DataSourceConfig(each, url(each), "postgres", "", 5_000, 60_000, 1_800_000, 4, 0, Map.of())));
            }
        }
        Map<String, TableRuleConfig> tables = new LinkedHashMap<>();
        tables.put("t_order", new TableRuleConfig("t_order", Optional.of("ds_${0..1}.t_order_${0..1}"),
                Optional.of(new ShardingStrategyConfig.Standard("user_id", "database_inline")),
                Optional.of(new ShardingStrategyConfig.Standard("order_id", "order_mod")), Optional.empty()));
        Map<String, AlgorithmConfig> algorithms = new LinkedHashMap<>();
        algorithms.put("database_inline", new AlgorithmConfig("INLINE", Map.of("algorithm-expression", "ds_${user_id % 2}")));
        algorithms.put("order_mod", new AlgorithmConfig("MOD", Map.of("sharding-count", "2")));
        ShardingRuleConfig config = new ShardingRuleConfig(tables, Map.of(), List.of(), List.of(), Optional.empty(), Optional.empty(),
                Optional.empty(), Optional.empty(), algorithms, Map.of());
        ShardingRules rules = ShardingRules.compile(List.of(config), List.of("ds_0", "ds_1"), Map.of());
        database = new LogicalDatabase("sharding_db", dataSources, rules);
    }

    @AfterAll
    static void stop() throws Exception {
        if (database != null) {
            database.close();
        }
        postgres.close();
    }

    @BeforeEach
    void empty() throws SQLException {
        for (String each : List.of("ds_0", "ds_1")) {
            try (Connection shard = shard(each); Statement statement = shard.createStatement()) {
                statement.execute("TRUNCATE t_order_0, t_order_1");
            }
        }
    }

    /** The session side: one connection per data source, in a transaction begun on first use. */
    private static final class Session implements CopyConnections {
        final BackendConnection[] held = new BackendConnection[2];
        final List<Integer> asked = new ArrayList<>();

        @Override
        public BackendConnection connection(int dataSource) throws StatementFailure {
            asked.add(dataSource);
            try {
                BackendConnection result = database.dataSources().get(dataSource).borrow();
                run(result, "BEGIN");
                held[dataSource] = result;
                return result;
            } catch (SQLException e) {
                throw new StatementFailure(ErrorFields.from(e), e);
            }
        }

        void end(boolean commit) throws SQLException {
            for (BackendConnection each : held) {
                if (each != null) {
                    run(each, commit ? "COMMIT" : "ROLLBACK");
                    each.release();
                }
            }
        }
    }

    private static void run(BackendConnection connection, String sql) throws SQLException {
        BufferedResult result = new BufferedResult();
        connection.executeSimple(sql, result);
        if (result.error() != null) {
            throw result.error();
        }
    }

    /** Runs a COPY with the data sent in messages of {@code chunk} bytes; returns the row count or throws its error. */
    private static long copy(String sql, String data, int chunk) throws SQLException {
        return copy(sql, data.getBytes(StandardCharsets.UTF_8), chunk);
    }

    private static long copy(String sql, byte[] bytes, int chunk) throws SQLException {
        Session session = new Session();
        ShardedCopyIn copy = null;
        try {
            assertTrue(ShardedCopyIn.handles(database.rules(), database.plans().get(sql).statement()));
            copy = ShardedCopyIn.open(database, database.plans().get(sql), session);
            assertEquals(sql.contains("binary") ? 1 : 0, copy.getFormat());
            for (int at = 0; at < bytes.length; at += chunk) {
                copy.writeToCopy(bytes, at, Math.min(chunk, bytes.length - at));
            }
            return copy.endCopy();
        } finally {
            session.end(copy != null && copy.succeeded());
        }
    }

    /** Every row of every actual table, as {@code ds.table: order_id user_id doubled amount note}, sorted by order_id. */
    private static Map<Long, String> contents() throws SQLException {
        Map<Long, String> result = new TreeMap<>();
        for (String dataSource : List.of("ds_0", "ds_1")) {
            try (Connection shard = shard(dataSource); Statement statement = shard.createStatement()) {
                for (String table : List.of("t_order_0", "t_order_1")) {
                    try (ResultSet rs = statement.executeQuery("SELECT order_id, user_id, doubled, amount, note FROM " + table)) {
                        while (rs.next()) {
                            result.put(rs.getLong(1), dataSource + "." + table + ": " + rs.getLong(1) + " " + rs.getInt(2) + " "
                                    + rs.getLong(3) + " " + rs.getString(4) + " " + rs.getString(5));
                        }
                    }
                }
            }
        }
        return result;
    }

    private static String placed(long orderId, int userId) {
        return "ds_" + userId % 2 + ".t_order_" + orderId % 2;
    }

    @Test
    void textRowsLandWhereTheRulesPutThem() throws SQLException {
        StringBuilder data = new StringBuilder();
        for (int i = 1; i <= 1000; i++) {
            data.append(i).append('\t').append(i * 7 % 13).append('\t').append(i).append(".5\tnote ").append(i).append(" with\\ttab\n");
        }
        assertEquals(1000, copy("COPY t_order (order_id, user_id, amount, note) FROM STDIN", data.toString(), 7));
        Map<Long, String> rows = contents();
        assertEquals(1000, rows.size());
        for (int i = 1; i <= 1000; i++) {
            assertEquals(placed(i, i * 7 % 13) + ": " + i + " " + (i * 7 % 13) + " " + (2L * i) + " " + i + ".50 note " + i + " with\ttab",
                    rows.get((long) i));
        }
    }

    /**
     * Binary tuples, fed one byte at a time and whole: each lands where its int8 and int4 sharding values put it; with
     * and without a column list (the generated column left out, as PostgreSQL leaves it); NULL fields; a missing
     * trailer is the end (PostgreSQL allows it), data after the trailer and a bad signature are PostgreSQL's 22P04.
     */
    @Test
    void binaryTuplesLandWhereTheRulesPutThem() throws Exception {
        java.io.ByteArrayOutputStream listed = binaryHeader();
        for (int i = 1; i <= 200; i++) {
            tuple(listed, new byte[][] {int8(i), int4(i * 7 % 13), ("note " + i).getBytes(StandardCharsets.UTF_8)});
        }
        listed.write(new byte[] {(byte) 0xFF, (byte) 0xFF});
        assertEquals(200, copy("COPY t_order (order_id, user_id, note) FROM STDIN (FORMAT binary)", listed.toByteArray(), 1));
        Map<Long, String> rows = contents();
        assertEquals(200, rows.size());
        for (int i = 1; i <= 200; i++) {
            assertEquals(placed(i, i * 7 % 13) + ": " + i + " " + (i * 7 % 13) + " " + (2L * i) + " null note " + i, rows.get((long) i));
        }
        // No column list: order_id, user_id, amount, note (not the generated column); a NULL amount; no trailer.
        java.io.ByteArrayOutputStream whole = binaryHeader();
        tuple(whole, new byte[][] {int8(1001), int4(4), null, "n".getBytes(StandardCharsets.UTF_8)});
        tuple(whole, new byte[][] {int8(1002), int4(5), null, null});
        assertEquals(2, copy("COPY t_order FROM STDIN WITH (FORMAT binary)", whole.toByteArray(), 1 << 20));
        assertEquals("ds_0.t_order_1: 1001 4 2002 null n", contents().get(1001L));
        assertEquals("ds_1.t_order_0: 1002 5 2004 null null", contents().get(1002L));

        byte[] afterTrailer = java.util.Arrays.copyOf(listed.toByteArray(), listed.size() + 2);
        SQLException trailing = assertThrows(SQLException.class,
                () -> copy("COPY t_order (order_id, user_id, note) FROM STDIN (FORMAT binary)", afterTrailer, 1 << 20));
        assertEquals("22P04", trailing.getSQLState(), trailing.getMessage());
        SQLException signature = assertThrows(SQLException.class,
                () -> copy("COPY t_order FROM STDIN (FORMAT binary)", "PGCOPY\nnot really binary".getBytes(StandardCharsets.UTF_8), 3));
        assertEquals("22P04", signature.getSQLState(), signature.getMessage());
        assertEquals(202, contents().size(), "the failed COPYs left nothing");
    }

    private static java.io.ByteArrayOutputStream binaryHeader() {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        out.writeBytes(new byte[] {'P', 'G', 'C', 'O', 'P', 'Y', '\n', (byte) 0xFF, '\r', '\n', 0, 0, 0, 0, 0, 0, 0, 0, 0});
        return out;
    }

    private static void tuple(java.io.ByteArrayOutputStream out, byte[][] fields) {
        out.writeBytes(java.nio.ByteBuffer.allocate(2).putShort((short) fields.length).array());
        for (byte[] field : fields) {
            out.writeBytes(int4(field == null ? -1 : field.length));
            if (field != null) {
                out.writeBytes(field);
            }
        }
    }

    private static byte[] int8(long value) {
        return java.nio.ByteBuffer.allocate(8).putLong(value).array();
    }

    private static byte[] int4(int value) {
        return java.nio.ByteBuffer.allocate(4).putInt(value).array();
    }

    @Test
    void csvWithHeaderWithoutColumnList() throws SQLException {
        // No column list: the columns come from the shard's catalog, generated column excluded.
        String data = "order_id,user_id,amount,note\r\n1,1,1.00,\"a\r\nb\"\r\n2,1,,\"x,y\"\r\n3,2,3,\r\n4,3,4,\"\"\r\n";
        assertEquals(4, copy("COPY t_order FROM STDIN WITH (FORMAT csv, HEADER)", data, 3));
        assertEquals(List.of("ds_1.t_order_1: 1 1 2 1.00 a\r\nb", "ds_1.t_order_0: 2 1 4 null x,y", "ds_0.t_order_1: 3 2 6 3.00 null",
                "ds_1.t_order_0: 4 3 8 4.00 "), new ArrayList<>(contents().values()));
    }

    @Test
    void manyRowsSwitchCopiesOnADataSource() throws SQLException {
        // About 2.4 MB: every node's buffer fills several times, so each data source alternates its two nodes' COPYs.
        String pad = "p".repeat(220);
        StringBuilder data = new StringBuilder();
        for (int i = 0; i < 10_000; i++) {
            data.append(i).append(',').append(i / 2).append(",,").append(pad).append('\n');
        }
        assertEquals(10_000, copy("COPY t_order (order_id, user_id, amount, note) FROM STDIN (FORMAT csv)", data.toString(), 65_536));
        Map<Long, String> rows = contents();
        assertEquals(10_000, rows.size());
        for (long i = 0; i < 10_000; i++) {
            assertTrue(rows.get(i).startsWith(placed(i, (int) (i / 2)) + ": " + i + " "), rows.get(i));
        }
    }

    @Test
    void endOfDataMarkerEndsTheRows() throws SQLException {
        assertEquals(2, copy("COPY t_order (order_id, user_id) FROM STDIN", "1\t1\n2\t2\n\\.\n3\t3\n", 1));
        assertEquals(2, contents().size());
    }

    @Test
    void unroutableRowFailsTheWholeCopy() throws SQLException {
        BackendError e = assertThrows(BackendError.class,
                () -> copy("COPY t_order (order_id, user_id) FROM STDIN", "1\t1\n2\t2\n3\t\\N\n4\t4\n", 5));
        assertEquals("0A000", e.getSQLState());
        assertEquals("COPY t_order, line 3", e.fields().field('W'));
        assertTrue(e.fields().message().contains("NULL in sharding column user_id"), e.getMessage());
        assertEquals(Map.of(), contents());
        // INLINE ds_${user_id % 2} names no data source for -1: like INSERT, 22023.
        BackendError negative = assertThrows(BackendError.class,
                () -> copy("COPY t_order (order_id, user_id) FROM STDIN", "1\t1\n2\t-1\n", 64));
        assertEquals("22023", negative.getSQLState(), negative.getMessage());
        assertEquals("COPY t_order, line 2", negative.fields().field('W'));
        assertEquals(Map.of(), contents());
        // MOD cannot place text: like INSERT, 22023 with the algorithm's reason.
        BackendError text = assertThrows(BackendError.class,
                () -> copy("COPY t_order (order_id, user_id) FROM STDIN (FORMAT csv, HEADER)", "a,b\n1,1\nabc,2\n", 64));
        assertEquals("22023", text.getSQLState(), text.getMessage());
        assertTrue(text.fields().message().contains("cannot use value 'abc'"), text.getMessage());
        assertEquals("COPY t_order, line 3", text.fields().field('W'));
        assertEquals(Map.of(), contents());
    }

    @Test
    void shardErrorFailsTheWholeCopy() throws SQLException {
        StringBuilder data = new StringBuilder();
        for (int i = 1; i <= 100; i++) {
            data.append(i).append('\t').append(i).append('\t').append(i == 77 ? "seventy" : i).append('\n');
        }
        BackendError e = assertThrows(BackendError.class,
                () -> copy("COPY t_order (order_id, user_id, amount) FROM STDIN", data.toString(), 100));
        assertEquals("22P02", e.getSQLState());
        assertEquals(Map.of(), contents());
        BackendError duplicate = assertThrows(BackendError.class,
                () -> copy("COPY t_order (order_id, user_id) FROM STDIN", "1\t1\n2\t2\n1\t1\n", 100));
        assertEquals("23505", duplicate.getSQLState());
        assertEquals(Map.of(), contents());
    }

    @Test
    void shortRowIsReportedByTheShard() throws SQLException {
        BackendError e = assertThrows(BackendError.class,
                () -> copy("COPY t_order (order_id, user_id, note) FROM STDIN", "1\t1\tx\n2\n", 100));
        assertEquals("22P04", e.getSQLState());
        assertTrue(e.fields().message().contains("missing data for column"), e.getMessage());
        assertEquals(Map.of(), contents());
    }

    @Test
    void refusals() throws SQLException {
        // Without the sharding column user_id: each row is refused (23502 where the logical schema knows the column NOT
        // NULL; this database's knows no columns); no row, none refused, as on PostgreSQL.
        SQLException omitted = assertThrows(SQLException.class, () -> copy("COPY t_order (order_id, note) FROM STDIN", "1\tx\n", 1));
        assertEquals("0A000", omitted.getSQLState(), omitted.getMessage());
        assertTrue(omitted.getMessage().contains("without sharding column user_id"), omitted.getMessage());
        assertEquals(0, copy("COPY t_order (order_id, note) FROM STDIN", "", 1));
        assertEquals("42703", assertThrows(SQLException.class,
                () -> copy("COPY t_order (order_id, user_id, nope) FROM STDIN", "", 1)).getSQLState());
        assertFalse(ShardedCopyIn.handles(database.rules(), database.plans().get("COPY t_order TO STDOUT").statement()));
        assertFalse(ShardedCopyIn.handles(database.rules(), database.plans().get("COPY other FROM STDIN").statement()));
    }

    @Test
    void cancelKeepsNothing() throws SQLException {
        Session session = new Session();
        String sql = "COPY t_order (order_id, user_id) FROM STDIN";
        ShardedCopyIn copy = ShardedCopyIn.open(database, database.plans().get(sql), session);
        byte[] rows = "1\t1\n2\t2\n".getBytes(StandardCharsets.UTF_8);
        copy.writeToCopy(rows, 0, rows.length);
        copy.cancelCopy();
        assertFalse(copy.succeeded());
        assertFalse(copy.isActive());
        session.end(copy.succeeded());
        assertEquals(Map.of(), contents());
    }

    private static Connection shard(String database) throws SQLException {
        return DriverManager.getConnection(url(database), "postgres", "");
    }

    private static String url(String database) {
        return "jdbc:postgresql://127.0.0.1:" + postgres.getPort() + "/" + database;
    }
}
