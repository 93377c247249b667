package io.ashlar.bootstrap.it;

import static io.ashlar.bootstrap.it.RawConnection.bind;
import static io.ashlar.bootstrap.it.RawConnection.close;
import static io.ashlar.bootstrap.it.RawConnection.concat;
import static io.ashlar.bootstrap.it.RawConnection.describe;
import static io.ashlar.bootstrap.it.RawConnection.execute;
import static io.ashlar.bootstrap.it.RawConnection.flush;
import static io.ashlar.bootstrap.it.RawConnection.parse;
import static io.ashlar.bootstrap.it.RawConnection.sync;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The parameter-encoding matrix: one sharded table per key type (int2, int4, int8, numeric, text,
 * varchar, uuid, date, timestamp) over two data sources, by an algorithm that takes that type;
 * rows inserted through the proxy with the key's type declared in Parse or left unspecified (0),
 * bound as text or as binary, and with unspecified types both with asyncpg's
 * Parse/Describe/Flush-then-Bind sequence and with a Bind that no Describe preceded. Each row must
 * lie on the node its key names, computed here by the algorithm's definition, and nowhere else;
 * and must be read back through the proxy with every encoding from that node alone (a decoy row
 * with the same key on the other node would show any read that goes elsewhere or everywhere).
 * A value the proxy cannot read for certain refuses a write with an ErrorResponse naming the
 * table, column and parameter, and a read by it is answered by every node.
 *
 * <p>The raw protocol client decides every type OID and format code; binary values are what the
 * types' send functions ({@code int4send}, {@code numeric_send}, {@code date_send}, ...) of the
 * backend PostgreSQL give.
 *
 * @see <a href="https://www.postgresql.org/docs/current/protocol-flow.html#PROTOCOL-FLOW-EXT-QUERY">55.2.3. Extended Query</a>
 */
final class ParameterEncodingMatrixTest {

    private static final String DATABASE = "matrix_db";
    private static final int TEXT_OID = 25;

    /** How a client binds a key: its type declared or not, text or binary, and whether it describes the statement first. */
    enum Encoding {
        DECLARED_TEXT(true, false, false),
        DECLARED_BINARY(true, true, false),
        UNSPECIFIED_TEXT_NO_DESCRIBE(false, false, false),
        UNSPECIFIED_BINARY_NO_DESCRIBE(false, true, false),
        UNSPECIFIED_TEXT_ASYNCPG(false, false, true),
        UNSPECIFIED_BINARY_ASYNCPG(false, true, true);

        final boolean declared;
        final boolean binary;
        final boolean describeFirst;

        Encoding(boolean declared, boolean binary, boolean describeFirst) {
            this.declared = declared;
            this.binary = binary;
            this.describeFirst = describeFirst;
        }
    }

    /**
     * A key type: its table, SQL type and OID, six keys (one per encoding; a key may be spelled otherwise as text
     * than PostgreSQL prints it), and where a key belongs ({@code ds_N.table}) by the algorithm's definition.
     */
    record KeyType(String table, String sqlType, int oid, List<String> keys, Function<String, String> node) {
    }

    private static final List<String> DATA_SOURCES = List.of("ds_0", "ds_1");

