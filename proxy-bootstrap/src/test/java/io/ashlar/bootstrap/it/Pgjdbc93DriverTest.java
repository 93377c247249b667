package io.ashlar.bootstrap.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.BatchUpdateException;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.Date;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Statement;
import java.sql.Time;
import java.sql.Timestamp;
import java.sql.Types;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * pgjdbc 9.3-1102, the driver BenchmarkSQL 5.0 ships (before SCRAM, before pgjdbc 42), through the proxy in
 * every mode it has, compared value by value with the same driver connected straight to PostgreSQL: query
 * results of the common types with their metadata and transfer format, prepared statements with parameters
 * (unnamed, then named and binary once {@code prepareThreshold} is reached), batches, transactions,
 * RETURNING, DatabaseMetaData, NOTICEs, and errors with their SQLSTATE; over a pooled database and a
 * sharded one. It logs in with the MD5 that a user whose configuration names no method is asked for, and a
 * user configured for SCRAM-SHA-256 gets the driver's own "authentication type 10 is not supported", as
 * from PostgreSQL with {@code scram-sha-256} in pg_hba.conf.
 *
 * <p>The driver compares server versions as text, so it takes PostgreSQL 10 and later for a server older
 * than 7.3: it refuses savepoints and generated keys and skips some SETs, directly as through the proxy
 * (which reports the backend's {@code server_version}); the tests write these refusals down like any other
 * outcome. BenchmarkSQL needs none of them.
 *
 * <p>The driver's modes: {@code prepareThreshold} (0 never names a statement, 1 from the first execution,
 * 5 its default), {@code binaryTransfer} (on by default: binary results for named statements),
 * {@code stringtype} ({@code varchar} or {@code unspecified}), {@code protocolVersion} (3, or 2, which
 * PostgreSQL 14 and later refuse) and {@code loglevel}. The embedded server is PostgreSQL 14.
 *
 * @see <a href="https://jdbc.postgresql.org/documentation/93/connect.html">pgjdbc 9.3: connection parameters</a>
 */
final class Pgjdbc93DriverTest {

    /** One configuration of the 9.3 driver: its connection properties beyond user and password. */
    record Mode(String name, Map<String, String> properties) {

        @Override
        public String toString() {
            return name;
        }
    }

    static List<Mode> modes() {
        return List.of(
                new Mode("defaults (BenchmarkSQL)", Map.of()),
                new Mode("prepareThreshold=0", Map.of("prepareThreshold", "0")),
                new Mode("prepareThreshold=1", Map.of("prepareThreshold", "1")),
                new Mode("prepareThreshold=1 binaryTransfer=false", Map.of("prepareThreshold", "1", "binaryTransfer", "false")),
                new Mode("prepareThreshold=5 binaryTransfer=false", Map.of("prepareThreshold", "5", "binaryTransfer", "false")),
                new Mode("stringtype=unspecified prepareThreshold=1", Map.of("stringtype", "unspecified", "prepareThreshold", "1")),
                new Mode("protocolVersion=3 loglevel=0", Map.of("protocolVersion", "3", "loglevel", "0")));
    }

    /** Runs often enough to pass the default prepareThreshold of 5: the last ones use a named statement. */
    private static final int EXECUTIONS = 7;

    private static ProxiedPostgres server;

    /**
     * The backend asks the same users as the proxy for the same methods (pg_hba.conf), so that a login's
     * outcome can be compared too: MD5 for {@value ProxiedPostgres#MD5_USER} and
     * {@value ProxiedPostgres#DEFAULT_METHOD_USER}, SCRAM for {@value ProxiedPostgres#SCRAM_USER}, clear text for
     * {@value ProxiedPostgres#PASSWORD_USER}; {@code postgres} (the proxy's backend user) is trusted.
     */
    @BeforeAll
    static void start() throws Exception {
        Path hba = Files.createTempFile("pgjdbc93-hba", ".conf");
        hba.toFile().deleteOnExit();
        Files.writeString(hba, String.join("\n",
                "host all " + ProxiedPostgres.SCRAM_USER + " 127.0.0.1/32 scram-sha-256",
                "host all " + ProxiedPostgres.MD5_USER + " 127.0.0.1/32 md5",
                "host all " + ProxiedPostgres.DEFAULT_METHOD_USER + " 127.0.0.1/32 md5",
                "host all " + ProxiedPostgres.PASSWORD_USER + " 127.0.0.1/32 password",
                "host all all 127.0.0.1/32 trust",
                "host all all ::1/128 trust",
                "local all all trust", ""));
        server = ProxiedPostgres.start(Map.of("hba_file", hba.toString()));
        try (Connection c = server.direct(""); Statement s = c.createStatement()) {
            s.execute("SET password_encryption = 'scram-sha-256'");
            createRole(s, ProxiedPostgres.SCRAM_USER);
            s.execute("SET password_encryption = 'md5'");
            createRole(s, ProxiedPostgres.MD5_USER);
            createRole(s, ProxiedPostgres.DEFAULT_METHOD_USER);
            createRole(s, ProxiedPostgres.PASSWORD_USER);
            s.execute("DROP TABLE IF EXISTS t93_types");
            s.execute("CREATE TABLE t93_types (" + TYPES_COLUMNS + ")");
            s.execute("INSERT INTO t93_types VALUES " + TYPES_ROWS);
        }
    }

    private static void createRole(Statement s, String user) throws SQLException {
        s.execute("CREATE ROLE " + user + " LOGIN PASSWORD '" + ProxiedPostgres.password(user) + "'");
    }

