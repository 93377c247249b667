package io.ashlar.bootstrap.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.sql.BatchUpdateException;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.sql.SQLWarning;
import java.sql.Types;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.postgresql.PGConnection;
import org.postgresql.PGResultSetMetaData;
import org.postgresql.util.PGobject;

/**
 * pgjdbc through the proxy in each of its query modes, with binary transfer on and off: the
 * same JDBC code runs through the proxy and directly against the PostgreSQL server behind it,
 * and what the client sees (values, metadata, update counts, errors with their SQLSTATE) must be
 * the same. {@code prepareThreshold=1} makes the extended modes use named server-side statements
 * (and binary results, when enabled) from the first execution.
 *
 * @see <a href="https://jdbc.postgresql.org/documentation/use/#connection-parameters">pgjdbc connection parameters</a>
 * @see <a href="https://www.postgresql.org/docs/current/protocol-flow.html">PostgreSQL: Message Flow</a>
 */
final class PgJdbcQueryModesTest {

    /** One pgjdbc configuration of the matrix. */
    record ClientMode(String queryMode, boolean binaryTransfer) {

        String urlParameters() {
            return "preferQueryMode=" + queryMode + "&binaryTransfer=" + binaryTransfer + "&prepareThreshold=1";
        }

        /** A suffix that makes a table name unique to this mode. */
        String suffix() {
            return queryMode.toLowerCase(Locale.ROOT) + (binaryTransfer ? "_bin" : "_txt");
        }

        /** Whether pgjdbc asks for binary results in this mode (it never does over the simple protocol). */
        boolean receivesBinary() {
            return binaryTransfer && !queryMode.equals("simple");
        }

        @Override
        public String toString() {
            return queryMode + (binaryTransfer ? "+binary" : "+text");
        }
    }

    static List<ClientMode> modes() {
        List<ClientMode> result = new ArrayList<>();
        for (String queryMode : List.of("simple", "extended", "extendedForPrepared", "extendedCacheEverything")) {
            result.add(new ClientMode(queryMode, false));
            result.add(new ClientMode(queryMode, true));
        }
        return result;
    }

    /** JDBC work run once directly and once through the proxy. */
    interface SqlWork<T> {
        T run(Connection connection) throws SQLException;
    }

    private static ProxiedPostgres server;
    private static ExecutorService threads;

    @BeforeAll
    static void start() throws Exception {
        server = ProxiedPostgres.start();
        threads = Executors.newCachedThreadPool();
    }

    @AfterAll
    static void stop() throws Exception {
        if (threads != null) {
            threads.shutdownNow();
        }
        if (server != null) {
            server.close();
        }
    }

    private static Connection proxy(ClientMode mode) throws SQLException {
        return server.proxy(mode.urlParameters());
    }

    private static Connection direct(ClientMode mode) throws SQLException {
        return server.direct(mode.urlParameters());
    }

    /** Runs the work directly, then through the proxy, and asserts both give the same answer. */
    private static <T> T sameAsDirect(ClientMode mode, SqlWork<T> work) throws SQLException {
        return sameAsDirect(mode, "", work);
    }

    /** The same, with more connection parameters ({@code &name=value}). */
    private static <T> T sameAsDirect(ClientMode mode, String moreParameters, SqlWork<T> work) throws SQLException {
        T expected;
        try (Connection c = server.direct(mode.urlParameters() + moreParameters)) {
            expected = work.run(c);
        }
        T actual;
        try (Connection c = server.proxy(mode.urlParameters() + moreParameters)) {
            actual = work.run(c);
        }
        assertEquals(expected, actual, "through the proxy (" + mode + ") versus directly");
        return actual;
    }

    private static void execute(Connection connection, String sql) throws SQLException {
        try (Statement s = connection.createStatement()) {
            s.execute(sql);
        }
    }