    private static final List<KeyType> TYPES = List.of(
            new KeyType("t_int2", "int2", 21, List.of("101", "102", "103", "104", "105", "106"), key -> inline(Long.parseLong(key.strip()), "t_int2")),
            new KeyType("t_int4", "int4", 23, List.of("41", "42", "-0", "2147483647", " 7 ", "1000"), key -> mod(Long.parseLong(key.strip()), "t_int4")),
            new KeyType("t_int8", "int8", 20, List.of("4294967297", "4294967298", "9223372036854775807", "12", "8589934593", "-8589934592"),
                    key -> mod(Long.parseLong(key), "t_int8")),
            new KeyType("t_numeric", "numeric", 1700, List.of("20.00", "21", "1e3", "12345678901234567891", "23.0000", "10001"),
                    key -> mod(new java.math.BigDecimal(key).toBigIntegerExact().mod(java.math.BigInteger.TWO).longValue(), "t_numeric")),
            new KeyType("t_text", "text", 25, List.of("alpha", "bravo", "charlie", "delta", "echo", "ünïcödé"), key -> hashMod(key, "t_text")),
            new KeyType("t_varchar", "varchar", 1043, List.of("k-1", "k-2", "k-3", "k-4", "k-5", "k-6"), key -> hashMod(key, "t_varchar")),
            new KeyType("t_uuid", "uuid", 2950, List.of("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "{B1EEBC99-9C0B-4EF8-BB6D-6BB9BD380A12}",
                    "c2eebc999c0b4ef8bb6d6bb9bd380a13", "d3eebc99-9c0b-4ef8-bb6d-6bb9bd380a14", "E4EEBC99-9C0B-4EF8-BB6D-6BB9BD380A15",
                    "f5eebc99-9c0b-4ef8-bb6d-6bb9bd380a16"), key -> hashMod(canonicalUuid(key), "t_uuid")),
            new KeyType("t_date", "date", 1082, List.of("2024-01-15", "2024-02-10", " 2024-1-31 ", "2024-02-29", "2024-01-01", "2024-02-01 +01"),
                    key -> key.strip().startsWith("2024-01") || key.strip().startsWith("2024-1-") ? "ds_0.t_date_202401" : "ds_1.t_date_202402"),
            new KeyType("t_timestamp", "timestamp", 1114, List.of("2024-01-01 10:00:00.5", "2024-01-02 23:59:59.999999", "2024-01-01 23:59:60",
                    "2024-01-02T06:00:00", "2024-01-01 00:00", "2024-01-02 12:30:00+05"),
                    key -> key.equals("2024-01-01 23:59:60") || key.startsWith("2024-01-02") ? "ds_1.t_timestamp_20240102" : "ds_0.t_timestamp_20240101"));

    private static ShardedProxyFixture fixture;

    @BeforeAll
    static void start() throws Exception {
        fixture = ShardedProxyFixture.start(DATABASE, DATA_SOURCES, (dataSource, admin, shard) -> {
            for (KeyType type : TYPES) {
                for (String table : actualTables(type, dataSource)) {
                    shard.execute("CREATE TABLE " + table + " (k " + type.sqlType() + " NOT NULL, v text NOT NULL)");
                }
            }
        }, """
                rules:
                  - !SHARDING
                    tables:
                      t_int2:
                        actualDataNodes: ds_${0..1}.t_int2
                        databaseStrategy: {standard: {shardingColumn: k, shardingAlgorithmName: k_inline}}
                      t_int4:
                        actualDataNodes: ds_${0..1}.t_int4
                        databaseStrategy: {standard: {shardingColumn: k, shardingAlgorithmName: k_mod}}
                      t_int8:
                        actualDataNodes: ds_${0..1}.t_int8
                        databaseStrategy: {standard: {shardingColumn: k, shardingAlgorithmName: k_mod}}
                      t_numeric:
                        actualDataNodes: ds_${0..1}.t_numeric
                        databaseStrategy: {standard: {shardingColumn: k, shardingAlgorithmName: k_mod}}
                      t_text:
                        actualDataNodes: ds_${0..1}.t_text
                        databaseStrategy: {standard: {shardingColumn: k, shardingAlgorithmName: k_hash_mod}}
                      t_varchar:
                        actualDataNodes: ds_${0..1}.t_varchar
                        databaseStrategy: {standard: {shardingColumn: k, shardingAlgorithmName: k_hash_mod}}
                      t_uuid:
                        actualDataNodes: ds_${0..1}.t_uuid
                        databaseStrategy: {standard: {shardingColumn: k, shardingAlgorithmName: k_hash_mod}}
                      t_date:
                        actualDataNodes: ds_0.t_date_202401,ds_1.t_date_202402
                        databaseStrategy: {none: {}}
                        tableStrategy: {standard: {shardingColumn: k, shardingAlgorithmName: k_month}}
                      t_timestamp:
                        actualDataNodes: ds_0.t_timestamp_20240101,ds_1.t_timestamp_20240102
                        databaseStrategy: {none: {}}
                        tableStrategy: {standard: {shardingColumn: k, shardingAlgorithmName: k_day}}
                    shardingAlgorithms:
                      k_inline:
                        type: INLINE
                        props: {algorithm-expression: 'ds_${k % 2}'}
                      k_mod:
                        type: MOD
                        props: {sharding-count: 2}
                      k_hash_mod:
                        type: HASH_MOD
                        props: {sharding-count: 2}
                      k_month:
                        type: INTERVAL
                        props: {datetime-pattern: 'yyyy-MM-dd', datetime-lower: '2024-01-01', datetime-upper: '2024-02-29',
                                sharding-suffix-pattern: yyyyMM, datetime-interval-amount: 1, datetime-interval-unit: MONTHS}
                      k_day:
                        type: INTERVAL
                        props: {datetime-pattern: 'yyyy-MM-dd HH:mm:ss', datetime-lower: '2024-01-01 00:00:00',
                                datetime-upper: '2024-01-02 23:59:59', sharding-suffix-pattern: yyyyMMdd, datetime-interval-amount: 1,
                                datetime-interval-unit: DAYS}
                """);
    }