    @AfterAll
    static void stop() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    private static Properties properties(Mode mode, String user, String password) {
        Properties result = new Properties();
        result.putAll(mode.properties());
        result.setProperty("user", user);
        result.setProperty("password", password);
        result.setProperty("loginTimeout", "20");
        result.setProperty("socketTimeout", "60");
        return result;
    }

    /** Through the proxy as the user whose configuration names no method (so: MD5). */
    private static Connection proxy(Mode mode) throws SQLException {
        return Pgjdbc93.connect(server.proxyUrl(""), properties(mode, ProxiedPostgres.DEFAULT_METHOD_USER,
                ProxiedPostgres.password(ProxiedPostgres.DEFAULT_METHOD_USER)));
    }

    private static Connection direct(Mode mode) throws SQLException {
        return Pgjdbc93.connect(server.directUrl(""), properties(mode, ProxiedPostgres.BACKEND_USER, ""));
    }

    /** JDBC work whose every observation is written down, so that two runs compare with one assertEquals. */
    interface Work {
        void run(Connection connection, List<String> seen) throws SQLException;
    }

    /** Runs the work straight against PostgreSQL, then through the proxy, and asserts the client saw the same. */
    private static List<String> sameAsDirect(Mode mode, Work work) throws SQLException {
        List<String> expected = new ArrayList<>();
        try (Connection c = direct(mode)) {
            work.run(c, expected);
        }
        List<String> actual = new ArrayList<>();
        try (Connection c = proxy(mode)) {
            work.run(c, actual);
        }
        assertEquals(String.join("\n", expected), String.join("\n", actual), "pgjdbc 9.3 (" + mode + ") through the proxy versus directly");
        return actual;
    }

    /** Writes down the call's result, or its failure with SQLSTATE and message. */
    private static void see(List<String> seen, String label, ResultDump.SqlCall<?> call) {
        seen.add(label + ": " + ResultDump.attempt(call));
    }

    /** Executes the SQL and writes down the warnings it gave (NOTICEs), or its failure. */
    private static void execute(Connection c, List<String> seen, String sql) {
        see(seen, sql, () -> {
            try (Statement s = c.createStatement()) {
                s.execute(sql);
                return warnings(s.getWarnings());
            }
        });
    }

    private static String warnings(SQLWarning warning) {
        List<String> result = new ArrayList<>();
        for (SQLWarning each = warning; each != null; each = each.getNextWarning()) {
            result.add("[" + each.getSQLState() + "] " + each.getMessage());
        }
        return result.toString();
    }

    /** Runs the batch and writes down its update counts, or its failure with the counts and the cause it carries. */
    private static void executeBatch(List<String> seen, String label, Statement batch) {
        String outcome;
        try {
            outcome = Arrays.toString(batch.executeBatch());
        } catch (BatchUpdateException e) {
            SQLException cause = e.getNextException();
            outcome = "BatchUpdateException[" + e.getSQLState() + "] " + e.getMessage() + " counts=" + Arrays.toString(e.getUpdateCounts())
                    + " cause=" + (cause == null ? "none" : "[" + cause.getSQLState() + "] " + cause.getMessage());
        } catch (SQLException e) {
            outcome = "SQLException[" + e.getSQLState() + "] " + e.getMessage();
        }
        seen.add(label + ": " + outcome);
    }

    /**
     * Column metadata through java.sql only (the driver's own classes are not ours to cast to). With
     * {@code ofTable}, also what the driver looks up by the table OID and column number of RowDescription.
     */
    private static List<String> columns(ResultSetMetaData metaData, boolean ofTable) throws SQLException {
        List<String> result = new ArrayList<>();
        for (int i = 1; i <= metaData.getColumnCount(); i++) {
            int column = i;
            result.add(metaData.getColumnLabel(i) + " type=" + metaData.getColumnType(i) + " typeName="
                    + metaData.getColumnTypeName(i)
                    + " class=" + ResultDump.attempt(() -> metaData.getColumnClassName(column))
                    + " precision=" + ResultDump.attempt(() -> metaData.getPrecision(column))
                    + " scale=" + ResultDump.attempt(() -> metaData.getScale(column))
                    + " displaySize=" + ResultDump.attempt(() -> metaData.getColumnDisplaySize(column))
                    + " format=" + ResultDump.attempt(() -> Pgjdbc93.format(metaData, column))
                    + (ofTable ? " nullable=" + ResultDump.attempt(() -> metaData.isNullable(column))
                            + " autoIncrement=" + ResultDump.attempt(() -> metaData.isAutoIncrement(column))
                            + " table=" + ResultDump.attempt(() -> metaData.getTableName(column))
                            + " schema=" + ResultDump.attempt(() -> metaData.getSchemaName(column)) : ""));
        }
        return result;
    }

