package io.ashlar.backend.sharding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.ashlar.backend.datasource.ParameterValues;
import io.ashlar.route.UnreadableValue;
import io.ashlar.route.rule.ShardingValues;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Sharding values read as PostgreSQL reads them, checked against PostgreSQL itself: the binary
 * form of each value is what the type's send function ({@code int8send}, {@code numeric_send},
 * {@code date_send}, {@code timestamp_send}, {@code uuid_send}, ...) gives, and must read as the
 * value PostgreSQL prints; a text spelling must read either as what PostgreSQL's input function
 * makes of it, or not at all (an {@link UnreadableValue}), never as another value.
 */
class ParameterReaderTest {

    private static EmbeddedPostgres postgres;
    private static Connection connection;

    @BeforeAll
    static void start() throws Exception {
        postgres = EmbeddedPostgres.builder().start();
        connection = postgres.getPostgresDatabase().getConnection();
        try (Statement statement = connection.createStatement()) {
            // Text input must not depend on the session's zone: a zone far from UTC and the JVM's catches a reading that does.
            statement.execute("SET TimeZone = 'Asia/Kathmandu'");
            statement.execute("SET DateStyle = 'ISO, MDY'");
        }
    }

    @AfterAll
    static void stop() throws Exception {
        connection.close();
        postgres.close();
    }

    // ------------------------------------------------------------------ binary, from the send functions

    @Test
    void binaryIntegersAreWhatTheSendFunctionsWrite() throws SQLException {
        binary("int2", ParameterReader.INT2, "-32768", "0", "7", "32767");
        binary("int4", ParameterReader.INT4, "-2147483648", "-7", "0", "41", "2147483647");
        binary("int8", ParameterReader.INT8, "-9223372036854775808", "-7", "41", "4294967297", "9223372036854775807");
        binary("oid", ParameterReader.OID, "0", "41", "4294967295");
    }

    @Test
    void binaryNumericIsWhatNumericSendWrites() throws SQLException {
        binary("numeric", ParameterReader.NUMERIC, "0", "41", "-41", "41.50", "0.0001", "-0.5", "10000", "99990000", "100000000.00",
                "123456789012345678901234567890.123456789", "1e20", "1.5e-10", "0.00000", "-9999.9999", "12345678.87654321");
    }

    @Test
    void binaryFloatsAndBooleansAreWhatTheSendFunctionsWrite() throws SQLException {
        binary("float4", ParameterReader.FLOAT4, "0.1", "-2.5", "3e10", "0");
        binary("float8", ParameterReader.FLOAT8, "0.1", "1e300", "-7", "0.30000000000000004");
        binary("bool", ParameterReader.BOOL, "true", "false");
    }

    @Test
    void binaryTextIsItsUtf8AndBpcharLosesItsPadding() throws SQLException {
        binary("text", ParameterReader.TEXT, "abc", "41", "ünïcödé ✓", "");
        binary("varchar", ParameterReader.VARCHAR, "abc", "41");
        binary("char(6)", ParameterReader.BPCHAR, "ab", "ab  ", "abcdef");
        binary("uuid", ParameterReader.UUID, "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "00000000-0000-0000-0000-000000000000",
                "ffffffff-ffff-ffff-ffff-ffffffffffff");
    }

    @Test
    void binaryDatesAndTimesAreWhatTheSendFunctionsWrite() throws SQLException {
        binary("date", ParameterReader.DATE, "2024-01-05", "1999-12-31", "2000-01-01", "1970-01-01", "0001-01-01", "9999-12-31", "2024-02-29");
        binary("time", ParameterReader.TIME, "00:00:00", "23:59:59.999999", "10:30:15.5");
        binary("timestamp", ParameterReader.TIMESTAMP, "2024-01-05 10:00:00", "1999-12-31 23:59:59.999999", "2000-01-01 00:00:00",
                "1700-01-01 00:00:00.000001", "1066-10-14 12:00:00", "2262-04-12 00:00:00", "4000-01-01 00:00:00");
        binary("timestamptz", ParameterReader.TIMESTAMPTZ, "2024-01-05 10:00:00+01", "1950-06-01 00:00:00-05:30", "2000-01-01 00:00:00+00",
                "1700-01-01 00:00:00.000001+00");
    }