    @AfterAll
    static void stop() throws IOException {
        if (fixture != null) {
            fixture.close();
        }
    }

    @Test
    void everyKeyTypeInEveryEncodingLandsOnTheNodeItsKeyNamesAndIsReadFromThereAlone() throws Exception {
        List<String> failures = new ArrayList<>();
        try (RawConnection client = logIn()) {
            for (KeyType type : TYPES) {
                Encoding[] encodings = Encoding.values();
                for (int i = 0; i < encodings.length; i++) {
                    String key = type.keys().get(i);
                    String label = label(type, encodings[i]);
                    String sql = "INSERT INTO " + type.table() + " (k, v) VALUES ($1, $2) /* " + encodings[i] + " */";
                    List<RawConnection.Message> answer = run(client, encodings[i], type, sql, key, label);
                    String error = error(answer);
                    if (error != null) {
                        failures.add(label + " (key '" + key + "'): INSERT failed: " + error);
                    }
                }
            }
            for (KeyType type : TYPES) {
                for (int i = 0; i < Encoding.values().length; i++) {
                    String key = type.keys().get(i);
                    String label = label(type, Encoding.values()[i]);
                    String expected = type.node().apply(key);
                    for (String node : nodes(type)) {
                        List<String> found = valuesOn(node, "v = '" + label + "'");
                        if (node.equals(expected) && found.size() != 1) {
                            failures.add(label + " (key '" + key + "') is not on " + node + ", where its key belongs");
                        } else if (!node.equals(expected) && !found.isEmpty()) {
                            failures.add(label + " (key '" + key + "') is on " + node + ", but its key belongs on " + expected);
                        }
                    }
                    String other = otherNode(type, expected);
                    insertDirectly(other, type, key, "decoy of " + label);
                }
            }
            for (KeyType type : TYPES) {
                for (Encoding encoding : Encoding.values()) {
                    String sql = "SELECT v FROM " + type.table() + " WHERE k = $1 /* " + encoding + " */";
                    for (int i = 0; i < Encoding.values().length; i++) {
                        String key = type.keys().get(i);
                        String label = label(type, Encoding.values()[i]);
                        List<RawConnection.Message> answer = run(client, encoding, type, sql, key, null);
                        String error = error(answer);
                        List<String> rows = dataRows(answer);
                        if (error != null) {
                            failures.add("reading " + label + " with " + encoding + " failed: " + error);
                        } else if (!rows.equals(List.of(label))) {
                            failures.add("reading " + label + " with " + encoding + " (key '" + key + "') gave " + rows + ", expected [" + label + "]");
                        }
                    }
                }
            }
        }
        if (!failures.isEmpty()) {
            fail(failures.size() + " failures:\n" + String.join("\n", failures));
        }
    }