    /** Every row: each column through getObject, getString and the getter of its JDBC type. */
    private static List<String> rows(ResultSet rs) throws SQLException {
        ResultSetMetaData metaData = rs.getMetaData();
        List<String> result = new ArrayList<>();
        while (rs.next()) {
            StringBuilder row = new StringBuilder();
            for (int i = 1; i <= metaData.getColumnCount(); i++) {
                int column = i;
                row.append(metaData.getColumnLabel(i)).append('=').append(ResultDump.attempt(() -> rs.getObject(column)))
                        .append(" | str=").append(ResultDump.attempt(() -> rs.getString(column)));
                switch (metaData.getColumnType(i)) {
                    case Types.SMALLINT, Types.INTEGER -> row.append(" | ").append(ResultDump.attempt(() -> rs.getInt(column)));
                    case Types.BIGINT -> row.append(" | ").append(ResultDump.attempt(() -> rs.getLong(column)));
                    case Types.REAL, Types.DOUBLE -> row.append(" | ").append(ResultDump.attempt(() -> rs.getDouble(column)));
                    case Types.NUMERIC -> row.append(" | ").append(ResultDump.attempt(() -> rs.getBigDecimal(column)));
                    case Types.BIT, Types.BOOLEAN -> row.append(" | ").append(ResultDump.attempt(() -> rs.getBoolean(column)));
                    case Types.BINARY -> row.append(" | ").append(ResultDump.attempt(() -> rs.getBytes(column)));
                    case Types.DATE -> row.append(" | ").append(ResultDump.attempt(() -> rs.getDate(column)));
                    case Types.TIME -> row.append(" | ").append(ResultDump.attempt(() -> rs.getTime(column)));
                    case Types.TIMESTAMP -> row.append(" | ").append(ResultDump.attempt(() -> rs.getTimestamp(column)));
                    case Types.ARRAY -> row.append(" | ").append(ResultDump.attempt(() -> rs.getArray(column)));
                    default -> { }
                }
                row.append(" | null=").append(ResultDump.attempt(rs::wasNull)).append("; ");
            }
            result.add(row.toString());
        }
        return result;
    }

    private static void query(List<String> seen, String label, ResultDump.SqlCall<ResultSet> call) {
        query(seen, label, true, call);
    }

    private static void query(List<String> seen, String label, boolean ofTable, ResultDump.SqlCall<ResultSet> call) {
        see(seen, label, () -> {
            try (ResultSet rs = call.call()) {
                List<String> result = new ArrayList<>(columns(rs.getMetaData(), ofTable));
                result.addAll(rows(rs));
                return String.join("\n  ", result);
            }
        });
    }

    private static final String TYPES_COLUMNS = "id int PRIMARY KEY, c_int2 int2, c_int4 int4, c_int8 int8, c_float4 float4,"
            + " c_float8 float8, c_bool bool, c_numeric numeric(20, 6), c_numeric_any numeric, c_text text, c_varchar varchar(40),"
            + " c_char char(3), c_bytea bytea, c_date date, c_time time, c_timetz timetz, c_timestamp timestamp,"
            + " c_timestamptz timestamptz, c_interval interval, c_uuid uuid, c_json json, c_jsonb jsonb, c_oid oid,"
            + " c_int_array int4[], c_text_array text[]";

    private static final String TYPES_ROWS = """
            (1, 12, 123456, 1234567890123, 1.5, 2.25, true, 12345.6789, -0.000001234, 'héllo wörld ✓', 'varchar value', 'ab',
             '\\x0001ff5c27', '2024-02-29', '13:45:30.25', '13:45:30+05:30', '2024-02-29 13:45:30.123456',
             '2024-02-29 13:45:30.123456+00', '1 year 2 mons 3 days 04:05:06.5', '6ba7b810-9dad-11d1-80b4-00c04fd430c8',
             '{"a": [1, 2, {"b": null}]}', '{"k": "v", "n": 1.50}', 4294967295, '{1,NULL,3}', '{a,"b c","\\"q\\"",NULL,"NULL",""}'),
            (2, -32768, -2147483648, 9223372036854775807, 'NaN', '-Infinity', false, '-99999999999999.999999',
             '0.00000000000000000001', '', '', '', '\\x', '0044-03-15 BC', '24:00:00', '00:00:00-12', 'infinity', '-infinity',
             '-178000000 years', '00000000-0000-0000-0000-000000000000', '[]', '{}', 0, '{}', '{}'),
            (3, 32767, 2147483647, -9223372036854775808, 3.4028235e38, 4.9e-324, true, '12345678901234.123456', 'NaN',
             E'line1\\nline2 \\t "quoted" \\\\ ünï', 'x', 'xyz', '\\x00', '2000-01-01', '00:00:00.000001', '23:59:59.999999+14',
             '1999-12-31 23:59:59.999999', '2024-06-30 23:59:59.5+05:30', '-1 days +00:00:00.000001',
             'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '[1, "two", null]', '{"nested": {"deep": [true, false]}}', 1,
             '{{1,2},{3,NULL}}', '{"a,b","c\\"d"}'),
            (4, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
             NULL, NULL, NULL, NULL, NULL)
            """;

    // ------------------------------------------------------------------ logging in

    private static Properties login(String user, String password) {
        return properties(new Mode("login", Map.of()), user, password);
    }

    private static String loginOutcome(String url, String user, String password) {
        return ResultDump.attempt(() -> {
            try (Connection c = Pgjdbc93.connect(url, login(user, password)); Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT 40 + 2")) {
                assertTrue(rs.next());
                return rs.getInt(1);
            }
        });
    }

    @Test
    void theDriverIsPgjdbc93() {
        assertEquals("9.3", Pgjdbc93.version());
    }

    /**
     * MD5 (the method of a user whose configuration names none, and of a user configured for it) and clear
     * text log in; a wrong password is refused with 28P01, as PostgreSQL refuses it.
     */
    @ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.ValueSource(strings = {ProxiedPostgres.DEFAULT_METHOD_USER, ProxiedPostgres.MD5_USER,
            ProxiedPostgres.PASSWORD_USER})
    void logsInWithMd5AndClearTextAndIsRefusedAWrongPassword(String user) {
        String password = ProxiedPostgres.password(user);
        assertEquals("Integer:42", loginOutcome(server.proxyUrl(""), user, password));
        assertEquals("Integer:42", loginOutcome(server.directUrl(""), user, password));
        String refused = loginOutcome(server.directUrl(""), user, password + "x");
        assertEquals("SQLException[28P01] FATAL: password authentication failed for user \"" + user + "\"", refused);
        assertEquals(refused, loginOutcome(server.proxyUrl(""), user, password + "x"));
    }