    @Test
    void binaryOfTheWrongLengthOrUnknownTypeIsUnreadable() {
        assertUnreadable("22P03", ParameterReader.read(ParameterReader.INT4, true, new byte[] {0, 0, 41}));
        assertUnreadable("22P03", ParameterReader.read(ParameterReader.INT8, true, new byte[] {0, 0, 0, 41}));
        assertUnreadable("22P03", ParameterReader.read(ParameterReader.UUID, true, new byte[15]));
        assertUnreadable("22P03", ParameterReader.read(ParameterReader.NUMERIC, true, new byte[] {0, 1, 0, 0, 0, 0, 0, 0}));
        assertUnreadable("22021", ParameterReader.read(ParameterReader.TEXT, true, new byte[] {'a', (byte) 0xC3}));
        assertUnreadable("0A000", ParameterReader.read(ParameterReader.UNSPECIFIED, true, new byte[] {0, 0, 0, 41}));
        assertUnreadable("0A000", ParameterReader.read(3802, true, "{}".getBytes(StandardCharsets.UTF_8)));
        assertUnreadable("0A000", ParameterReader.read(3802, false, "{}".getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void binaryNaNAndInfinitiesAreUnreadable() throws SQLException {
        assertUnreadable("22023", ParameterReader.read(ParameterReader.NUMERIC, true, send("numeric", "NaN")));
        assertUnreadable("22023", ParameterReader.read(ParameterReader.FLOAT8, true, send("float8", "Infinity")));
        assertUnreadable("22023", ParameterReader.read(ParameterReader.DATE, true, send("date", "infinity")));
        assertUnreadable("22023", ParameterReader.read(ParameterReader.TIMESTAMP, true, send("timestamp", "-infinity")));
    }

    // ------------------------------------------------------------------ text, against the input functions

    @Test
    void textIntegersReadAsInt4inReadsThem() throws SQLException {
        text("int4", ParameterReader.INT4, List.of(" 41 ", "+41", "-0", "0041", "2147483647", "-2147483648", "\t7\n"),
                List.of("2147483648", "4_1", "0x29", "41.0", "", " ", "4 1", "٤١"));
        text("int2", ParameterReader.INT2, List.of("32767", "-32768"), List.of("32768"));
        text("int8", ParameterReader.INT8, List.of("-9223372036854775808", "9223372036854775807"), List.of("9223372036854775808", "-9223372036854775809"));
        text("oid", ParameterReader.OID, List.of("0", "4294967295", "-1"), List.of("4294967296"));
    }

    @Test
    void textNumericAndFloatsReadAsTheirInputFunctionsReadThem() throws SQLException {
        text("numeric", ParameterReader.NUMERIC, List.of(" 41.50 ", "1e3", "1E-3", ".5", "5.", "-0.000", "+3.14", "1.5e+10"),
                List.of("NaN", "Infinity", "1_000", "0x10", "1e", "e5", "٣", "1.2.3", ""));
        text("float8", ParameterReader.FLOAT8, List.of("0.1", "1e300", "-2.5e-3", " 7 "), List.of("1e400", "NaN", "Infinity", "0x1p3", "1d"));
        text("float4", ParameterReader.FLOAT4, List.of("0.1", "3e10"), List.of("1e39", "1f"));
    }

    @Test
    void textBooleansReadAsBoolinReadsThem() throws SQLException {
        text("bool", ParameterReader.BOOL, List.of("t", "TRUE", "yes", "on", "off", "1", "0", " f ", "tr", "n", "Of"),
                List.of("o", "2", "", "truely", "10"));
    }

    @Test
    void textUuidsReadAsUuidInReadsThem() throws SQLException {
        text("uuid", ParameterReader.UUID, List.of("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11",
                "{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}", "a0eebc999c0b4ef8bb6d6bb9bd380a11", "a0ee-bc99-9c0b-4ef8-bb6d-6bb9-bd38-0a11"),
                List.of("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1", "a0e-ebc999c0b4ef8bb6d6bb9bd380a11", " a0eebc999c0b4ef8bb6d6bb9bd380a11",
                        "{a0eebc999c0b4ef8bb6d6bb9bd380a11", "a0eebc999c0b4ef8bb6d6bb9bd380a11-"));
    }

    @Test
    void textDatesAndTimesReadAsTheirInputFunctionsReadThem() throws SQLException {
        text("date", ParameterReader.DATE, List.of("2024-01-05", " 2024-1-5 ", "2024-01-05 10:00", "2024-01-05 +01", "2024-01-05T10:00:00Z",
                "2024-02-29", "2024-01-05 00:00:00-08"),
                List.of("2024-02-30", "2023-02-29", "01/05/2024", "Jan 5 2024", "epoch", "infinity", "2024-01-05 BC", "0000-01-01", "today", ""));
        text("timestamp", ParameterReader.TIMESTAMP, List.of("2024-01-05 10:00", "2024-01-05 10:00:00", "2024-01-05T10:00:00.123456",
                "2024-01-05 10:00:00+05:30", "2024-01-05 24:00:00", "2024-01-05 23:59:60", "2024-01-05 10:00:00.1234566",
                "2024-01-05 10:00:00.1234564", "2024-01-05", "2024-01-05 9:05", "1700-03-01 10:00:00", "2024-01-05  10:00:00"),
                List.of("2024-01-05 10:00:00.1234565", "2024-01-05 10:00:61", "2024-01-05 25:00", "2024-01-05 24:00:01", "now",
                        "2024-01-05 10:00 Europe/Paris", "2024-01-05T", "2024-01-05 10"));
        text("timestamptz", ParameterReader.TIMESTAMPTZ, List.of("2024-01-05 10:00:00+01", "2024-01-05 10:00:00-05:30", "2024-01-05 10:00:00Z",
                "2024-01-05T10:00:00+0130", "2024-01-05 10:00:00 +01", "2024-01-05 +02", "2024-01-05 10:00:00+15:59", "2024-01-05 10:00:00+01:00:30"),
                List.of("2024-01-05 10:00:00", "2024-01-05 10:00:00+16", "2024-01-05", "2024-01-05 10:00:00 UTC"));
        text("time", ParameterReader.TIME, List.of("10:00", "10:00:00.5", "10:59:60", " 7:05 ", "23:59:59.999999"), List.of("24:00:00", "23:59:60", "25:00", "10"));
    }

    @Test
    void textTypesAreTheirStringsAndBpcharLosesTrailingSpaces() {
        assertEquals("41", ParameterReader.read(ParameterReader.VARCHAR, false, "41".getBytes(StandardCharsets.UTF_8)));
        assertEquals(" ab", ParameterReader.read(ParameterReader.BPCHAR, false, " ab   ".getBytes(StandardCharsets.UTF_8)));
        assertEquals("ünï", ParameterReader.read(ParameterReader.TEXT, false, "ünï".getBytes(StandardCharsets.UTF_8)));
        assertUnreadable("22021", ParameterReader.read(ParameterReader.TEXT, false, new byte[] {'a', 0, 'b'}));
    }

    @Test
    void routeValuesReadEachValueByTheTypeItIsGiven() {
        byte[] fortyOne = {0, 0, 0, 41};
        ParameterValues values = ParameterValues.of(new int[] {0, 0}, new short[] {1, 0}, new byte[][] {fortyOne, "41".getBytes(StandardCharsets.UTF_8)});
        RouteValues unresolved = new RouteValues(values);
        assertUnreadable("0A000", unresolved.value(0));
        assertEquals("41", unresolved.value(1));
        assertFalse(unresolved.typed(1));
        RouteValues asColumns = new RouteValues(values, new int[] {ParameterReader.INT4, ParameterReader.VARCHAR});
        assertEquals(41, asColumns.value(0));
        assertEquals("41", asColumns.value(1));
        assertTrue(asColumns.typed(1));
        RouteValues asNumbers = new RouteValues(values, new int[] {ParameterReader.INT4, ParameterReader.INT8});
        assertEquals(41, asNumbers.value(1));
    }

    // ------------------------------------------------------------------ helpers

    /** Each value's send bytes read as the value PostgreSQL prints (in canonical form). */
    private static void binary(String sqlType, int type, String... values) throws SQLException {
        for (String value : values) {
            byte[] bytes = send(sqlType, value);
            Object actual = ParameterReader.read(type, true, bytes);
            Object expected = printed(sqlType, type, value);
            assertEquals(canonical(expected), canonical(actual), () -> sqlType + " " + value + " sent as " + java.util.HexFormat.of().formatHex(bytes));
        }
    }

    /**
     * Spellings that must read, as PostgreSQL reads them; spellings that must not read (PostgreSQL refuses them, or
     * reads them by a setting or a rule Ashlar does not follow).
     */
    private static void text(String sqlType, int type, List<String> readable, List<String> unreadable) throws SQLException {
        List<String> failures = new ArrayList<>();
        for (String spelling : readable) {
            Object actual = ParameterReader.read(type, false, spelling.getBytes(StandardCharsets.UTF_8));
            if (actual instanceof UnreadableValue) {
                failures.add("'" + spelling + "' did not read: " + actual);
                continue;
            }
            byte[] bytes;
            try {
                bytes = send(sqlType, spelling);
            } catch (SQLException e) {
                failures.add("'" + spelling + "' read as " + actual + " but PostgreSQL refuses it: " + e.getMessage());
                continue;
            }
            Object expected = ParameterReader.read(type, true, bytes);
            if (!canonical(expected).equals(canonical(actual))) {
                failures.add("'" + spelling + "' read as " + actual + " but PostgreSQL reads " + expected);
            }
        }
        for (String spelling : unreadable) {
            Object actual = ParameterReader.read(type, false, spelling.getBytes(StandardCharsets.UTF_8));
            if (!(actual instanceof UnreadableValue)) {
                failures.add("'" + spelling + "' read as " + actual + ", expected it to be unreadable");
            }
        }
        if (!failures.isEmpty()) {
            fail(sqlType + ":\n" + String.join("\n", failures));
        }
    }

    /** PostgreSQL's binary form of a value given as text: {@code typsend(value::type)}. */
    private static byte[] send(String sqlType, String value) throws SQLException {
        String function = switch (sqlType) {
            case "char(6)" -> "bpcharsend";
            case "timestamp" -> "timestamp_send";
            case "timestamptz" -> "timestamptz_send";
            case "time" -> "time_send";
            case "date" -> "date_send";
            case "numeric" -> "numeric_send";
            case "uuid" -> "uuid_send";
            default -> sqlType + "send";
        };
        try (PreparedStatement statement = connection.prepareStatement("SELECT " + function + "(CAST(CAST(? AS text) AS " + sqlType + "))")) {
            statement.setString(1, value);
            try (ResultSet rs = statement.executeQuery()) {
                rs.next();
                return rs.getBytes(1);
            }
        } finally {
            connection.clearWarnings();
        }
    }

    /** The value as PostgreSQL prints it (DateStyle ISO, TimeZone UTC for timestamptz), read by java's own parsers. */
    private static Object printed(String sqlType, int type, String value) throws SQLException {
        String sql = type == ParameterReader.TIMESTAMPTZ ? "SELECT to_char(CAST(? AS timestamptz) AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US')"
                : "SELECT CAST(CAST(? AS text) AS " + sqlType + ")::text";
        String text;
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setString(1, value);
            try (ResultSet rs = statement.executeQuery()) {
                rs.next();
                text = rs.getString(1);
            }
        }
        return switch (type) {
            case ParameterReader.INT2, ParameterReader.INT4, ParameterReader.INT8, ParameterReader.OID -> Long.parseLong(text);
            case ParameterReader.NUMERIC -> new BigDecimal(text);
            case ParameterReader.FLOAT4 -> Float.parseFloat(text);
            case ParameterReader.FLOAT8 -> Double.parseDouble(text);
            case ParameterReader.BOOL -> text.equals("true");
            case ParameterReader.BPCHAR -> text.stripTrailing();
            case ParameterReader.DATE -> LocalDate.parse(text);
            case ParameterReader.TIME -> LocalTime.parse(text);
            case ParameterReader.TIMESTAMP -> LocalDateTime.parse(text.replace(' ', 'T'));
            case ParameterReader.TIMESTAMPTZ -> LocalDateTime.parse(text).atOffset(java.time.ZoneOffset.UTC);
            default -> text;
        };
    }

    private static Object canonical(Object value) {
        if (value instanceof BigDecimal || value instanceof Long || value instanceof Integer) {
            return ShardingValues.normalise(value);
        }
        if (value instanceof OffsetDateTime time) {
            return time.toInstant();
        }
        return value;
    }

    private static void assertUnreadable(String sqlState, Object value) {
        UnreadableValue unreadable = assertInstanceOf(UnreadableValue.class, value);
        assertEquals(sqlState, unreadable.sqlState(), unreadable.reason());
    }
}