    @Test
    void aVarcharKeySpellingAnIntegerIsPlacedAsTheStringItIsWhateverTheEncoding() throws Exception {
        // HASH_MOD hashes String "15" (hash 1572: ds_0) and Integer 15 (ds_1) apart: a text column's key must hash as the String.
        assertEquals("ds_0.t_varchar", hashMod("15", "t_varchar"));
        assertEquals("ds_1", "ds_" + Math.abs((long) Integer.valueOf(15).hashCode()) % 2);
        try (RawConnection client = logIn()) {
            for (Encoding encoding : Encoding.values()) {
                String label = "fifteen " + encoding;
                KeyType varchar = TYPES.get(5);
                String error = error(run(client, encoding, varchar, "INSERT INTO t_varchar (k, v) VALUES ($1, $2) /* fifteen " + encoding + " */",
                        "15", label));
                assertEquals(null, error, label);
                assertEquals(List.of(label), valuesOn("ds_0.t_varchar", "v = '" + label + "'"), label);
                assertEquals(List.of(), valuesOn("ds_1.t_varchar", "v = '" + label + "'"), label);
            }
        }
    }

    /**
     * A session in another client_encoding (WIN1252: the euro sign is 0x80, which ISO-8859-1 reads otherwise) sends its
     * keys in it, as a literal, as a text parameter and as a binary one (binary text is in the client_encoding too): each
     * row lies where the same characters sent in UTF-8 would, holds those characters, and is read back from there
     * alone. Merged over both nodes, keys order as the shards' "C" collation orders their characters, which is not
     * WIN1252's byte order (œ is 0x9C, below Ä's 0xC4, but U+0153 is above U+00C4).
     */
    @Test
    void textKeysInAnotherClientEncodingArePlacedAndReadAsTheirCharacters() throws Exception {
        java.nio.charset.Charset win1252 = java.nio.charset.Charset.forName("windows-1252");
        List<String> keys = List.of("café €1", "naïve €2", "Ärger €3", "œuvre €4");
        try (RawConnection client = fixture.logIn(DATABASE, Map.of("client_encoding", "WIN1252"))) {
            for (int i = 0; i < keys.size(); i++) {
                String key = keys.get(i);
                String label = "win1252 " + i;
                byte[] insert = switch (i % 3) {
                    case 0 -> RawConnection.message('Q', nulTerminated(("INSERT INTO t_text (k, v) VALUES ('" + key + "', '"
                            + label + "')").getBytes(win1252)));
                    case 1 -> concat(parse("", "INSERT INTO t_text (k, v) VALUES ($1, $2)", TEXT_OID, TEXT_OID),
                            bind("", "", new short[0], new byte[][] {key.getBytes(win1252), text(label)}, new short[0]), execute("", 0), sync());
                    default -> concat(parse("", "INSERT INTO t_text (k, v) VALUES ($1, $2)", TEXT_OID, TEXT_OID),
                            bind("", "", new short[] {1, 0}, new byte[][] {key.getBytes(win1252), text(label)}, new short[0]),
                            execute("", 0), sync());
                };
                assertEquals(null, error(send(client, insert)), label);
                String node = hashMod(key, "t_text");
                assertEquals(List.of(label), valuesOn(node, "k = '" + key + "'"), label + " where " + key + " belongs");
                String other = otherNode(TYPES.get(4), node);
                assertEquals(List.of(), valuesOn(other, "v = '" + label + "'"), label);
                insertDirectly(other, TYPES.get(4), key, "decoy of " + label);
                for (short format : new short[] {0, 1}) {
                    List<RawConnection.Message> read = send(client, concat(parse("", "SELECT v FROM t_text WHERE k = $1", TEXT_OID),
                            bind("", "", new short[] {format}, new byte[][] {key.getBytes(win1252)}, new short[0]), execute("", 0), sync()));
                    assertEquals(List.of(label), dataRows(read), label + " read by its key, format " + format);
                }
            }
            List<RawConnection.Message> ordered = send(client, RawConnection.query(
                    "SELECT k FROM t_text WHERE v LIKE '%win1252%' ORDER BY k, v"));
            assertEquals(null, error(ordered));
            List<String> expected = new ArrayList<>();
            for (String key : keys) {
                expected.add(key);
                expected.add(key); // and its decoy on the other node
            }
            assertEquals(expected, dataRows(ordered, win1252));
            List<RawConnection.Message> max = send(client, RawConnection.query("SELECT max(k), min(k) FROM t_text WHERE v LIKE '%win1252%'"));
            assertEquals(List.of("œuvre €4"), dataRows(max, win1252));
            // A shard's error, read by the proxy, reaches the client in its encoding, as does a column name.
            List<RawConnection.Message> refused = send(client, RawConnection.message('Q',
                    nulTerminated("SELECT nöne FROM t_text".getBytes(win1252))));
            assertEquals("42703", errorFields(refused).get('C'));
            String message = refused.stream().filter(m -> m.type() == 'E').map(m -> new String(m.body(), win1252)).findFirst().orElseThrow();
            assertTrue(message.contains("column \"nöne\" does not exist"), message);
            List<RawConnection.Message> named = send(client, RawConnection.message('Q',
                    nulTerminated("SELECT count(*) AS \"Zähler €\" FROM t_text".getBytes(win1252))));
            assertTrue(new String(named.get(0).body(), win1252).startsWith("\u0000\u0001Zähler €\u0000"), named.toString());
        }
    }