    /**
     * A user configured for SCRAM-SHA-256 cannot log in with a driver that has no SCRAM, and is told so at once
     * in the driver's words, exactly as when PostgreSQL asks for SCRAM: not a hang, not a protocol error.
     */
    @Test
    void aScramUserGetsTheDriversOwnMessageAsFromPostgresql() {
        String password = ProxiedPostgres.password(ProxiedPostgres.SCRAM_USER);
        String direct = loginOutcome(server.directUrl(""), ProxiedPostgres.SCRAM_USER, password);
        assertTrue(direct.startsWith("SQLException[08004] The authentication type 10 is not supported."), direct);
        assertEquals(direct, loginOutcome(server.proxyUrl(""), ProxiedPostgres.SCRAM_USER, password));
    }

    /**
     * An unknown user, and an unknown database, are refused with PostgreSQL's SQLSTATEs: the unknown user after
     * the same MD5 exchange as a known one, with a wrong password's 28P01.
     */
    @Test
    void unknownUserAndDatabaseAreRefused() {
        String user = loginOutcome(server.proxyUrl(""), "nobody", "x");
        assertEquals("SQLException[28P01] FATAL: password authentication failed for user \"nobody\"", user);
        String database = loginOutcome("jdbc:postgresql://127.0.0.1:" + server.proxyPort() + "/no_such_db",
                ProxiedPostgres.DEFAULT_METHOD_USER, ProxiedPostgres.password(ProxiedPostgres.DEFAULT_METHOD_USER));
        assertEquals("SQLException[3D000] FATAL: database \"no_such_db\" does not exist", database);
    }

    /** Protocol 2, which the driver can be told to speak, is refused by PostgreSQL 14 and by the proxy alike. */
    @Test
    void protocolVersion2IsRefusedAsPostgresqlRefusesIt() {
        Mode v2 = new Mode("protocolVersion=2", Map.of("protocolVersion", "2"));
        String direct = ResultDump.attempt(() -> {
            try (Connection c = direct(v2)) {
                return "connected";
            }
        });
        String proxied = ResultDump.attempt(() -> {
            try (Connection c = proxy(v2)) {
                return "connected";
            }
        });
        assertTrue(direct.startsWith("SQLException["), direct);
        assertEquals(direct, proxied);
    }

    // ------------------------------------------------------------------ a pooled database