    private static void executeDirect(String sql) throws SQLException {
        try (Connection c = server.direct(""); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    private static long count(Connection connection, String table) throws SQLException {
        try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery("SELECT count(*) FROM " + table)) {
            assertTrue(rs.next());
            return rs.getLong(1);
        }
    }

    private static SQLException assertSqlState(String sqlState, SqlCallable call) {
        SQLException e = assertThrows(SQLException.class, call::run);
        assertEquals(sqlState, e.getSQLState(), () -> "SQLSTATE of " + ResultDump.error(e));
        return e;
    }

    /** A JDBC call expected to fail. */
    interface SqlCallable {
        void run() throws SQLException;
    }

    // ------------------------------------------------------------------ DML and types

    @ParameterizedTest(name = "{0}")
    @MethodSource("modes")
    void ddlAndDmlReturnExactUpdateCounts(ClientMode mode) throws SQLException {
        String table = "dml_" + mode.suffix();
        try (Connection c = proxy(mode); Statement s = c.createStatement()) {
            assertEquals(0, s.executeUpdate("DROP TABLE IF EXISTS " + table));
            assertEquals(0, s.executeUpdate("CREATE TABLE " + table + " (id int PRIMARY KEY, name text)"));
            assertEquals(3, s.executeUpdate("INSERT INTO " + table + " VALUES (1, 'a'), (2, 'b'), (3, 'c')"));
            try (PreparedStatement insert = c.prepareStatement("INSERT INTO " + table + " VALUES (?, ?)")) {
                for (int id = 4; id <= 6; id++) {
                    insert.setInt(1, id);
                    insert.setString(2, "p" + id);
                    assertEquals(1, insert.executeUpdate());
                }
            }
            try (PreparedStatement update = c.prepareStatement("UPDATE " + table + " SET name = upper(name) WHERE id > ?")) {
                update.setInt(1, 1);
                assertEquals(5, update.executeUpdate());
                update.setInt(1, 100);
                assertEquals(0, update.executeUpdate());
            }
            assertEquals(1, s.executeUpdate("DELETE FROM " + table + " WHERE id = 1"));
            assertEquals(2, s.executeUpdate("DELETE FROM " + table + " WHERE id IN (2, 3)"));
            assertFalse(s.execute("UPDATE " + table + " SET name = name"));
            assertEquals(3, s.getUpdateCount());
            assertEquals(3, count(c, table));
            try (ResultSet rs = s.executeQuery("SELECT string_agg(name, ',' ORDER BY id) FROM " + table)) {
                assertTrue(rs.next());
                assertEquals("P4,P5,P6", rs.getString(1));
            }
            assertEquals(0, s.executeUpdate("DROP TABLE " + table));
        }
    }

    private static final String TYPES_COLUMNS = "id int PRIMARY KEY, c_int2 int2, c_int4 int4, c_int8 int8,"
            + " c_float4 float4, c_float8 float8, c_bool bool, c_numeric numeric(20, 6), c_numeric_any numeric,"
            + " c_text text, c_varchar varchar(40), c_bytea bytea, c_date date, c_time time, c_timestamp timestamp,"
            + " c_timestamptz timestamptz, c_uuid uuid, c_json json, c_jsonb jsonb, c_int_array int4[], c_text_array text[]";

    private static final UUID ROW1_UUID = UUID.fromString("6ba7b810-9dad-11d1-80b4-00c04fd430c8");
    private static final byte[] ROW1_BYTES = {0, 1, 2, (byte) 0xff, '\\', '\''};
    private static final OffsetDateTime ROW1_TIMESTAMPTZ = OffsetDateTime.of(2024, 2, 29, 13, 45, 30, 123_456_000, ZoneOffset.UTC);

    /** Sets the 20 values of row 1 (every column but id) from parameter index {@code first}. */
    private static void setRow1(Connection c, PreparedStatement p, int first) throws SQLException {
        int i = first;
        p.setShort(i++, (short) 12);
        p.setInt(i++, 123_456);
        p.setLong(i++, 1_234_567_890_123L);
        p.setFloat(i++, 1.5f);
        p.setDouble(i++, 2.25d);
        p.setBoolean(i++, true);
        p.setBigDecimal(i++, new BigDecimal("12345.678900"));
        p.setBigDecimal(i++, new BigDecimal("-0.000001234"));
        p.setString(i++, "héllo wörld ✓");
        p.setString(i++, "varchar value");
        p.setBytes(i++, ROW1_BYTES);
        p.setObject(i++, LocalDate.of(2024, 2, 29));
        p.setObject(i++, LocalTime.of(13, 45, 30, 250_000_000));
        p.setObject(i++, LocalDateTime.of(2024, 2, 29, 13, 45, 30, 123_456_000));
        p.setObject(i++, ROW1_TIMESTAMPTZ);
        p.setObject(i++, ROW1_UUID);
        p.setObject(i++, json("json", "{\"a\": [1, 2, {\"b\": null}]}"));
        p.setObject(i++, json("jsonb", "{\"k\": \"v\", \"n\": 1.50}"));
        p.setArray(i++, c.createArrayOf("int4", new Integer[] {1, null, 3}));
        p.setArray(i, c.createArrayOf("text", new String[] {"a", "b c", "\"q\"", null, "NULL", ""}));
    }

    private static PGobject json(String type, String value) throws SQLException {
        PGobject result = new PGobject();
        result.setType(type);
        result.setValue(value);
        return result;
    }

    /** Rows 2-5: edge values (extremes, NaN, infinities, BC dates, 24:00, empty strings, nested arrays) and NULLs. */
    private static final String EDGE_ROWS = """
            (2, -32768, -2147483648, 9223372036854775807, 'NaN', '-Infinity', false, '-99999999999999.999999',
             '0.00000000000000000001', '', '', '\\x', '0044-03-15 BC', '24:00:00', 'infinity', '-infinity',
             '00000000-0000-0000-0000-000000000000', '[]', '{"k": "v", "a": [1, 2.50, null]}', '{}', '{}'),
            (3, 32767, 2147483647, -9223372036854775808, 3.4028235e38, 4.9e-324, true, '12345678901234.123456', 'NaN',
             E'line1\\nline2 \\t "quoted" \\\\ ünï', 'x', '\\x00ff5c27', '2000-01-01', '00:00:00.000001',
             '1999-12-31 23:59:59.999999', '2024-06-30 23:59:59.5+05:30', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
             '{"nested": {"deep": [true, false]}}', '[1, "two", null]', '{{1,2},{3,NULL}}', '{"a,b","c\\"d",NULL,"NULL",""}'),
            (4, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
             NULL, NULL, NULL),
            (5, 0, 0, 0, '-0', '-0', false, '0', '-1000000000000000000000000000000.5', ' ', ' ', '\\x00', '1970-01-01',
             '23:59:59.999999', '1900-01-01 00:00:00', '1900-01-01 00:00:00+00', 'ffffffff-ffff-ffff-ffff-ffffffffffff',
             '"just a string"', 'null', '{-2147483648}', '{"{}"}')
            """;

    /** Every column of a types table through getObject, getString and the java.time getters. */
    private static List<String> typedRows(ResultSet rs) throws SQLException {
        List<String> result = new ArrayList<>();
        int columns = rs.getMetaData().getColumnCount();
        while (rs.next()) {
            StringBuilder row = new StringBuilder();
            for (int i = 1; i <= columns; i++) {
                int column = i;
                String type = rs.getMetaData().getColumnTypeName(i);
                row.append(rs.getMetaData().getColumnLabel(i)).append('=')
                        .append(ResultDump.attempt(() -> rs.getObject(column)))
                        .append(" | str=").append(ResultDump.attempt(() -> rs.getString(column)));
                switch (type) {
                    case "date" -> row.append(" | ").append(ResultDump.attempt(() -> rs.getObject(column, LocalDate.class)));
                    case "time" -> row.append(" | ").append(ResultDump.attempt(() -> rs.getObject(column, LocalTime.class)));
                    case "timestamp" -> row.append(" | ").append(ResultDump.attempt(() -> rs.getObject(column, LocalDateTime.class)));
                    case "timestamptz" -> row.append(" | ").append(ResultDump.attempt(() -> rs.getObject(column, OffsetDateTime.class)));
                    case "numeric" -> row.append(" | ").append(ResultDump.attempt(() -> rs.getBigDecimal(column)));
                    case "bytea" -> row.append(" | ").append(ResultDump.attempt(() -> rs.getBytes(column)));
                    case "float4", "float8" -> row.append(" | ").append(ResultDump.attempt(() -> rs.getDouble(column)));
                    default -> { }
                }
                row.append("; ");
            }
            result.add(row.toString());
        }
        return result;
    }

    private record TypedRead(List<String> columns, List<String> rows) {
    }

    private static TypedRead readTypes(Connection c, String table) throws SQLException {
        try (PreparedStatement p = c.prepareStatement("SELECT * FROM " + table + " WHERE id >= ? ORDER BY id")) {
            TypedRead result = null;
            // Twice: the second execution is the one that uses the named statement and binary results for sure.
            for (int run = 0; run < 2; run++) {
                p.setInt(1, 1);
                try (ResultSet rs = p.executeQuery()) {
                    result = new TypedRead(ResultDump.columns(rs.getMetaData()), typedRows(rs));
                }
            }
            return result;
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("modes")
    void valuesOfEveryTypeReadThroughTheProxyEqualTheServers(ClientMode mode) throws SQLException {
        String table = "types_" + mode.suffix();
        executeDirect("DROP TABLE IF EXISTS " + table + "; CREATE TABLE " + table + " (" + TYPES_COLUMNS + ");"
                + " INSERT INTO " + table + " VALUES " + EDGE_ROWS);
        try (Connection c = proxy(mode)) {
            try (PreparedStatement insert = c.prepareStatement("INSERT INTO " + table
                    + " VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
                setRow1(c, insert, 1);
                assertEquals(1, insert.executeUpdate());
            }
        }
        TypedRead expected;
        try (Connection c = direct(mode)) {
            expected = readTypes(c, table);
        }
        TypedRead actual;
        try (Connection c = proxy(mode)) {
            actual = readTypes(c, table);
            try (PreparedStatement p = c.prepareStatement("SELECT c_int4, c_text FROM " + table + " WHERE id = ?")) {
                p.setInt(1, 1);
                p.executeQuery().close();
                try (ResultSet rs = p.executeQuery()) {
                    PGResultSetMetaData pg = rs.getMetaData().unwrap(PGResultSetMetaData.class);
                    assertEquals(mode.receivesBinary() ? 1 : 0, pg.getFormat(1), "format of int4 through the proxy");
                }
            }
        }
        assertEquals(21, expected.columns().size());
        assertEquals(5, expected.rows().size());
        assertEquals(expected.columns(), actual.columns(), "column metadata");
        for (int i = 0; i < expected.rows().size(); i++) {
            assertEquals(expected.rows().get(i), actual.rows().get(i), "row " + (i + 1));
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("modes")
    void parametersOfEveryTypeSelectTheRowAndEchoBack(ClientMode mode) throws SQLException {
        String table = "params_" + mode.suffix();
        executeDirect("DROP TABLE IF EXISTS " + table + "; CREATE TABLE " + table + " (" + TYPES_COLUMNS + ");"
                + " INSERT INTO " + table + " VALUES " + EDGE_ROWS);
        try (Connection c = proxy(mode); PreparedStatement insert = c.prepareStatement("INSERT INTO " + table
                + " VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
            setRow1(c, insert, 1);
            assertEquals(1, insert.executeUpdate());
        }
        String where = "SELECT id FROM " + table + " WHERE c_int2 = ? AND c_int4 = ? AND c_int8 = ? AND c_float4 = ?"
                + " AND c_float8 = ? AND c_bool = ? AND c_numeric = ? AND c_numeric_any = ? AND c_text = ? AND c_varchar = ?"
                + " AND c_bytea = ? AND c_date = ? AND c_time = ? AND c_timestamp = ? AND c_timestamptz = ? AND c_uuid = ?"
                + " AND c_json::text = ?::text AND c_jsonb = ? AND c_int_array = ? AND c_text_array = ?";
        String echo = "SELECT ?::int2 AS p_int2, ?::int4 AS p_int4, ?::int8 AS p_int8, ?::float4 AS p_float4,"
                + " ?::float8 AS p_float8, ?::bool AS p_bool, ?::numeric(20, 6) AS p_numeric, ?::numeric AS p_numeric_any,"
                + " ?::text AS p_text, ?::varchar(40) AS p_varchar, ?::bytea AS p_bytea, ?::date AS p_date,"
                + " ?::time AS p_time, ?::timestamp AS p_timestamp, ?::timestamptz AS p_timestamptz, ?::uuid AS p_uuid,"
                + " ?::json AS p_json, ?::jsonb AS p_jsonb, ?::int4[] AS p_int_array, ?::text[] AS p_text_array";
        List<String> answer = sameAsDirect(mode, c -> {
            List<String> result = new ArrayList<>();
            for (int run = 0; run < 2; run++) {
                try (PreparedStatement p = c.prepareStatement(where)) {
                    setRow1(c, p, 1);
                    try (ResultSet rs = p.executeQuery()) {
                        result.addAll(ResultDump.rows(rs));
                    }
                    // pgjdbc cannot describe parameters over the simple protocol (it fails an assertion).
                    result.add("parameters: " + (mode.queryMode().equals("simple") ? "simple" : ResultDump.attempt(() -> {
                        var metaData = p.getParameterMetaData();
                        List<String> types = new ArrayList<>();
                        for (int i = 1; i <= metaData.getParameterCount(); i++) {
                            types.add(metaData.getParameterTypeName(i));
                        }
                        return types.toString();
                    })));
                }
                try (PreparedStatement p = c.prepareStatement(echo)) {
                    setRow1(c, p, 1);
                    try (ResultSet rs = p.executeQuery()) {
                        result.addAll(ResultDump.columns(rs.getMetaData()));
                        result.addAll(typedRows(rs));
                    }
                }
            }
            return result;
        });
        assertTrue(answer.get(0).startsWith("id=Integer:1 "), answer.get(0));
        try (Connection c = proxy(mode); PreparedStatement p = c.prepareStatement(echo)) {
            setRow1(c, p, 1);
            try (ResultSet rs = p.executeQuery()) {
                assertTrue(rs.next());
                assertEquals((short) 12, rs.getShort(1));
                assertEquals(123_456, rs.getInt(2));
                assertEquals(1_234_567_890_123L, rs.getLong(3));
                assertEquals(1.5f, rs.getFloat(4));
                assertEquals(2.25d, rs.getDouble(5));
                assertTrue(rs.getBoolean(6));
                assertEquals(new BigDecimal("12345.678900"), rs.getBigDecimal(7));
                assertEquals(new BigDecimal("-0.000001234"), rs.getBigDecimal(8));
                assertEquals("héllo wörld ✓", rs.getString(9));
                assertEquals("varchar value", rs.getString(10));
                assertArrayEquals(ROW1_BYTES, rs.getBytes(11));
                assertEquals(LocalDate.of(2024, 2, 29), rs.getObject(12, LocalDate.class));
                assertEquals(LocalTime.of(13, 45, 30, 250_000_000), rs.getObject(13, LocalTime.class));
                assertEquals(LocalDateTime.of(2024, 2, 29, 13, 45, 30, 123_456_000), rs.getObject(14, LocalDateTime.class));
                assertEquals(ROW1_TIMESTAMPTZ.toInstant(), rs.getObject(15, OffsetDateTime.class).toInstant());
                assertEquals(ROW1_UUID, rs.getObject(16));
                assertEquals("{\"a\": [1, 2, {\"b\": null}]}", rs.getString(17));
                assertEquals("{\"k\": \"v\", \"n\": 1.50}", rs.getString(18));
                assertArrayEquals(new Integer[] {1, null, 3}, (Object[]) rs.getArray(19).getArray());
                assertArrayEquals(new String[] {"a", "b c", "\"q\"", null, "NULL", ""}, (Object[]) rs.getArray(20).getArray());
                assertFalse(rs.next());
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("modes")
    void nullsAndEmptyResultsLookTheSame(ClientMode mode) throws SQLException {
        String table = "empty_" + mode.suffix();
        executeDirect("DROP TABLE IF EXISTS " + table + "; CREATE TABLE " + table + " (id int, name varchar(10), at timestamptz)");
        List<String> answer = sameAsDirect(mode, c -> {
            List<String> result = new ArrayList<>();
            try (PreparedStatement p = c.prepareStatement("SELECT ?::int AS n, NULL::text AS t, ''::text AS e, ?::bytea AS b")) {
                for (int run = 0; run < 2; run++) {
                    p.setNull(1, Types.INTEGER);
                    p.setNull(2, Types.BINARY);
                    try (ResultSet rs = p.executeQuery()) {
                        result.addAll(ResultDump.columns(rs.getMetaData()));
                        result.addAll(ResultDump.rows(rs));
                    }
                }
            }
            try (PreparedStatement p = c.prepareStatement("SELECT * FROM " + table + " WHERE id = ?")) {
                for (int run = 0; run < 2; run++) {
                    p.setInt(1, 7);
                    try (ResultSet rs = p.executeQuery()) {
                        result.addAll(ResultDump.columns(rs.getMetaData()));
                        result.add("rows: " + ResultDump.rows(rs).size());
                    }
                }
            }
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT 1 AS one WHERE false")) {
                result.addAll(ResultDump.columns(rs.getMetaData()));
                result.add("rows: " + ResultDump.rows(rs).size());
            }
            return result;
        });
        assertTrue(answer.contains("rows: 0"), answer.toString());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("modes")
    void multiStatementQueryReturnsEveryResultInOrder(ClientMode mode) throws SQLException {
        String table = "multi_" + mode.suffix();
        List<String> answer = sameAsDirect(mode, c -> {
            List<String> result = new ArrayList<>();
            try (Statement s = c.createStatement()) {
                boolean isResultSet = s.execute("DROP TABLE IF EXISTS " + table + "; SELECT 1 AS a; CREATE TABLE " + table
                        + " (id int); INSERT INTO " + table + " VALUES (1), (2); SELECT 'x' AS b, 2 AS c; UPDATE " + table
                        + " SET id = id + 10; SELECT id FROM " + table + " ORDER BY id; DROP TABLE " + table);
                while (true) {
                    if (isResultSet) {
                        try (ResultSet rs = s.getResultSet()) {
                            result.add("rows " + ResultDump.rows(rs));
                        }
                    } else if (s.getUpdateCount() == -1) {
                        break;
                    } else {
                        result.add("count " + s.getUpdateCount());
                    }
                    isResultSet = s.getMoreResults();
                }
            }
            return result;
        });
        assertEquals(List.of("count 0",
                "rows [a=Integer:1 | str=String:1 | null=Boolean:false; ]",
                "count 0",
                "count 2",
                "rows [b=String:x | str=String:x | null=Boolean:false; c=Integer:2 | str=String:2 | null=Boolean:false; ]",
                "count 2",
                "rows [id=Integer:11 | str=String:11 | null=Boolean:false; , id=Integer:12 | str=String:12 | null=Boolean:false; ]",
                "count 0"), answer);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("modes")
    void batchOf100RowsReportsOneRowPerInsert(ClientMode mode) throws SQLException {
        String table = "batch_" + mode.suffix();
        try (Connection c = proxy(mode)) {
            execute(c, "DROP TABLE IF EXISTS " + table + "; CREATE TABLE " + table + " (id int PRIMARY KEY, name text)");
            try (PreparedStatement p = c.prepareStatement("INSERT INTO " + table + " VALUES (?, ?)")) {
                for (int i = 1; i <= 100; i++) {
                    p.setInt(1, i);
                    p.setString(2, "row " + i);
                    p.addBatch();
                }
                int[] counts = p.executeBatch();
                int[] ones = new int[100];
                Arrays.fill(ones, 1);
                assertArrayEquals(ones, counts);
            }
            try (Statement s = c.createStatement()) {
                s.addBatch("UPDATE " + table + " SET name = 'even' WHERE id % 2 = 0");
                s.addBatch("DELETE FROM " + table + " WHERE id > 90");
                s.addBatch("INSERT INTO " + table + " VALUES (1000, 'last')");
                assertArrayEquals(new int[] {50, 10, 1}, s.executeBatch());
            }
            try (Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT count(*), sum(id), count(*) FILTER (WHERE name = 'even') FROM " + table)) {
                assertTrue(rs.next());
                assertEquals(91, rs.getLong(1));
                assertEquals(90 * 91 / 2 + 1000, rs.getLong(2));
                assertEquals(45, rs.getLong(3));
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("modes")
    void batchWithDuplicateKeyFailsAsOnTheServer(ClientMode mode) throws SQLException {
        String table = "batchdup_" + mode.suffix();
        List<String> answer = sameAsDirect(mode, c -> {
            execute(c, "DROP TABLE IF EXISTS " + table + "; CREATE TABLE " + table + " (id int PRIMARY KEY)");
            List<String> result = new ArrayList<>();
            try (PreparedStatement p = c.prepareStatement("INSERT INTO " + table + " VALUES (?)")) {
                for (int id : new int[] {1, 2, 2, 3}) {
                    p.setInt(1, id);
                    p.addBatch();
                }
                BatchUpdateException e = assertThrows(BatchUpdateException.class, p::executeBatch);
                result.add(e.getSQLState() + " " + Arrays.toString(e.getUpdateCounts()));
                result.add(ResultDump.error(e.getNextException() == null ? e : e.getNextException()));
            }
            result.add("rows " + count(c, table));
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT 'still usable'")) {
                result.addAll(ResultDump.rows(rs));
            }
            return result;
        });
        assertTrue(answer.get(0).startsWith("23505 "), answer.get(0));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("modes")
    void generatedKeysAndReturningGiveTheNewRows(ClientMode mode) throws SQLException {
        String table = "keys_" + mode.suffix();
        try (Connection c = proxy(mode)) {
            execute(c, "DROP TABLE IF EXISTS " + table + "; CREATE TABLE " + table
                    + " (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, name text NOT NULL)");
            try (PreparedStatement p = c.prepareStatement("INSERT INTO " + table + " (name) VALUES (?)",
                    Statement.RETURN_GENERATED_KEYS)) {
                for (long expected = 1; expected <= 2; expected++) {
                    p.setString(1, "n" + expected);
                    assertEquals(1, p.executeUpdate());
                    try (ResultSet keys = p.getGeneratedKeys()) {
                        assertTrue(keys.next());
                        assertEquals(expected, keys.getLong("id"));
                        assertEquals("n" + expected, keys.getString("name"));
                        assertFalse(keys.next());
                    }
                }
            }
            try (PreparedStatement p = c.prepareStatement("INSERT INTO " + table + " (name) VALUES (?)", new String[] {"id"})) {
                for (int i = 0; i < 3; i++) {
                    p.setString(1, "batch" + i);
                    p.addBatch();
                }
                assertArrayEquals(new int[] {1, 1, 1}, p.executeBatch());
                List<Long> ids = new ArrayList<>();
                try (ResultSet keys = p.getGeneratedKeys()) {
                    while (keys.next()) {
                        ids.add(keys.getLong(1));
                    }
                }
                assertEquals(List.of(3L, 4L, 5L), ids);
            }
            try (PreparedStatement p = c.prepareStatement("INSERT INTO " + table + " (name) VALUES (?), (?) RETURNING id, upper(name)")) {
                p.setString(1, "x");
                p.setString(2, "y");
                try (ResultSet rs = p.executeQuery()) {
                    assertTrue(rs.next());
                    assertEquals(6L, rs.getLong(1));
                    assertEquals("X", rs.getString(2));
                    assertTrue(rs.next());
                    assertEquals(7L, rs.getLong(1));
                    assertEquals("Y", rs.getString(2));
                    assertFalse(rs.next());
                }
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("modes")
    void fetchSizeInTransactionDeliversAllRowsInOrder(ClientMode mode) throws SQLException {
        try (Connection c = proxy(mode)) {
            c.setAutoCommit(false);
            try (PreparedStatement p = c.prepareStatement("SELECT g, 'row ' || g FROM generate_series(1, ?) AS g ORDER BY g")) {
                p.setFetchSize(10);
                p.setInt(1, 1000);
                try (ResultSet rs = p.executeQuery()) {
                    int expected = 0;
                    while (rs.next()) {
                        expected++;
                        assertEquals(expected, rs.getInt(1));
                        assertEquals("row " + expected, rs.getString(2));
                        if (expected == 15) {
                            // Another statement while the first portal is suspended.
                            try (Statement other = c.createStatement(); ResultSet answer = other.executeQuery("SELECT 42")) {
                                assertTrue(answer.next());
                                assertEquals(42, answer.getInt(1));
                            }
                        }
                    }
                    assertEquals(1000, expected);
                }
            }
            c.commit();
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT 'after commit'")) {
                assertTrue(rs.next());
                assertEquals("after commit", rs.getString(1));
            }
            c.commit();
        }
    }

    /**
     * Types beyond the common ones, one query each (so that one failure does not hide the others): pgjdbc asks for
     * some of them in binary (point and box always, as it has binary decoders for them), and the proxy must encode them.
     * The expressions are Java-escaped SQL.
     */
    private static final List<String> MORE_TYPES = List.of(
            "'1 year 2 mons 3 days 04:05:06.789'::interval AS c_interval",
            "'-1 days -00:00:01'::interval AS c_interval_negative",
            "'13:45:30.5+05:30'::timetz AS c_timetz",
            "12.34::money AS c_money",
            "'192.168.0.1/24'::inet AS c_inet",
            "'10.0.0.0/8'::cidr AS c_cidr",
            "'08:00:2b:01:02:03'::macaddr AS c_macaddr",
            "'(1.5,2.5)'::point AS c_point",
            "'((0,0),(1,1))'::box AS c_box",
            "ARRAY['(1,2)'::point, NULL] AS c_point_array",
            "'<(1,2),3>'::circle AS c_circle",
            "'[(0,0),(1,1)]'::lseg AS c_lseg",
            "'[(0,0),(1,1),(2,0)]'::path AS c_path",
            "'((0,0),(1,1),(1,0))'::polygon AS c_polygon",
            "'{1,2,3}'::line AS c_line",
            "'{[1,3),[5,7)}'::int4multirange AS c_int4multirange",
            "B'10101'::bit(5) AS c_bit",
            "B'101'::varbit AS c_varbit",
            "'ab'::char(5) AS c_char",
            "'nm'::name AS c_name",
            "42::oid AS c_oid",
            "'c'::\"char\" AS c_char1",
            "'<a>x</a>'::xml AS c_xml",
            "'a fat cat'::tsvector AS c_tsvector",
            "'[1,10)'::int4range AS c_int4range",
            "ROW(1, 'x') AS c_record",
            "('1' || repeat('0', 300))::numeric AS c_numeric_big",
            "'-0.000000000000000000000000000001'::numeric AS c_numeric_small",
            "'Infinity'::float4 AS c_float4_inf",
            "ARRAY[1, NULL, 9223372036854775807]::int8[] AS c_int8_array",
            "ARRAY[1.5, 'NaN', '-Infinity']::float8[] AS c_float8_array",
            "ARRAY[1.5::float4] AS c_float4_array",
            "ARRAY[1::int2, '-32768'::int2] AS c_int2_array",
            "ARRAY[1.10, -2.5, 'NaN']::numeric[] AS c_numeric_array",
            "ARRAY[true, false, NULL] AS c_bool_array",
            "ARRAY['\\x00ff'::bytea, NULL] AS c_bytea_array",
            "ARRAY['2024-01-01'::date, 'infinity'] AS c_date_array",
            "ARRAY['2024-01-01 00:00:00+00'::timestamptz, NULL] AS c_timestamptz_array",
            "ARRAY['2024-01-01 12:00:00'::timestamp] AS c_timestamp_array",
            "ARRAY['10:00'::time] AS c_time_array",
            "ARRAY['6ba7b810-9dad-11d1-80b4-00c04fd430c8'::uuid] AS c_uuid_array",
            "ARRAY['a'::varchar, 'b'] AS c_varchar_array",
            "ARRAY['{\"a\": 1}'::jsonb] AS c_jsonb_array",
            "ARRAY[]::int4[] AS c_empty_array",
            "'{{\"a\",\"b\"},{\"c\",NULL}}'::text[] AS c_text_matrix",
            "'[0:1]={7,8}'::int4[] AS c_int_array_lower_bound",
            "ARRAY['x'::char(3)] AS c_bpchar_array",
            "ARRAY['1 day'::interval] AS c_interval_array",
            "'2024-02-29'::date - '2023-02-28'::date AS c_day_count",
            "now() - now() AS c_zero_interval",
            "'infinity'::date AS c_date_infinity",
            "'-infinity'::timestamptz AS c_timestamptz_minus_infinity",
            "'4713-01-01 BC'::date AS c_date_first",
            "'294276-12-31 23:59:59.999999'::timestamp AS c_timestamp_last");

    @ParameterizedTest(name = "{0}")
    @MethodSource("modes")
    void moreTypesReadThroughTheProxyEqualTheServers(ClientMode mode) throws SQLException {
        sameAsDirect(mode, c -> {
            List<String> result = new ArrayList<>();
            for (String expression : MORE_TYPES) {
                result.add(expression);
                try (PreparedStatement p = c.prepareStatement("SELECT " + expression + ", ?::int4 AS c_parameter")) {
                    for (int run = 0; run < 2; run++) {
                        p.setInt(1, run);
                        try (ResultSet rs = p.executeQuery()) {
                            result.addAll(ResultDump.columns(rs.getMetaData()));
                            result.addAll(typedRows(rs));
                        } catch (SQLException e) {
                            result.add(ResultDump.error(e));
                        }
                    }
                }
            }
            return result;
        });
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("modes")
    void enumDomainAndCompositeColumnsEqualTheServers(ClientMode mode) throws SQLException {
        String suffix = mode.suffix();
        executeDirect("DROP TABLE IF EXISTS custom_" + suffix + "; DROP TYPE IF EXISTS mood_" + suffix
                + "; DROP DOMAIN IF EXISTS positive_" + suffix + "; DROP TYPE IF EXISTS pair_" + suffix + ";"
                + " CREATE TYPE mood_" + suffix + " AS ENUM ('sad', 'ok', 'happy');"
                + " CREATE DOMAIN positive_" + suffix + " AS int CHECK (VALUE > 0);"
                + " CREATE TYPE pair_" + suffix + " AS (a int, b text);"
                + " CREATE TABLE custom_" + suffix + " (id serial PRIMARY KEY, m mood_" + suffix + ", p positive_" + suffix
                + ", c pair_" + suffix + ", ms mood_" + suffix + "[]);"
                + " INSERT INTO custom_" + suffix + " (m, p, c, ms) VALUES ('happy', 5, ROW(1, 'one'), '{sad,ok}'),"
                + " (NULL, NULL, NULL, NULL)");
        sameAsDirect(mode, c -> {
            List<String> result = new ArrayList<>();
            try (PreparedStatement p = c.prepareStatement("SELECT * FROM custom_" + suffix + " WHERE id >= ? ORDER BY id")) {
                for (int run = 0; run < 2; run++) {
                    p.setInt(1, 1);
                    try (ResultSet rs = p.executeQuery()) {
                        result.addAll(ResultDump.columns(rs.getMetaData()));
                        result.addAll(ResultDump.rows(rs));
                    }
                }
            }
            try (PreparedStatement p = c.prepareStatement("INSERT INTO custom_" + suffix + " (m, p) VALUES (?::mood_" + suffix
                    + ", ?)")) {
                p.setString(1, "ok");
                p.setInt(2, -1);
                result.add(ResultDump.attempt(p::executeUpdate));
                p.setString(1, "angry");
                p.setInt(2, 1);
                result.add(ResultDump.attempt(p::executeUpdate));
            }
            return result;
        });
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("modes")
    void statementMetaDataBeforeExecutionEqualsTheServers(ClientMode mode) throws SQLException {
        String table = "describe_" + mode.suffix();
        executeDirect("DROP TABLE IF EXISTS " + table + "; CREATE TABLE " + table
                + " (id int PRIMARY KEY, name varchar(20) NOT NULL, amount numeric(10, 3), at timestamptz)");
        sameAsDirect(mode, c -> {
            List<String> result = new ArrayList<>();
            for (String sql : new String[] {
                    "SELECT id, name, amount, at, amount * 2 AS doubled FROM " + table + " WHERE id = ? AND name <> ?",
                    "UPDATE " + table + " SET amount = ? WHERE id = ?",
                    "INSERT INTO " + table + " VALUES (?, ?, ?, ?) RETURNING id, at"}) {
                try (PreparedStatement p = c.prepareStatement(sql)) {
                    result.add(sql);
                    // pgjdbc cannot describe over the simple protocol (it fails an assertion).
                    if (!mode.queryMode().equals("simple")) {
                        result.add("columns: " + ResultDump.attempt(() -> {
                            var metaData = p.getMetaData();
                            return metaData == null ? "none" : ResultDump.columns(metaData).toString();
                        }));
                        result.add("parameters: " + ResultDump.attempt(() -> {
                            var metaData = p.getParameterMetaData();
                            List<String> types = new ArrayList<>();
                            for (int i = 1; i <= metaData.getParameterCount(); i++) {
                                types.add(metaData.getParameterTypeName(i) + "/" + metaData.getParameterType(i));
                            }
                            return types.toString();
                        }));
                    }
                }
            }
            return result;
        });
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("modes")
    void maxRowsLimitsTheRowsAsOnTheServer(ClientMode mode) throws SQLException {
        // pgjdbc applies maxRows only over the extended protocol (Execute's row limit); over the simple one it reads all.
        sameAsDirect(mode, c -> {
            List<String> result = new ArrayList<>();
            try (PreparedStatement p = c.prepareStatement("SELECT g FROM generate_series(1, ?) g ORDER BY g")) {
                p.setMaxRows(5);
                for (int run = 0; run < 2; run++) {
                    p.setInt(1, 100);
                    try (ResultSet rs = p.executeQuery()) {
                        result.addAll(ResultDump.rows(rs));
                    }
                }
            }
            try (Statement s = c.createStatement()) {
                s.setMaxRows(3);
                try (ResultSet rs = s.executeQuery("SELECT g FROM generate_series(1, 50) g ORDER BY g")) {
                    result.addAll(ResultDump.rows(rs));
                }
            }
            return result;
        });
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("modes")
    void noticesAndEmptyStatementsLookTheSame(ClientMode mode) throws SQLException {
        sameAsDirect(mode, c -> {
            List<String> result = new ArrayList<>();
            try (Statement s = c.createStatement()) {
                s.execute("DO $$ BEGIN RAISE NOTICE 'hello %', 42; RAISE WARNING 'careful'; END $$");
                for (SQLWarning w = s.getWarnings(); w != null; w = w.getNextWarning()) {
                    result.add("warning " + w.getSQLState() + " " + w.getMessage());
                }
                for (String sql : new String[] {"", " ", ";", "-- only a comment", "/* block */ ;"}) {
                    result.add("[" + sql + "] " + ResultDump.attempt(() -> s.execute(sql) + " " + s.getUpdateCount()));
                }
            }
            try (PreparedStatement p = c.prepareStatement("SELECT set_config('client_min_messages', ?, false)")) {
                p.setString(1, "warning");
                result.add(ResultDump.attempt(() -> {
                    try (ResultSet rs = p.executeQuery()) {
                        return ResultDump.rows(rs);
                    }
                }));
            }
            try (Statement s = c.createStatement()) {
                s.execute("DO $$ BEGIN RAISE NOTICE 'now hidden'; RAISE WARNING 'still shown'; END $$");
                for (SQLWarning w = s.getWarnings(); w != null; w = w.getNextWarning()) {
                    result.add("warning " + w.getSQLState() + " " + w.getMessage());
                }
            }
            return result;
        });
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("modes")
    void largeValuesAndManyRowsArriveWhole(ClientMode mode) throws SQLException {
        sameAsDirect(mode, c -> {
            List<String> result = new ArrayList<>();
            try (PreparedStatement p = c.prepareStatement("SELECT repeat(?, 2000000) AS big_text,"
                    + " decode(repeat('00ff7f80', 500000), 'hex') AS big_bytes")) {
                p.setString(1, "ab\u00e9");
                for (int run = 0; run < 2; run++) {
                    try (ResultSet rs = p.executeQuery()) {
                        assertTrue(rs.next());
                        String text = rs.getString(1);
                        byte[] bytes = rs.getBytes(2);
                        result.add(text.length() + " " + text.hashCode() + " " + bytes.length + " " + Arrays.hashCode(bytes));
                    }
                }
            }
            try (PreparedStatement p = c.prepareStatement("SELECT g, md5(g::text) FROM generate_series(1, ?) g ORDER BY g")) {
                p.setInt(1, 200_000);
                try (ResultSet rs = p.executeQuery()) {
                    long rows = 0;
                    long hash = 17;
                    while (rs.next()) {
                        rows++;
                        hash = hash * 31 + rs.getInt(1) * 7L + rs.getString(2).hashCode();
                    }
                    result.add(rows + " rows, hash " + hash);
                }
            }
            return result;
        });
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("modes")
    void thousandParametersBindAsOnTheServer(ClientMode mode) throws SQLException {
        StringBuilder sql = new StringBuilder("SELECT count(*), sum(g) FROM generate_series(1, 5000) g WHERE g IN (");
        for (int i = 0; i < 1000; i++) {
            sql.append(i == 0 ? "?" : ", ?");
        }
        sql.append(')');
        List<String> answer = sameAsDirect(mode, c -> {
            try (PreparedStatement p = c.prepareStatement(sql.toString())) {
                List<String> result = new ArrayList<>();
                for (int run = 0; run < 2; run++) {
                    for (int i = 1; i <= 1000; i++) {
                        p.setInt(i, i * 3 + run);
                    }
                    try (ResultSet rs = p.executeQuery()) {
                        result.addAll(ResultDump.rows(rs));
                    }
                }
                return result;
            }
        });
        assertTrue(answer.get(0).startsWith("count=Long:1000 "), answer.get(0));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("modes")
    void temporaryTableAndSqlPrepareStayWithTheSession(ClientMode mode) throws SQLException {
        List<Connection> others = new ArrayList<>();
        try (Connection c = proxy(mode)) {
            execute(c, "CREATE TEMP TABLE scratch (v int)");
            execute(c, "INSERT INTO scratch VALUES (1), (2)");
            execute(c, "PREPARE twice (int) AS SELECT $1 * 2");
            for (int i = 0; i < 4; i++) {
                Connection other = proxy(mode);
                others.add(other);
                other.setAutoCommit(false);
                execute(other, "SELECT 1");
                execute(c, "INSERT INTO scratch VALUES (" + (i + 3) + ")");
                try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT count(*) FROM scratch")) {
                    assertTrue(rs.next());
                    assertEquals(i + 3, rs.getInt(1));
                }
                try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("EXECUTE twice(" + i + ")")) {
                    assertTrue(rs.next());
                    assertEquals(i * 2, rs.getInt(1));
                }
            }
        } finally {
            for (Connection other : others) {
                other.close();
            }
        }
        try (Connection c = proxy(mode)) {
            // A new session sees neither the temporary table nor the prepared statement of the closed one.
            assertSqlState("42P01", () -> execute(c, "SELECT * FROM scratch"));
            assertSqlState("26000", () -> execute(c, "EXECUTE twice(1)"));
        }
    }

    // ------------------------------------------------------------------ transactions

    @ParameterizedTest(name = "{0}")
    @MethodSource("modes")
    void committedRowsAreVisibleToOtherSessionsAndUncommittedAreNot(ClientMode mode) throws SQLException {
        String table = "commit_" + mode.suffix();
        executeDirect("DROP TABLE IF EXISTS " + table + "; CREATE TABLE " + table + " (id int PRIMARY KEY)");
        try (Connection writer = proxy(mode); Connection reader = proxy(mode)) {
            writer.setAutoCommit(false);
            try (PreparedStatement p = writer.prepareStatement("INSERT INTO " + table + " VALUES (?)")) {
                p.setInt(1, 1);
                p.executeUpdate();
                p.setInt(1, 2);
                p.executeUpdate();
            }
            assertEquals(2, count(writer, table));
            assertEquals(0, count(reader, table));
            writer.commit();
            assertEquals(2, count(reader, table));
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("modes")
    void rollbackDiscardsTheTransactionsRows(ClientMode mode) throws SQLException {
        String table = "rollback_" + mode.suffix();
        executeDirect("DROP TABLE IF EXISTS " + table + "; CREATE TABLE " + table + " (id int PRIMARY KEY)");
        try (Connection c = proxy(mode)) {
            c.setAutoCommit(false);
            execute(c, "INSERT INTO " + table + " VALUES (1), (2), (3)");
            assertEquals(3, count(c, table));
            c.rollback();
            assertEquals(0, count(c, table));
            c.commit();
        }
        try (Connection c = server.direct("")) {
            assertEquals(0, count(c, table));
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("modes")
    void rollbackToSavepointKeepsTheRowsBeforeIt(ClientMode mode) throws SQLException {
        String table = "savepoint_" + mode.suffix();
        executeDirect("DROP TABLE IF EXISTS " + table + "; CREATE TABLE " + table + " (id int PRIMARY KEY)");
        try (Connection c = proxy(mode)) {
            c.setAutoCommit(false);
            execute(c, "INSERT INTO " + table + " VALUES (1)");
            Savepoint first = c.setSavepoint("first");
            execute(c, "INSERT INTO " + table + " VALUES (2)");
            Savepoint second = c.setSavepoint();
            execute(c, "INSERT INTO " + table + " VALUES (3)");
            c.rollback(second);
            assertEquals(2, count(c, table));
            c.rollback(first);
            assertEquals(1, count(c, table));
            execute(c, "INSERT INTO " + table + " VALUES (4)");
            Savepoint third = c.setSavepoint();
            assertSqlState("23505", () -> execute(c, "INSERT INTO " + table + " VALUES (4)"));
            c.rollback(third);
            c.releaseSavepoint(first);
            c.commit();
        }
        try (Connection c = server.direct(""); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT string_agg(id::text, ',' ORDER BY id) FROM " + table)) {
            assertTrue(rs.next());
            assertEquals("1,4", rs.getString(1));
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("modes")
    void transactionIsolationLevelIsTheOneAskedFor(ClientMode mode) throws SQLException {
        try (Connection c = proxy(mode); Connection other = proxy(mode)) {
            c.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);
            assertEquals(Connection.TRANSACTION_SERIALIZABLE, c.getTransactionIsolation());
            // Autocommit: each statement may run on another backend connection, and must still see the level.
            other.setAutoCommit(false);
            execute(other, "SELECT 1");
            for (int i = 0; i < 3; i++) {
                assertEquals("serializable", show(c, "transaction_isolation"));
            }
            other.rollback();
            c.setAutoCommit(false);
            c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            assertEquals("repeatable read", show(c, "transaction_isolation"));
            c.commit();
            c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            assertEquals("read committed", show(c, "transaction_isolation"));
            c.commit();
        }
    }

    private static String show(Connection c, String setting) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SHOW " + setting)) {
            assertTrue(rs.next());
            return rs.getString(1);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("modes")
    void readOnlyTransactionRefusesWrites(ClientMode mode) throws SQLException {
        String table = "readonly_" + mode.suffix();
        executeDirect("DROP TABLE IF EXISTS " + table + "; CREATE TABLE " + table + " (id int)");
        try (Connection c = proxy(mode)) {
            c.setAutoCommit(false);
            c.setReadOnly(true);
            assertEquals("on", show(c, "transaction_read_only"));
            assertSqlState("25006", () -> execute(c, "INSERT INTO " + table + " VALUES (1)"));
            c.rollback();
            c.setReadOnly(false);
            execute(c, "INSERT INTO " + table + " VALUES (2)");
            assertEquals("off", show(c, "transaction_read_only"));
            c.commit();
            assertEquals(1, count(c, table));
        }
    }

    // ------------------------------------------------------------------ errors

    @ParameterizedTest(name = "{0}")
    @MethodSource("modes")
    void errorsCarryTheServersSqlStateAndFields(ClientMode mode) throws SQLException {
        String table = "errors_" + mode.suffix();
        executeDirect("DROP TABLE IF EXISTS " + table + "; CREATE TABLE " + table + " (id int PRIMARY KEY); INSERT INTO "
                + table + " VALUES (1)");
        List<String[]> cases = List.of(
                new String[] {"42P01", "SELECT * FROM no_such_table_" + mode.suffix()},
                new String[] {"23505", "INSERT INTO " + table + " VALUES (1)"},
                new String[] {"22012", "SELECT 1 / 0"},
                new String[] {"42601", "SELEC 1"},
                new String[] {"42703", "SELECT no_such_column FROM " + table},
                new String[] {"22P02", "SELECT 'abc'::int"});
        List<String> answer = sameAsDirect(mode, c -> {
            List<String> result = new ArrayList<>();
            for (String[] each : cases) {
                for (boolean prepared : new boolean[] {false, true}) {
                    SQLException e;
                    if (prepared) {
                        e = assertThrows(SQLException.class, () -> {
                            try (PreparedStatement p = c.prepareStatement(each[1])) {
                                p.execute();
                            }
                        });
                    } else {
                        e = assertThrows(SQLException.class, () -> execute(c, each[1]));
                    }
                    assertEquals(each[0], e.getSQLState(), () -> each[1] + ": " + ResultDump.error(e));
                    result.add(ResultDump.error(e));
                    assertEquals(1, count(c, table));
                }
            }
            return result;
        });
        assertEquals(12, answer.size());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("modes")
    void failedTransactionRefusesStatementsUntilRollback(ClientMode mode) throws SQLException {
        String table = "failed_" + mode.suffix();
        executeDirect("DROP TABLE IF EXISTS " + table + "; CREATE TABLE " + table + " (id int PRIMARY KEY)");
        try (Connection c = proxy(mode)) {
            c.setAutoCommit(false);
            execute(c, "INSERT INTO " + table + " VALUES (1)");
            assertSqlState("22012", () -> execute(c, "SELECT 1 / 0"));
            assertSqlState("25P02", () -> execute(c, "SELECT 1"));
            assertSqlState("25P02", () -> {
                try (PreparedStatement p = c.prepareStatement("INSERT INTO " + table + " VALUES (?)")) {
                    p.setInt(1, 2);
                    p.executeUpdate();
                }
            });
            c.rollback();
            assertEquals(0, count(c, table));
            execute(c, "INSERT INTO " + table + " VALUES (3)");
            c.commit();
        }
        try (Connection c = server.direct("")) {
            assertEquals(1, count(c, table));
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("modes")
    void commitOfFailedTransactionRollsBackAsOnTheServer(ClientMode mode) throws SQLException {
        String table = "failcommit_" + mode.suffix();
        executeDirect("DROP TABLE IF EXISTS " + table + "; CREATE TABLE " + table + " (id int PRIMARY KEY)");
        // With raiseExceptionOnSilentRollback, pgjdbc reads COMMIT's command tag: ROLLBACK means the commit failed.
        List<String> answer = sameAsDirect(mode, "&raiseExceptionOnSilentRollback=true", c -> {
            List<String> result = new ArrayList<>();
            c.setAutoCommit(false);
            execute(c, "INSERT INTO " + table + " VALUES (1)");
            assertThrows(SQLException.class, () -> execute(c, "SELECT 1 / 0"));
            result.add("commit: " + ResultDump.attempt(() -> {
                c.commit();
                return "committed";
            }));
            result.add("rows " + count(c, table));
            c.commit();
            execute(c, "INSERT INTO " + table + " VALUES (2)");
            c.commit();
            result.add("rows " + count(c, table));
            execute(c, "DELETE FROM " + table);
            c.commit();
            return result;
        });
        assertEquals(List.of("rows 0", "rows 1"), answer.subList(1, 3));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("modes")
    void autosaveRecoversFromAnErrorInTheMiddleOfATransaction(ClientMode mode) throws SQLException {
        String table = "autosave_" + mode.suffix();
        executeDirect("DROP TABLE IF EXISTS " + table + "; CREATE TABLE " + table + " (id int PRIMARY KEY)");
        try (Connection c = server.proxy(mode.urlParameters() + "&autosave=always")) {
            c.setAutoCommit(false);
            execute(c, "INSERT INTO " + table + " VALUES (1)");
            assertSqlState("22012", () -> execute(c, "SELECT 1 / 0"));
            assertSqlState("23505", () -> execute(c, "INSERT INTO " + table + " VALUES (1)"));
            try (PreparedStatement p = c.prepareStatement("INSERT INTO " + table + " VALUES (?)")) {
                p.setInt(1, 2);
                assertEquals(1, p.executeUpdate());
            }
            c.commit();
        }
        try (Connection c = server.direct("")) {
            assertEquals(2, count(c, table));
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("modes")
    void statementTimeoutCancelsWith57014AndTheSessionGoesOn(ClientMode mode) throws SQLException {
        try (Connection c = proxy(mode)) {
            execute(c, "SET statement_timeout = '300ms'");
            assertEquals("300ms", show(c, "statement_timeout"));
            assertSqlState("57014", () -> {
                try (PreparedStatement p = c.prepareStatement("SELECT pg_sleep(?)")) {
                    p.setDouble(1, 20);
                    p.execute();
                }
            });
            assertSqlState("57014", () -> execute(c, "SELECT pg_sleep(20)"));
            execute(c, "RESET statement_timeout");
            assertEquals("0", show(c, "statement_timeout"));
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("modes")
    void cancelFromAnotherThreadStopsTheStatementAndTheSessionGoesOn(ClientMode mode) throws Exception {
        try (Connection c = proxy(mode); PreparedStatement sleep = c.prepareStatement("SELECT pg_sleep(30)")) {
            Future<?> running = threads.submit(() -> {
                sleep.execute();
                return null;
            });
            // A cancel that reaches the proxy before the statement reaches the backend cancels nothing: retry.
            for (int attempt = 0; attempt < 50 && !running.isDone(); attempt++) {
                Thread.sleep(200);
                if (!running.isDone()) {
                    sleep.cancel();
                }
            }
            ExecutionException failed = assertThrows(ExecutionException.class,
                    () -> running.get(20, TimeUnit.SECONDS));
            SQLException e = assertInstanceOf(SQLException.class, failed.getCause());
            assertEquals("57014", e.getSQLState(), () -> ResultDump.error(e));
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT 7")) {
                assertTrue(rs.next());
                assertEquals(7, rs.getInt(1));
            }
        }
    }

    // ------------------------------------------------------------------ session settings

    @ParameterizedTest(name = "{0}")
    @MethodSource("modes")
    void setSettingsFollowTheSessionAcrossBackendConnections(ClientMode mode) throws SQLException {
        String schema = "sp_" + mode.suffix();
        executeDirect("DROP SCHEMA IF EXISTS " + schema + " CASCADE; CREATE SCHEMA " + schema + "; CREATE TABLE " + schema
                + ".only_here (v text); INSERT INTO " + schema + ".only_here VALUES ('found " + schema + "')");
        List<Connection> others = new ArrayList<>();
        try (Connection c = proxy(mode)) {
            execute(c, "SET search_path TO " + schema + ", public");
            execute(c, "SET TimeZone TO 'Asia/Tokyo'");
            execute(c, "SET application_name TO 'it " + mode.suffix() + "'");
            Set<Integer> backendPids = new LinkedHashSet<>();
            String sql = "SELECT pg_backend_pid(), current_setting('search_path'), current_setting('TimeZone'),"
                    + " current_setting('application_name'), (SELECT v FROM only_here),"
                    + " '2020-01-01 00:00:00+00'::timestamptz::text";
            for (int i = 0; i < 5; i++) {
                // Each other session holds a backend connection in a transaction, so the pool hands this one another.
                Connection other = proxy(mode);
                others.add(other);
                other.setAutoCommit(false);
                execute(other, "SELECT 1");
                try (PreparedStatement p = c.prepareStatement(sql); ResultSet rs = p.executeQuery()) {
                    assertTrue(rs.next());
                    backendPids.add(rs.getInt(1));
                    assertEquals(schema + ", public", rs.getString(2));
                    assertEquals("Asia/Tokyo", rs.getString(3));
                    assertEquals("it " + mode.suffix(), rs.getString(4));
                    assertEquals("found " + schema, rs.getString(5));
                    assertEquals("2020-01-01 09:00:00+09", rs.getString(6));
                }
            }
            assertTrue(backendPids.size() >= 2, "the session never ran on another backend connection: " + backendPids);
            PGConnection pg = c.unwrap(PGConnection.class);
            assertEquals("Asia/Tokyo", pg.getParameterStatus("TimeZone"));
            assertEquals("it " + mode.suffix(), pg.getParameterStatus("application_name"));
        } finally {
            for (Connection other : others) {
                other.close();
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("modes")
    void resetAllRestoresWhatTheServerWouldRestore(ClientMode mode) throws SQLException {
        sameAsDirect(mode, c -> {
            execute(c, "SET search_path TO pg_catalog");
            execute(c, "SET TimeZone TO 'America/New_York'");
            execute(c, "SET application_name TO 'changed'");
            execute(c, "SET statement_timeout TO '5min'");
            execute(c, "SET extra_float_digits TO 1");
            execute(c, "RESET ALL");
            List<String> result = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT current_setting('search_path'),"
                        + " current_setting('TimeZone'), current_setting('application_name'),"
                        + " current_setting('statement_timeout'), current_setting('extra_float_digits'),"
                        + " current_setting('DateStyle'), 0.1::float8::text")) {
                    result.addAll(ResultDump.rows(rs));
                }
            }
            PGConnection pg = c.unwrap(PGConnection.class);
            result.add("reported TimeZone=" + pg.getParameterStatus("TimeZone")
                    + " application_name=" + pg.getParameterStatus("application_name"));
            return result;
        });
    }

    // ------------------------------------------------------------------ metadata

    @ParameterizedTest(name = "{0}")
    @MethodSource("modes")
    void databaseMetaDataAndVersionAreTheServers(ClientMode mode) throws SQLException {
        String table = "meta_" + mode.suffix();
        executeDirect("DROP TABLE IF EXISTS " + table + "; CREATE TABLE " + table
                + " (id bigserial PRIMARY KEY, name varchar(30) NOT NULL DEFAULT 'x', price numeric(10, 2), tags text[]);"
                + " COMMENT ON TABLE " + table + " IS 'metadata test'");
        List<String> answer = sameAsDirect(mode, c -> {
            List<String> result = new ArrayList<>();
            DatabaseMetaData metaData = c.getMetaData();
            result.add("product " + metaData.getDatabaseProductName() + " " + metaData.getDatabaseProductVersion()
                    + " " + metaData.getDatabaseMajorVersion() + "." + metaData.getDatabaseMinorVersion());
            try (ResultSet rs = metaData.getTables(null, "public", table, new String[] {"TABLE"})) {
                result.addAll(ResultDump.rows(rs));
            }
            try (ResultSet rs = metaData.getColumns(null, "public", table, "%")) {
                result.addAll(ResultDump.rows(rs));
            }
            try (ResultSet rs = metaData.getPrimaryKeys(null, "public", table)) {
                result.addAll(ResultDump.rows(rs));
            }
            try (Statement s = c.createStatement()) {
                try (ResultSet rs = s.executeQuery("SELECT version()")) {
                    result.addAll(ResultDump.rows(rs));
                }
                try (ResultSet rs = s.executeQuery("SHOW server_version")) {
                    result.addAll(ResultDump.rows(rs));
                }
            }
            return result;
        });
        assertTrue(answer.get(1).contains("TABLE_NAME=String:" + table), answer.get(1));
        assertTrue(answer.stream().anyMatch(line -> line.startsWith("version=String:PostgreSQL ")), answer.toString());
    }
}