    private static byte[] nulTerminated(byte[] text) {
        return java.util.Arrays.copyOf(text, text.length + 1);
    }

    @Test
    void aValueTheProxyCannotReadRefusesTheWriteAndIsReadFromEveryNode() throws Exception {
        try (RawConnection client = logIn()) {
            // int4 in binary must be 4 bytes: refused at Bind, as PostgreSQL refuses these 3 bytes, so no node takes them.
            List<RawConnection.Message> refused = send(client, concat(parse("", "INSERT INTO t_int4 (k, v) VALUES ($1, $2)", 23, TEXT_OID),
                    bind("", "", new short[] {1, 0}, new byte[][] {{0, 0, 41}, text("three bytes")}, new short[0]), execute("", 0), sync()));
            Map<Character, String> fields = errorFields(refused);
            assertEquals("08P01", fields.get('C'), fields.toString());
            assertEquals("insufficient data left in message", fields.get('M'));
            // Five bytes: PostgreSQL's 22P03 at Bind.
            fields = errorFields(send(client, concat(bind("", "", new short[] {1, 0}, new byte[][] {{0, 0, 0, 0, 41}, text("five")},
                    new short[0]), execute("", 0), sync())));
            assertEquals("22P03", fields.get('C'), fields.toString());
            assertEquals("incorrect binary data format in bind parameter 1", fields.get('M'));
            // PostgreSQL reads 01/15/2024 by DateStyle (MDY here); Ashlar reads only the ISO spellings for certain.
            List<RawConnection.Message> byDateStyle = send(client, concat(parse("", "INSERT INTO t_date (k, v) VALUES ($1, $2)", 1082, TEXT_OID),
                    bind("", "", new short[0], new byte[][] {text("01/15/2024"), text("by DateStyle")}, new short[0]), execute("", 0), sync()));
            fields = errorFields(byDateStyle);
            assertEquals("22P02", fields.get('C'), fields.toString());
            assertTrue(fields.get('M').contains("t_date") && fields.get('M').contains("01/15/2024"), fields.get('M'));
            for (String dataSource : DATA_SOURCES) {
                for (String table : List.of("t_int4", "t_date_202401", "t_date_202402")) {
                    if (dataSource.equals("ds_0") && table.equals("t_date_202402") || dataSource.equals("ds_1") && table.equals("t_date_202401")) {
                        continue;
                    }
                    assertEquals(List.of(), valuesOn(dataSource + "." + table, "v IN ('three bytes', 'by DateStyle')"), dataSource + "." + table);
                }
            }
            // A read by it goes to every node: the row and a decoy of its key on the other node both answer.
            insertDirectly("ds_0.t_date_202401", TYPES.get(7), "2024-01-20", "dated");
            insertDirectly("ds_1.t_date_202402", TYPES.get(7), "2024-01-20", "decoy of dated");
            List<RawConnection.Message> read = send(client, concat(parse("", "SELECT v FROM t_date WHERE k = $1 ORDER BY v", 1082),
                    bind("", "", new short[0], new byte[][] {text("01/20/2024")}, new short[0]), execute("", 0), sync()));
            assertEquals(null, error(read));
            assertEquals(List.of("dated", "decoy of dated"), dataRows(read));
            // The same key in ISO is read for certain, and from its node alone.
            List<RawConnection.Message> iso = send(client, concat(parse("", "SELECT v FROM t_date WHERE k = $1 ORDER BY v", 1082),
                    bind("", "", new short[0], new byte[][] {text("2024-01-20")}, new short[0]), execute("", 0), sync()));
            assertEquals(List.of("dated"), dataRows(iso));
        }
    }