    @ParameterizedTest(name = "{0}")
    @MethodSource("modes")
    void valuesOfTheCommonTypes(Mode mode) throws SQLException {
        List<String> seen = sameAsDirect(mode, (c, out) -> {
            query(out, "statement", () -> c.createStatement().executeQuery("SELECT * FROM t93_types ORDER BY id"));
            try (PreparedStatement p = c.prepareStatement("SELECT * FROM t93_types WHERE id >= ? ORDER BY id")) {
                for (int i = 1; i <= EXECUTIONS; i++) {
                    p.setInt(1, 1);
                    query(out, "prepared #" + i, p::executeQuery);
                }
            }
            query(out, "literals", () -> c.createStatement().executeQuery("SELECT 1 AS one, 'two'::text AS two, NULL AS nothing,"
                    + " 3.5::numeric AS three, now() - now() AS zero, '{}'::int[] AS empty, 'a'::\"char\" AS ch, ''::bytea AS b"));
        });
        assertEquals(2 + EXECUTIONS, seen.size());
        assertTrue(seen.get(0).contains("c_text=String:héllo wörld ✓"), seen.get(0));
        // The mode is what it says: binary results once the statement is named (int4 is in the driver's binary set).
        boolean binary = !"false".equals(mode.properties().get("binaryTransfer")) && !"0".equals(mode.properties().get("prepareThreshold"));
        assertTrue(seen.get(EXECUTIONS).contains("c_int4 type=4 typeName=int4 class=String:java.lang.Integer precision=Integer:10"
                + " scale=Integer:0 displaySize=Integer:11 format=Integer:" + (binary ? 1 : 0)), seen.get(EXECUTIONS));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("modes")
    void preparedStatementParameters(Mode mode) throws SQLException {
        String echo = "SELECT ?::int2 AS p_int2, ?::int4 AS p_int4, ?::int8 AS p_int8, ?::float4 AS p_float4,"
                + " ?::float8 AS p_float8, ?::bool AS p_bool, ?::numeric AS p_numeric, ?::text AS p_text, ? AS p_untyped,"
                + " ?::bytea AS p_bytea, ?::date AS p_date, ?::time AS p_time, ?::timestamp AS p_timestamp,"
                + " ?::timestamptz AS p_timestamptz, ?::uuid AS p_uuid, ?::int4 AS p_null";
        List<String> seen = sameAsDirect(mode, (c, out) -> {
            try (PreparedStatement p = c.prepareStatement(echo)) {
                for (int i = 1; i <= EXECUTIONS; i++) {
                    int n = 1;
                    p.setShort(n++, (short) -12);
                    p.setInt(n++, 123_456 + i);
                    p.setLong(n++, 1_234_567_890_123L);
                    p.setFloat(n++, 1.5f);
                    p.setDouble(n++, 2.25d);
                    p.setBoolean(n++, i % 2 == 0);
                    p.setBigDecimal(n++, new BigDecimal("-12345.678900"));
                    p.setString(n++, "héllo 'quoted' \\ ✓");
                    p.setString(n++, "untyped");
                    p.setBytes(n++, new byte[] {0, 1, (byte) 0xff, '\\', '\''});
                    p.setDate(n++, Date.valueOf("2024-02-29"));
                    p.setTime(n++, Time.valueOf("13:45:30"));
                    p.setTimestamp(n++, Timestamp.valueOf("2024-02-29 13:45:30.123456"));
                    p.setTimestamp(n++, Timestamp.valueOf("1999-12-31 23:59:59.5"));
                    p.setObject(n++, UUID.fromString("6ba7b810-9dad-11d1-80b4-00c04fd430c8"), Types.OTHER);
                    p.setNull(n, Types.INTEGER);
                    query(out, "echo #" + i, p::executeQuery);
                }
            }
            execute(c, out, "DROP TABLE IF EXISTS t93_params");
            execute(c, out, "CREATE TABLE t93_params (id int PRIMARY KEY, j json, u uuid, n numeric, d date, ts timestamptz)");
            try (PreparedStatement p = c.prepareStatement("INSERT INTO t93_params VALUES (?, ?, ?, ?, ?, ?)")) {
                for (int i = 1; i <= EXECUTIONS; i++) {
                    int id = i;
                    p.setInt(1, id);
                    p.setString(2, "{\"id\": " + id + "}"); // a varchar into json fails unless stringtype=unspecified
                    p.setString(3, "6ba7b810-9dad-11d1-80b4-00c04fd430c" + id);
                    p.setString(4, id + ".50");
                    p.setString(5, "2024-03-0" + id);
                    p.setString(6, "2024-03-0" + id + " 10:00:00+02");
                    see(out, "insert strings #" + i, p::executeUpdate);
                }
            }
            try (PreparedStatement p = c.prepareStatement("INSERT INTO t93_params (id, u, n, d, ts) VALUES (?, ?, ?, ?, ?)")) {
                for (int i = 1; i <= EXECUTIONS; i++) {
                    p.setInt(1, 100 + i);
                    p.setObject(2, UUID.fromString("6ba7b810-9dad-11d1-80b4-00c04fd430c" + i), Types.OTHER);
                    p.setObject(3, new BigDecimal(i + ".25"), Types.NUMERIC);
                    p.setObject(4, Date.valueOf("2024-03-0" + i));
                    p.setObject(5, Timestamp.valueOf("2024-03-0" + i + " 10:00:00"));
                    see(out, "insert objects #" + i, p::executeUpdate);
                }
            }
            query(out, "read back", () -> c.createStatement().executeQuery("SELECT * FROM t93_params ORDER BY id"));
            execute(c, out, "DROP TABLE t93_params");
        });
        assertTrue(seen.get(0).contains("p_text=String:héllo 'quoted' \\ ✓"), seen.get(0));
        boolean unspecified = "unspecified".equals(mode.properties().get("stringtype"));
        assertEquals(unspecified, seen.stream().anyMatch(each -> each.startsWith("insert strings #1: Integer:1")), seen::toString);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("modes")
    void batches(Mode mode) throws SQLException {
        List<String> seen = sameAsDirect(mode, (c, out) -> {
            execute(c, out, "DROP TABLE IF EXISTS t93_batch");
            execute(c, out, "CREATE TABLE t93_batch (id int PRIMARY KEY, v text)");
            try (PreparedStatement p = c.prepareStatement("INSERT INTO t93_batch VALUES (?, ?)")) {
                for (int i = 1; i <= 20; i++) {
                    p.setInt(1, i);
                    p.setString(2, "v" + i);
                    p.addBatch();
                }
                executeBatch(out, "prepared batch", p);
                for (int i = 21; i <= 25; i++) {
                    p.setInt(1, i == 23 ? 5 : i);
                    p.setString(2, "dup");
                    p.addBatch();
                }
                executeBatch(out, "batch with a duplicate key", p);
            }
            try (Statement s = c.createStatement()) {
                s.addBatch("UPDATE t93_batch SET v = upper(v) WHERE id <= 10");
                s.addBatch("DELETE FROM t93_batch WHERE id > 18");
                s.addBatch("INSERT INTO t93_batch VALUES (100, 'x'), (101, 'y')");
                see(out, "statement batch", () -> Arrays.toString(s.executeBatch()));
                s.addBatch("UPDATE t93_batch SET v = 'z' WHERE id = 100");
                s.addBatch("INSERT INTO t93_batch VALUES (1, 'dup')");
                s.addBatch("UPDATE t93_batch SET v = 'never' WHERE id = 101");
                executeBatch(out, "statement batch with an error", s);
            }
            c.setAutoCommit(false);
            try (PreparedStatement p = c.prepareStatement("UPDATE t93_batch SET v = ? WHERE id = ?")) {
                for (int i = 1; i <= 12; i++) {
                    p.setString(1, "tx" + i);
                    p.setInt(2, i);
                    p.addBatch();
                }
                see(out, "batch in a transaction", () -> Arrays.toString(p.executeBatch()));
                c.rollback();
            }
            c.setAutoCommit(true);
            query(out, "after", () -> c.createStatement().executeQuery("SELECT id, v FROM t93_batch ORDER BY id"));
            execute(c, out, "DROP TABLE t93_batch");
        });
        assertTrue(seen.contains("prepared batch: [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]"), seen::toString);
        assertTrue(seen.stream().anyMatch(each -> each.startsWith("batch with a duplicate key: BatchUpdateException[23505] ")), seen::toString);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("modes")
    void transactionsSavepointsAndSessionCharacteristics(Mode mode) throws SQLException {
        List<String> seen = sameAsDirect(mode, (c, out) -> {
            execute(c, out, "DROP TABLE IF EXISTS t93_tx");
            execute(c, out, "CREATE TABLE t93_tx (id int PRIMARY KEY)");
            c.setAutoCommit(false);
            try (PreparedStatement insert = c.prepareStatement("INSERT INTO t93_tx VALUES (?)");
                    PreparedStatement count = c.prepareStatement("SELECT count(*) FROM t93_tx")) {
                insert.setInt(1, 1);
                see(out, "insert 1", insert::executeUpdate);
                c.rollback();
                query(out, "after rollback", count::executeQuery);
                for (int i = 2; i <= EXECUTIONS; i++) {
                    insert.setInt(1, i);
                    see(out, "insert " + i, insert::executeUpdate);
                }
                // pgjdbc 9.3 compares server versions as text: "14.22" < "8.0", so it refuses savepoints and
                // generated keys from PostgreSQL 10 on; the proxy reports the backend's version, so it refuses them alike.
                see(out, "savepoint", () -> c.setSavepoint("sp"));
                execute(c, out, "SAVEPOINT sp");
                insert.setInt(1, 100);
                see(out, "insert 100", insert::executeUpdate);
                execute(c, out, "ROLLBACK TO SAVEPOINT sp");
                c.commit();
                query(out, "after commit", count::executeQuery);
                insert.setInt(1, 2);
                see(out, "duplicate", insert::executeUpdate);
                query(out, "in a failed transaction", count::executeQuery);
                c.rollback();
                query(out, "after rolling back the failure", count::executeQuery);
                c.commit();
            }
            // Believing PostgreSQL 14 older than 7.3 (see above), the driver reads the level with Execute(limit 1),
            // which PostgreSQL answers with PortalSuspended, and then fails on its own ("This ResultSet is
            // closed"): through the proxy it must fail the same way.
            see(out, "isolation read", c::getTransactionIsolation);
            c.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);
            query(out, "isolation set", () -> c.createStatement().executeQuery("SHOW transaction_isolation"));
            c.commit();
            c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            c.setReadOnly(true); // a flag only: the driver believes the server older than 7.4
            see(out, "read only", c::isReadOnly);
            c.setReadOnly(false);
            c.setAutoCommit(true);
            execute(c, out, "SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY");
            execute(c, out, "INSERT INTO t93_tx VALUES (999)");
            execute(c, out, "SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE");
            execute(c, out, "INSERT INTO t93_tx VALUES (1000)");
            execute(c, out, "BEGIN");
            execute(c, out, "INSERT INTO t93_tx VALUES (1001)");
            execute(c, out, "ROLLBACK");
            query(out, "end", () -> c.createStatement().executeQuery("SELECT array_agg(id ORDER BY id) FROM t93_tx"));
            execute(c, out, "DROP TABLE t93_tx");
        });
        assertTrue(seen.stream().anyMatch(each -> each.startsWith("in a failed transaction: SQLException[25P02] ")), seen::toString);
        assertTrue(seen.stream().anyMatch(each -> each.startsWith("INSERT INTO t93_tx VALUES (999): SQLException[25006] ")), seen::toString);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("modes")
    void generatedKeysAndReturning(Mode mode) throws SQLException {
        List<String> seen = sameAsDirect(mode, (c, out) -> {
            execute(c, out, "DROP TABLE IF EXISTS t93_keys");
            execute(c, out, "CREATE TABLE t93_keys (id serial PRIMARY KEY, v text, created date DEFAULT '2024-01-01')");
            see(out, "prepare with generated keys", () -> c.prepareStatement("INSERT INTO t93_keys (v) VALUES (?)",
                    Statement.RETURN_GENERATED_KEYS).getClass().getSimpleName());
            see(out, "statement with generated keys", () -> c.createStatement().executeUpdate("INSERT INTO t93_keys (v) VALUES ('s')",
                    Statement.RETURN_GENERATED_KEYS));
            try (PreparedStatement p = c.prepareStatement("INSERT INTO t93_keys (v) VALUES (?) RETURNING id, created")) {
                for (int i = 1; i <= EXECUTIONS; i++) {
                    p.setString(1, "v" + i);
                    query(out, "insert returning #" + i, p::executeQuery);
                }
            }
            try (PreparedStatement p = c.prepareStatement("INSERT INTO t93_keys (v) VALUES (?) RETURNING id")) {
                for (int i = 1; i <= 3; i++) {
                    p.setString(1, "batch" + i);
                    p.addBatch();
                }
                executeBatch(out, "batch of INSERT RETURNING", p);
            }
            try (PreparedStatement p = c.prepareStatement("UPDATE t93_keys SET v = v || '!' WHERE id <= ? RETURNING id, v")) {
                p.setInt(1, 3);
                query(out, "update returning", p::executeQuery);
            }
            query(out, "delete returning", () -> c.createStatement().executeQuery("DELETE FROM t93_keys WHERE id > 10 RETURNING *"));
            execute(c, out, "DROP TABLE t93_keys");
        });
        assertTrue(seen.get(2).startsWith("prepare with generated keys: SQLException[0A000] Returning autogenerated keys is only supported"),
                seen.get(2));
        assertTrue(seen.get(4).startsWith("insert returning #1: String:id type=4 typeName=serial"), seen.get(4));
        assertTrue(seen.get(4).endsWith("id=Integer:1 | str=String:1 | Integer:1 | null=Boolean:false; created=Date:2024-01-01"
                + " | str=String:2024-01-01 | Date:2024-01-01 | null=Boolean:false; "), seen.get(4));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("modes")
    void databaseMetaData(Mode mode) throws SQLException {
        sameAsDirect(mode, (c, out) -> {
            execute(c, out, "DROP TABLE IF EXISTS t93_meta");
            execute(c, out, "CREATE TABLE t93_meta (id bigserial PRIMARY KEY, name varchar(20) NOT NULL, price numeric(10, 2),"
                    + " note text DEFAULT 'none', UNIQUE (name))");
            DatabaseMetaData m = c.getMetaData();
            see(out, "product", () -> m.getDatabaseProductName() + " " + m.getDatabaseProductVersion() + " "
                    + m.getDatabaseMajorVersion() + "." + m.getDatabaseMinorVersion());
            see(out, "driver", () -> m.getDriverName() + " " + m.getDriverVersion() + " JDBC " + m.getJDBCMajorVersion());
            see(out, "transactions", () -> m.supportsTransactions() + " " + m.getDefaultTransactionIsolation() + " "
                    + m.supportsSavepoints() + " " + m.supportsBatchUpdates() + " " + m.supportsGetGeneratedKeys());
            see(out, "quoting", () -> m.getIdentifierQuoteString() + " " + m.getSearchStringEscape() + " " + m.storesLowerCaseIdentifiers());
            see(out, "keywords", m::getSQLKeywords);
            query(out, "tables", () -> m.getTables(null, "public", "t93_meta%", new String[] {"TABLE", "SEQUENCE", "INDEX"}));
            query(out, "columns", () -> m.getColumns(null, "public", "t93_meta", "%"));
            query(out, "primary key", () -> m.getPrimaryKeys(null, "public", "t93_meta"));
            query(out, "index info", () -> m.getIndexInfo(null, "public", "t93_meta", false, false));
            query(out, "schemas", m::getSchemas);
            query(out, "table types", m::getTableTypes);
            query(out, "type info", m::getTypeInfo);
            query(out, "functions", () -> m.getProcedures(null, "pg_catalog", "int4pl"));
            execute(c, out, "DROP TABLE t93_meta");
        });
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("modes")
    void errorsWithTheirSqlState(Mode mode) throws SQLException {
        List<String> seen = sameAsDirect(mode, (c, out) -> {
            execute(c, out, "DROP TABLE IF EXISTS t93_err");
            execute(c, out, "CREATE TABLE t93_err (id int PRIMARY KEY, v int CHECK (v >= 0))");
            execute(c, out, "SELEC 1");
            execute(c, out, "SELECT 1/0");
            execute(c, out, "SELECT * FROM no_such_table");
            execute(c, out, "INSERT INTO t93_err VALUES (1, 1)");
            execute(c, out, "INSERT INTO t93_err VALUES (1, 2)");
            execute(c, out, "INSERT INTO t93_err VALUES (2, -1)");
            execute(c, out, "DO $$ BEGIN RAISE NOTICE 'note %', 1; RAISE WARNING 'careful'; END $$");
            execute(c, out, "DO $$ BEGIN RAISE EXCEPTION USING ERRCODE = 'P0001', MESSAGE = 'custom', DETAIL = 'd', HINT = 'h'; END $$");
            try (PreparedStatement p = c.prepareStatement("SELECT ?::int + v FROM t93_err WHERE id = ?")) {
                for (int i = 1; i <= EXECUTIONS; i++) {
                    p.setString(1, i % 3 == 0 ? "not a number" : String.valueOf(i));
                    p.setInt(2, 1);
                    query(out, "prepared #" + i, p::executeQuery);
                }
            }
            try (PreparedStatement p = c.prepareStatement("INSERT INTO t93_err VALUES (?, ?)")) {
                for (int i = 1; i <= EXECUTIONS; i++) {
                    p.setInt(1, 10 + i % 2);
                    p.setInt(2, i);
                    see(out, "insert #" + i, p::executeUpdate);
                }
            }
            see(out, "still usable", () -> {
                try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT count(*) FROM t93_err")) {
                    rs.next();
                    return rs.getLong(1);
                }
            });
            execute(c, out, "DROP TABLE t93_err");
        });
        for (String state : List.of("42601", "22012", "42P01", "23505", "23514", "P0001", "22P02")) {
            assertTrue(seen.stream().anyMatch(each -> each.contains("SQLException[" + state + "] ")), () -> state + " in " + seen);
        }
    }

    // ------------------------------------------------------------------ a sharded database

    /**
     * The same driver against a logical database sharded over two data sources and four tables
     * ({@link ProxiedPostgres#startSharded()}: {@code t_og (id int primary key, name text)}), compared with one
     * plain table holding every row.
     */
    @Nested
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    final class Sharded {

        private ProxiedPostgres sharded;

        @BeforeAll
        void start() throws Exception {
            sharded = ProxiedPostgres.startSharded();
            try (Connection c = sharded.direct(""); Statement s = c.createStatement()) {
                s.execute("CREATE TABLE t_og (id int PRIMARY KEY, name text)");
            }
        }

        @AfterAll
        void stop() throws IOException {
            if (sharded != null) {
                sharded.close();
            }
        }

        private List<String> sameAsOneTable(Mode mode, Work work) throws SQLException {
            List<String> expected = new ArrayList<>();
            try (Connection c = Pgjdbc93.connect(sharded.directUrl(""), properties(mode, ProxiedPostgres.BACKEND_USER, ""))) {
                work.run(c, expected);
            }
            List<String> actual = new ArrayList<>();
            try (Connection c = Pgjdbc93.connect(sharded.proxyUrl(""), properties(mode, ProxiedPostgres.DEFAULT_METHOD_USER,
                    ProxiedPostgres.password(ProxiedPostgres.DEFAULT_METHOD_USER)))) {
                work.run(c, actual);
            }
            assertEquals(String.join("\n", expected), String.join("\n", actual),
                    "pgjdbc 9.3 (" + mode + ") through the sharding proxy versus one table");
            return actual;
        }

        /**
         * A query's rows and the types of its columns, not what the driver looks up by a column's table OID: through
         * the proxy that is an actual table's OID on one shard, which the lookup (sent to another shard, or naming
         * t_og_1 rather than t_og) does not resolve as for the one table.
         */
        private static void query(List<String> seen, String label, ResultDump.SqlCall<ResultSet> call) {
            Pgjdbc93DriverTest.query(seen, label, false, call);
        }

        /** An error's SQLSTATE only: its message names the actual table, which differs from the one table's. */
        private static void seeState(List<String> seen, String label, ResultDump.SqlCall<?> call) {
            String outcome = ResultDump.attempt(call);
            seen.add(label + ": " + (outcome.startsWith("SQLException[") ? outcome.substring(0, outcome.indexOf(']') + 1) : outcome));
        }

        @ParameterizedTest(name = "{0}")
        @MethodSource("io.ashlar.bootstrap.it.Pgjdbc93DriverTest#modes")
        void statementsOverShards(Mode mode) throws SQLException {
            List<String> seen = sameAsOneTable(mode, (c, out) -> {
                execute(c, out, "DELETE FROM t_og");
                try (PreparedStatement p = c.prepareStatement("INSERT INTO t_og (id, name) VALUES (?, ?)")) {
                    for (int i = 1; i <= 16; i++) {
                        p.setInt(1, i);
                        p.setString(2, "row " + i);
                        p.addBatch();
                    }
                    see(out, "batch", () -> Arrays.toString(p.executeBatch()));
                }
                try (PreparedStatement p = c.prepareStatement("SELECT id, name FROM t_og WHERE id = ?")) {
                    for (int i = 1; i <= EXECUTIONS; i++) {
                        p.setInt(1, i);
                        query(out, "by key #" + i, p::executeQuery);
                    }
                }
                try (PreparedStatement p = c.prepareStatement("SELECT id, name FROM t_og WHERE id > ? ORDER BY id DESC LIMIT 5")) {
                    for (int i = 1; i <= EXECUTIONS; i++) {
                        p.setInt(1, i);
                        query(out, "ordered #" + i, p::executeQuery);
                    }
                }
                query(out, "aggregates", () -> c.createStatement().executeQuery(
                        "SELECT count(*), sum(id), min(name), max(id), avg(id) FROM t_og"));
                query(out, "grouped", () -> c.createStatement().executeQuery(
                        "SELECT id % 3 AS k, count(*) AS n FROM t_og GROUP BY id % 3 ORDER BY k"));
                try (PreparedStatement p = c.prepareStatement("UPDATE t_og SET name = ? WHERE id IN (?, ?, ?)")) {
                    for (int i = 1; i <= EXECUTIONS; i++) {
                        p.setString(1, "updated " + i);
                        p.setInt(2, i);
                        p.setInt(3, i + 1);
                        p.setInt(4, i + 2);
                        see(out, "update #" + i, p::executeUpdate);
                    }
                }
                try (PreparedStatement p = c.prepareStatement("INSERT INTO t_og (id, name) VALUES (?, ?) RETURNING id, name")) {
                    p.setInt(1, 101);
                    p.setString(2, "returned");
                    query(out, "insert returning", p::executeQuery);
                }
                c.setAutoCommit(false);
                execute(c, out, "UPDATE t_og SET name = 'rolled back'");
                execute(c, out, "INSERT INTO t_og (id, name) VALUES (200, 'rolled back'), (201, 'rolled back')");
                c.rollback();
                execute(c, out, "INSERT INTO t_og (id, name) VALUES (202, 'committed'), (203, 'committed')");
                c.commit();
                c.setAutoCommit(true);
                seeState(out, "duplicate", () -> {
                    try (Statement s = c.createStatement()) {
                        return s.executeUpdate("INSERT INTO t_og (id, name) VALUES (2, 'dup')");
                    }
                });
                try (PreparedStatement p = c.prepareStatement("INSERT INTO t_og (id, name) VALUES (?, ?)")) {
                    for (int i : new int[] {300, 301, 3, 302}) {
                        p.setInt(1, i);
                        p.setString(2, "batch " + i);
                        p.addBatch();
                    }
                    seeState(out, "batch with a duplicate", () -> Arrays.toString(p.executeBatch()));
                }
                see(out, "delete", () -> c.createStatement().executeUpdate("DELETE FROM t_og WHERE id % 2 = 0"));
                query(out, "end", () -> c.createStatement().executeQuery("SELECT id, name FROM t_og ORDER BY id"));
            });
            assertTrue(seen.contains("batch: String:[1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]"), seen::toString);
            assertTrue(seen.contains("duplicate: SQLException[23505]"), seen::toString);
        }
    }
}