    // ------------------------------------------------------------------ protocol

    /**
     * Runs an INSERT (key and value) or a SELECT (key only, when {@code value} is null) with one encoding: an
     * unnamed Parse/Bind/Execute/Sync, or asyncpg's named Parse/Describe/Flush, then Bind/Execute/Sync, then Close.
     */
    private static List<RawConnection.Message> run(RawConnection client, Encoding encoding, KeyType type, String sql, String key,
                                                   String value) throws IOException, SQLException {
        int keyType = encoding.declared ? type.oid() : 0;
        int[] types = value == null ? new int[] {keyType} : new int[] {keyType, encoding.declared ? TEXT_OID : 0};
        byte[] keyBytes = encoding.binary ? send(type.sqlType(), key) : text(key);
        byte[][] values = value == null ? new byte[][] {keyBytes} : new byte[][] {keyBytes, text(value)};
        short[] formats = value == null ? new short[] {(short) (encoding.binary ? 1 : 0)} : new short[] {(short) (encoding.binary ? 1 : 0), 0};
        if (!encoding.describeFirst) {
            return send(client, concat(parse("", sql, types), bind("", "", formats, values, new short[0]), execute("", 0), sync()));
        }
        String name = "__asyncpg_stmt_" + Integer.toHexString(sql.hashCode() ^ key.hashCode()) + "__";
        client.send(concat(parse(name, sql, types), describe('S', name), flush()));
        List<RawConnection.Message> described = new ArrayList<>();
        while (true) {
            RawConnection.Message message = client.read();
            if (message == null) {
                throw new AssertionError("connection closed after Describe/Flush: " + described);
            }
            described.add(message);
            if (message.type() == 'E') {
                client.send(sync());
                client.readUntilReady();
                return described;
            }
            if (message.type() == 'n' || message.type() == 'T') {
                break;
            }
        }
        RawConnection.Message parameters = described.get(described.size() - 2);
        assertEquals('t', parameters.type(), () -> "expected ParameterDescription: " + described);
        int described$1 = ByteBuffer.wrap(parameters.body()).getInt(2);
        if (value != null) {
            assertEquals(type.oid(), described$1, () -> "the backend's type of $1 of " + sql);
        } else {
            // varchar = $1 compares as text: PostgreSQL types $1 text
            assertTrue(described$1 == type.oid() || type.oid() == 1043 && described$1 == TEXT_OID, () -> "the backend's type of $1 of " + sql);
        }
        List<RawConnection.Message> result = send(client, concat(bind("", name, formats, values, new short[0]), execute("", 0), sync()));
        send(client, concat(close('S', name), sync()));
        return result;
    }

    private static List<RawConnection.Message> send(RawConnection client, byte[] messages) throws IOException {
        client.send(messages);
        return client.readUntilReady();
    }

    private static RawConnection logIn() throws IOException {
        return fixture.logIn(DATABASE, Map.of());
    }

    private static String error(List<RawConnection.Message> answer) {
        for (RawConnection.Message each : answer) {
            if (each.type() == 'E') {
                return each.fields().toString();
            }
        }
        return null;
    }

    private static Map<Character, String> errorFields(List<RawConnection.Message> answer) {
        for (RawConnection.Message each : answer) {
            if (each.type() == 'E') {
                return each.fields();
            }
        }
        throw new AssertionError("expected an ErrorResponse, got " + answer);
    }

    /** The first column of each DataRow, as text. */
    private static List<String> dataRows(List<RawConnection.Message> answer) {
        return dataRows(answer, StandardCharsets.UTF_8);
    }

    /** The first column of each DataRow, as text in {@code charset}. */
    private static List<String> dataRows(List<RawConnection.Message> answer, java.nio.charset.Charset charset) {
        List<String> result = new ArrayList<>();
        for (RawConnection.Message each : answer) {
            if (each.type() == 'D') {
                ByteBuffer body = ByteBuffer.wrap(each.body());
                body.getShort();
                int length = body.getInt();
                result.add(new String(each.body(), body.position(), length, charset));
            }
        }
        return result;
    }

    private static byte[] text(String value) {
        return value.getBytes(StandardCharsets.UTF_8);
    }

    // ------------------------------------------------------------------ the shards, read directly

    /** PostgreSQL's binary form of a key: the type's send function applied to the key read as text. */
    private static byte[] send(String sqlType, String key) throws SQLException {
        String function = switch (sqlType) {
            case "numeric" -> "numeric_send";
            case "uuid" -> "uuid_send";
            case "date" -> "date_send";
            case "timestamp" -> "timestamp_send";
            default -> sqlType + "send";
        };
        try (Connection c = shard("ds_0");
                PreparedStatement statement = c.prepareStatement("SELECT " + function + "(CAST(CAST(? AS text) AS " + sqlType + "))")) {
            statement.setString(1, key);
            try (ResultSet rs = statement.executeQuery()) {
                rs.next();
                return rs.getBytes(1);
            }
        }
    }

    private static List<String> valuesOn(String node, String condition) throws SQLException {
        int dot = node.indexOf('.');
        List<String> result = new ArrayList<>();
        try (Connection c = shard(node.substring(0, dot)); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT v FROM " + node.substring(dot + 1) + " WHERE " + condition + " ORDER BY v")) {
            while (rs.next()) {
                result.add(rs.getString(1));
            }
        }
        return result;
    }

    private static void insertDirectly(String node, KeyType type, String key, String value) throws SQLException {
        int dot = node.indexOf('.');
        try (Connection c = shard(node.substring(0, dot));
                PreparedStatement statement = c.prepareStatement("INSERT INTO " + node.substring(dot + 1) + " (k, v) VALUES (CAST(CAST(? AS text) AS "
                        + type.sqlType() + "), ?)")) {
            statement.setString(1, key);
            statement.setString(2, value);
            statement.executeUpdate();
        }
    }

    private static Connection shard(String dataSource) throws SQLException {
        return fixture.shard(dataSource);
    }

    // ------------------------------------------------------------------ where keys belong, by the algorithms' definitions

    private static List<String> actualTables(KeyType type, String dataSource) {
        return switch (type.table()) {
            case "t_date" -> List.of(dataSource.equals("ds_0") ? "t_date_202401" : "t_date_202402");
            case "t_timestamp" -> List.of(dataSource.equals("ds_0") ? "t_timestamp_20240101" : "t_timestamp_20240102");
            default -> List.of(type.table());
        };
    }

    private static List<String> nodes(KeyType type) {
        List<String> result = new ArrayList<>();
        for (String dataSource : DATA_SOURCES) {
            for (String table : actualTables(type, dataSource)) {
                result.add(dataSource + "." + table);
            }
        }
        return result;
    }

    private static String otherNode(KeyType type, String node) {
        for (String each : nodes(type)) {
            if (!each.equals(node)) {
                return each;
            }
        }
        throw new AssertionError(type.table() + " has one node");
    }

    /** INLINE {@code ds_${k % 2}}. */
    private static String inline(long key, String table) {
        return "ds_" + key % 2 + "." + table;
    }

    /** MOD with sharding-count 2: the non-negative remainder. */
    private static String mod(long key, String table) {
        return "ds_" + Math.floorMod(key, 2) + "." + table;
    }

    /** HASH_MOD with sharding-count 2 of the String, as ShardingSphere hashes a String parameter. */
    private static String hashMod(String key, String table) {
        return "ds_" + Math.abs((long) key.hashCode()) % 2 + "." + table;
    }

    private static String canonicalUuid(String key) {
        String hex = key.replace("{", "").replace("}", "").replace("-", "").toLowerCase(Locale.ROOT);
        return hex.substring(0, 8) + "-" + hex.substring(8, 12) + "-" + hex.substring(12, 16) + "-" + hex.substring(16, 20) + "-" + hex.substring(20);
    }

    private static String label(KeyType type, Encoding encoding) {
        return type.sqlType() + " " + encoding.name().toLowerCase(Locale.ROOT);
    }
}
