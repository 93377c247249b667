package io.ashlar.bootstrap.it;

import static io.ashlar.bootstrap.it.RawConnection.bind;
import static io.ashlar.bootstrap.it.RawConnection.close;
import static io.ashlar.bootstrap.it.RawConnection.concat;
import static io.ashlar.bootstrap.it.RawConnection.describe;
import static io.ashlar.bootstrap.it.RawConnection.execute;
import static io.ashlar.bootstrap.it.RawConnection.flush;
import static io.ashlar.bootstrap.it.RawConnection.parse;
import static io.ashlar.bootstrap.it.RawConnection.query;
import static io.ashlar.bootstrap.it.RawConnection.sync;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The same hand-written message sequences sent to the proxy and to PostgreSQL itself must get
 * the same replies, message for message: the extended query protocol's pipelining, portals read
 * in pieces, errors that skip to Sync, implicit transactions, ReadyForQuery's transaction
 * status, NoData, EmptyQueryResponse, ParameterStatus after SET. Every reply is rendered as a
 * line (RowDescription decoded, with table OIDs reduced to "a table" since the two runs use two
 * databases; errors by severity, SQLSTATE, message, detail, hint and position) so that a
 * difference reads like a protocol trace. The server runs in time zone Asia/Tokyo, unlike the
 * JVM, so that session defaults taken from the wrong place show.
 *
 * @see <a href="https://www.postgresql.org/docs/current/protocol-flow.html#PROTOCOL-FLOW-EXT-QUERY">Extended Query</a>
 * @see <a href="https://www.postgresql.org/docs/current/protocol-flow.html#PROTOCOL-FLOW-PIPELINING">Pipelining</a>
 */
final class WireTraceTest {

    private static final String DIRECT_DATABASE = "wire_direct";

    private static ProxiedPostgres server;

    @BeforeAll
    static void start() throws Exception {
        // A server time zone other than the JVM's: a client that sets none must get the server's, as directly.
        server = ProxiedPostgres.start(Map.of("timezone", "Asia/Tokyo"));
        try (Connection c = server.direct(""); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + DIRECT_DATABASE);
        }
    }

    @AfterAll
    static void stop() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    private static RawConnection direct() throws IOException {
        RawConnection result = new RawConnection(server.backendPort());
        result.logIn(ProxiedPostgres.BACKEND_USER, DIRECT_DATABASE, "");
        return result;
    }

    private static RawConnection proxied() throws IOException {
        RawConnection result = new RawConnection(server.proxyPort());
        result.logIn(ProxiedPostgres.PASSWORD_USER, ProxiedPostgres.DATABASE, ProxiedPostgres.password(ProxiedPostgres.PASSWORD_USER));
        return result;
    }

    /** One reply as a comparable line. */
    static String render(RawConnection.Message m) {
        return switch (m.type()) {
            case 'E', 'N' -> {
                Map<Character, String> f = m.fields();
                yield m.type() + " " + f.get('S') + " " + f.get('C') + " " + f.get('M')
                        + (f.containsKey('D') ? " detail=" + f.get('D') : "")
                        + (f.containsKey('H') ? " hint=" + f.get('H') : "")
                        + (f.containsKey('P') ? " position=" + f.get('P') : "");
            }
            case 'T' -> "T " + rowDescription(m.body());
            case 'C' -> "C " + m.text();
            case 'S' -> "S " + m.text() + "=" + new String(m.body(), m.text().getBytes(StandardCharsets.UTF_8).length + 1,
                    m.body().length - m.text().getBytes(StandardCharsets.UTF_8).length - 2, StandardCharsets.UTF_8);
            case 'Z' -> "Z " + (char) m.body()[0];
            default -> m.type() + (m.body().length == 0 ? "" : " " + HexFormat.of().formatHex(m.body()));
        };
    }

    private static String rowDescription(byte[] body) {
        ByteBuffer b = ByteBuffer.wrap(body);
        int count = b.getShort();
        List<String> fields = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            int start = b.position();
            while (b.get() != 0) {
                // the field name
            }
            String name = new String(body, start, b.position() - start - 1, StandardCharsets.UTF_8);
            int tableOid = b.getInt();
            short column = b.getShort();
            int typeOid = b.getInt();
            short size = b.getShort();
            int modifier = b.getInt();
            short format = b.getShort();
            fields.add(name + "(table=" + (tableOid == 0 ? "0" : "a table") + " column=" + column + " type=" + typeOid
                    + " size=" + size + " mod=" + modifier + " format=" + format + ")");
        }
        return fields.toString();
    }

    /** Sends the bytes and renders the replies up to the given number of ReadyForQuery messages. */
    private static List<String> trace(RawConnection connection, byte[] bytes, int readyForQueries) throws IOException {
        connection.send(bytes);
        List<String> result = new ArrayList<>();
        for (int i = 0; i < readyForQueries; i++) {
            for (RawConnection.Message m : connection.readUntilReady()) {
                result.add(render(m));
            }
        }
        return result;
    }

    /**
     * Runs the setup query (replies ignored), then the messages, on a fresh connection to each
     * side, and asserts the same replies.
     */
    private static List<String> assertSameTrace(String setup, int readyForQueries, byte[]... messages) throws IOException {
        byte[] bytes = concat(messages);
        List<String> expected;
        try (RawConnection c = direct()) {
            if (!setup.isEmpty()) {
                trace(c, query(setup), 1);
            }
            expected = trace(c, bytes, readyForQueries);
        }
        List<String> actual;
        try (RawConnection c = proxied()) {
            if (!setup.isEmpty()) {
                trace(c, query(setup), 1);
            }
            actual = trace(c, bytes, readyForQueries);
        }
        assertEquals(String.join("\n", expected), String.join("\n", actual), "replies of the proxy versus PostgreSQL");
        return actual;
    }

    private static byte[] int4(int value) {
        return ByteBuffer.allocate(4).putInt(value).array();
    }

    @Test
    void loginReportsTheServersParameters() throws IOException {
        Map<String, String> expected;
        try (RawConnection c = new RawConnection(server.backendPort())) {
            expected = parameterStatuses(c.logIn(ProxiedPostgres.BACKEND_USER, DIRECT_DATABASE, ""));
        }
        Map<String, String> actual;
        try (RawConnection c = new RawConnection(server.proxyPort())) {
            actual = parameterStatuses(c.logIn(ProxiedPostgres.PASSWORD_USER, ProxiedPostgres.DATABASE,
                    ProxiedPostgres.password(ProxiedPostgres.PASSWORD_USER)));
        }
        assertEquals(ProxiedPostgres.BACKEND_USER, expected.remove("session_authorization"));
        assertEquals(ProxiedPostgres.PASSWORD_USER, actual.remove("session_authorization"));
        assertEquals(expected, actual, "ParameterStatus at login");
    }

    /**
     * A client that sets DateStyle at startup (pgjdbc sends {@code DateStyle=ISO}) is told the value as
     * PostgreSQL normalizes it ({@code ISO, MDY}), not as it asked: told only {@code ISO}, it got a second
     * DateStyle ParameterStatus after its next SET of anything. Any style, on this pooled database: German
     * means day first unless the client names an order.
     */
    @org.junit.jupiter.params.ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.ValueSource(strings = {"DateStyle=ISO", "DateStyle=iso, dmy", "DateStyle=ISO,YMD",
            "DateStyle=ISO, European", "options=-c DateStyle=ISO,US", "DateStyle=ISO, MDY", "DateStyle=German",
            "DateStyle=sql", "options=-c DateStyle=Postgres,YMD", "DateStyle=German, MDY"})
    void dateStyleAtStartupIsReportedAsPostgresqlReportsIt(String parameter) throws IOException {
        Map<String, String> startup = Map.of(parameter.substring(0, parameter.indexOf('=')), parameter.substring(parameter.indexOf('=') + 1));
        List<String> expected = new ArrayList<>();
        try (RawConnection c = new RawConnection(server.backendPort())) {
            expected.add(parameterStatuses(c.logIn(ProxiedPostgres.BACKEND_USER, DIRECT_DATABASE, "", startup)).get("DateStyle"));
            expected.addAll(trace(c, query("SET application_name = 'after'"), 1));
            expected.addAll(trace(c, query("SELECT current_setting('DateStyle')"), 1));
            expected.addAll(trace(c, query("SELECT DATE '2024-01-31', TIMESTAMP '2024-01-31 13:14:15'"), 1));
        }
        List<String> actual = new ArrayList<>();
        try (RawConnection c = new RawConnection(server.proxyPort())) {
            actual.add(parameterStatuses(c.logIn(ProxiedPostgres.PASSWORD_USER, ProxiedPostgres.DATABASE,
                    ProxiedPostgres.password(ProxiedPostgres.PASSWORD_USER), startup)).get("DateStyle"));
            actual.addAll(trace(c, query("SET application_name = 'after'"), 1));
            actual.addAll(trace(c, query("SELECT current_setting('DateStyle')"), 1));
            actual.addAll(trace(c, query("SELECT DATE '2024-01-31', TIMESTAMP '2024-01-31 13:14:15'"), 1));
        }
        assertEquals(String.join("\n", expected), String.join("\n", actual), "DateStyle at login and after a SET");
    }

    private static Map<String, String> parameterStatuses(List<RawConnection.Message> login) {
        Map<String, String> result = new java.util.TreeMap<>();
        for (RawConnection.Message m : login) {
            if (m.type() == 'S') {
                String line = render(m).substring(2);
                int eq = line.indexOf('=');
                result.put(line.substring(0, eq), line.substring(eq + 1));
            }
        }
        return result;
    }

    @Test
    void sessionDefaultsAreTheServersForAClientThatSetsNothing() throws IOException {
        assertSameTrace("", 1, query("SELECT current_setting('TimeZone') AS tz, current_setting('DateStyle') AS ds,"
                + " current_setting('IntervalStyle') AS ist, current_setting('extra_float_digits') AS efd,"
                + " current_setting('application_name') AS app, current_setting('search_path') AS sp,"
                + " current_setting('client_min_messages') AS cmm, current_setting('bytea_output') AS bo,"
                + " current_setting('statement_timeout') AS st, current_setting('default_transaction_isolation') AS iso,"
                + " now()::date::text = current_date::text AS same_day, 1e-7::float8::text AS small_float,"
                + " '2024-01-01 12:00:00+00'::timestamptz::text AS shown_instant"));
    }

    /** A string in ISO-8859-1 (or any one-byte encoding's bytes given as chars), NUL-terminated. */
    private static byte[] bytes(String text) {
        byte[] b = text.getBytes(StandardCharsets.ISO_8859_1);
        return java.util.Arrays.copyOf(b, b.length + 1);
    }

    private static byte[] int2(int value) {
        return ByteBuffer.allocate(2).putShort((short) value).array();
    }

    /**
     * A pooled database relays a client's text byte for byte and the backend converts it, as it
     * would for a direct client: LATIN1 from the startup packet, then WIN1252 and back to UTF8 by
     * SET; SQL text, statement names, parameter values and results in those encodings, in the
     * simple and the extended protocol; and bytes that are not UTF-8 from a UTF8 client refused by
     * the backend (22021), not turned into U+FFFD by the proxy. The same replies, byte for byte.
     */
    @Test
    void clientEncodingsOtherThanUtf8PassByteForByte() throws IOException {
        byte[][] steps = {
            RawConnection.message('Q', bytes("SELECT 'caf\u00e9' AS c, length('caf\u00e9') AS n, convert_to('caf\u00e9', 'UTF8') AS u")),
            concat(RawConnection.message('P', concat(bytes("stmt_\u00e9"), bytes("SELECT $1::text || '\u00fc' AS v, length($1::text) AS n"), int2(0))),
                    RawConnection.message('B', concat(bytes(""), bytes("stmt_\u00e9"), int2(0), int2(1), int4(5),
                            "na\u00efve".getBytes(StandardCharsets.ISO_8859_1), int2(0))),
                    describe('P', ""), execute("", 0), sync()),
            query("SET client_encoding TO 'WIN1252'"),
            RawConnection.message('Q', bytes("SELECT '\u0080' AS euro, convert_to('\u0080', 'UTF8') AS u, current_setting('client_encoding')")),
            query("RESET client_encoding"),
            query("SET client_encoding TO 'UTF8'"),
            RawConnection.message('Q', bytes("SELECT 'x\u00ff'")),
            query("SELECT '\u00e9' AS e, convert_to('\u00e9', 'UTF8') AS u"),
        };
        Map<String, String> latin1 = Map.of("client_encoding", "LATIN1");
        List<String> expected = new ArrayList<>();
        try (RawConnection c = new RawConnection(server.backendPort())) {
            expected.add(parameterStatuses(c.logIn(ProxiedPostgres.BACKEND_USER, DIRECT_DATABASE, "", latin1)).get("client_encoding"));
            for (byte[] step : steps) {
                expected.addAll(trace(c, step, 1));
            }
        }
        List<String> actual = new ArrayList<>();
        try (RawConnection c = new RawConnection(server.proxyPort())) {
            actual.add(parameterStatuses(c.logIn(ProxiedPostgres.PASSWORD_USER, ProxiedPostgres.DATABASE,
                    ProxiedPostgres.password(ProxiedPostgres.PASSWORD_USER), latin1)).get("client_encoding"));
            for (byte[] step : steps) {
                actual.addAll(trace(c, step, 1));
            }
        }
        assertEquals("LATIN1", expected.get(0));
        assertTrue(expected.contains("E ERROR 22021 invalid byte sequence for encoding \"UTF8\": 0xff"), () -> "direct: " + expected);
        assertEquals(String.join("\n", expected), String.join("\n", actual), "replies of the proxy versus PostgreSQL");
    }

    private static final String COPY_TABLE = "CREATE TABLE IF NOT EXISTS wire_copy (a int, b text)";

    /**
     * COPY FROM STDIN in the extended protocol, as libpq sends it: Execute and Sync, then (once
     * CopyInResponse came) the data, CopyDone and another Sync. The backend ignores the first Sync
     * (it is in copy-in mode) and answers the second; the statements after it are answered as usual
     * (the proxy awaited a ReadyForQuery for the first Sync, and the client's second statement after
     * the COPY hung).
     */
    @Test
    void copyFromStdinInTheExtendedProtocol() throws IOException {
        List<String> expected;
        try (RawConnection c = direct()) {
            expected = libpqCopyIn(c, RawConnection.message('c', new byte[0]));
        }
        List<String> actual;
        try (RawConnection c = proxied()) {
            actual = libpqCopyIn(c, RawConnection.message('c', new byte[0]));
        }
        assertEquals(String.join("\n", expected), String.join("\n", actual), "replies of the proxy versus PostgreSQL");
        assertTrue(actual.contains("C COPY 2"), actual::toString);
    }

    private static List<String> libpqCopyIn(RawConnection c, byte[] end) throws IOException {
        trace(c, query(COPY_TABLE), 1);
        List<String> result = new ArrayList<>();
        c.send(concat(parse("", "COPY wire_copy FROM STDIN"), bind("", ""), execute("", 0), sync()));
        for (RawConnection.Message m : c.readThrough('G')) {
            result.add(render(m));
        }
        result.addAll(trace(c, concat(RawConnection.message('d', "1\tone\n2\ttwo\n".getBytes(StandardCharsets.UTF_8)),
                end, sync()), 1));
        for (int i = 0; i < 3; i++) {
            result.addAll(trace(c, concat(parse("", "SELECT " + i + " AS after"), bind("", ""), describe('P', ""),
                    execute("", 0), sync()), 1));
            result.addAll(trace(c, query("SELECT " + i + " AS again"), 1));
        }
        return result;
    }

    /** The same ended by CopyFail, then by a bad row: the error, and the session goes on. */
    @Test
    void copyFromStdinInTheExtendedProtocolThatFails() throws IOException {
        List<String> expected;
        try (RawConnection c = direct()) {
            expected = libpqCopyIn(c, RawConnection.message('f', RawConnection.cString("client gave up")));
        }
        List<String> actual;
        try (RawConnection c = proxied()) {
            actual = libpqCopyIn(c, RawConnection.message('f', RawConnection.cString("client gave up")));
        }
        assertEquals(String.join("\n", expected), String.join("\n", actual), "replies of the proxy versus PostgreSQL");
        assertSameTrace(COPY_TABLE, 2,
                parse("", "COPY wire_copy FROM STDIN"),
                bind("", ""),
                execute("", 0),
                sync(),
                RawConnection.message('d', "3\tthree\n".getBytes(StandardCharsets.UTF_8)),
                RawConnection.message('f', RawConnection.cString("client gave up")),
                sync(),
                query("SELECT 1 AS after"));
        assertSameTrace(COPY_TABLE, 2,
                parse("", "COPY wire_copy FROM STDIN"),
                bind("", ""),
                execute("", 0),
                sync(),
                RawConnection.message('d', "x\tnot a number\n".getBytes(StandardCharsets.UTF_8)),
                RawConnection.message('c', new byte[0]),
                sync(),
                query("SELECT 1 AS after"));
    }

    /**
     * An error in a pipeline, then a simple Query before the pipeline's Sync: the backend skips the
     * Query too and answers the Sync (the relay held the Sync back behind the Query, for ever).
     */
    @Test
    void errorThenSimpleQueryBeforeSync() throws IOException {
        assertSameTrace("", 2,
                parse("", "SELECT 1/0"),
                bind("", ""),
                execute("", 0),
                query("SELECT 2 AS skipped"),
                sync(),
                query("SELECT 3 AS after"));
    }

    /**
     * A named statement parsed again after DDL changed its result is planned anew, as PostgreSQL
     * plans every Parse (the relay answered it from the connection's earlier statement of the same
     * text: 0A000 cached plan must not change result type, for every session on that connection).
     */
    @Test
    void statementParsedAgainAfterDdlSeesTheNewTable() throws IOException {
        assertSameTrace("DROP TABLE IF EXISTS wire_stale; CREATE TABLE wire_stale (a int); INSERT INTO wire_stale VALUES (1)", 3,
                parse("before", "SELECT * FROM wire_stale"), bind("", "before"), describe('P', ""), execute("", 0), sync(),
                query("ALTER TABLE wire_stale ADD COLUMN b int DEFAULT 7"),
                parse("after", "SELECT * FROM wire_stale"), bind("", "after"), describe('P', ""), execute("", 0), sync());
    }

    /**
     * The session's statement names follow PostgreSQL's: a failed or skipped Parse names nothing,
     * DEALLOCATE ALL frees every name. Each step is sent once the previous one was answered (a Parse
     * retried in the same write as the one that failed still finds the name taken).
     */
    @Test
    void statementNamesFollowFailedAndSkippedParsesAndDeallocateAll() throws IOException {
        byte[][] steps = {
            concat(parse("s_bad", "SELEC 1"), sync()),
            concat(parse("s_bad", "SELECT 1"), bind("", "s_bad"), execute("", 0), sync()),
            concat(parse("", "SELECT 1/0"), bind("", ""), execute("", 0), parse("s_skip", "SELECT 5"), sync()),
            concat(bind("", "s_skip"), execute("", 0), sync()),
            query("DEALLOCATE ALL"),
            concat(parse("s_bad", "SELECT 2"), bind("", "s_bad"), execute("", 0), sync()),
            query("PREPARE s_sql AS SELECT 3"),
            concat(close('S', "s_sql"), sync()),
            query("PREPARE s_sql AS SELECT 4")};
        List<String> expected = new ArrayList<>();
        try (RawConnection c = direct()) {
            for (byte[] step : steps) {
                expected.addAll(trace(c, step, 1));
            }
        }
        List<String> actual = new ArrayList<>();
        try (RawConnection c = proxied()) {
            for (byte[] step : steps) {
                actual.addAll(trace(c, step, 1));
            }
        }
        assertEquals(String.join("\n", expected), String.join("\n", actual), "replies of the proxy versus PostgreSQL");
    }

    /** COPY TO STDOUT in the extended protocol, then the next statement. */
    @Test
    void copyToStdoutInTheExtendedProtocol() throws IOException {
        assertSameTrace(COPY_TABLE, 2,
                parse("", "COPY (SELECT g, 'r' || g FROM generate_series(1, 3) g) TO STDOUT"),
                bind("", ""),
                execute("", 0),
                sync(),
                query("SELECT 1 AS after"));
    }

    @Test
    void namedStatementDescribedThenPortalReadInPieces() throws IOException {
        List<String> trace = assertSameTrace("", 1,
                parse("s1", "SELECT g, 'r' || g AS label FROM generate_series(1, 5) g"),
                describe('S', "s1"),
                bind("p1", "s1"),
                execute("p1", 2),
                execute("p1", 2),
                execute("p1", 0),
                close('P', "p1"),
                close('S', "s1"),
                sync());
        assertEquals("1", trace.get(0));
        assertEquals("C SELECT 1", trace.get(trace.size() - 4));
    }

    @Test
    void binaryParametersAndBinaryResults() throws IOException {
        assertSameTrace("", 1,
                parse("", "SELECT $1::int4 + 1 AS n, $2::text || 'x' AS t, $3::int8 AS missing", 23, 25, 20),
                bind("", "", new short[] {1, 0, 1}, new byte[][] {int4(41), "a".getBytes(StandardCharsets.UTF_8), null},
                        new short[] {1}),
                describe('P', ""),
                execute("", 0),
                sync());
    }

    @Test
    void errorInPipelineSkipsEverythingUpToSync() throws IOException {
        // The error is raised while executing (random() is not folded into a constant at Bind):
        // Ashlar acknowledges Bind before the backend plans the statement, so an error PostgreSQL
        // raises at Bind (SELECT 1 / 0 is folded by the planner) comes after BindComplete here;
        // docs/protocol.md lists this difference.
        assertSameTrace("", 2,
                parse("", "SELECT 1 / (random() * 0)::int"),
                bind("", ""),
                execute("", 0),
                parse("", "SELECT 2"),
                bind("", ""),
                execute("", 0),
                sync(),
                query("SELECT 3"));
    }

    @Test
    void pipelineBeforeSyncIsOneImplicitTransaction() throws IOException {
        List<String> trace = assertSameTrace("DROP TABLE IF EXISTS wire_implicit; CREATE TABLE wire_implicit (id int PRIMARY KEY)", 2,
                parse("", "INSERT INTO wire_implicit VALUES (1)"),
                bind("", ""),
                execute("", 0),
                parse("", "INSERT INTO wire_implicit VALUES (2)"),
                bind("", ""),
                execute("", 0),
                parse("", "INSERT INTO wire_implicit VALUES (1)"),
                bind("", ""),
                execute("", 0),
                sync(),
                query("SELECT count(*) FROM wire_implicit"));
        assertEquals("D 00010000000130", trace.get(trace.size() - 3));
    }

    @Test
    void readyForQueryReportsTheTransactionStatus() throws IOException {
        List<String> trace = assertSameTrace("", 5,
                query("BEGIN"),
                query("SELECT 1 / 0"),
                query("SELECT 1"),
                query("ROLLBACK"),
                query("SELECT 4"));
        List<String> statuses = new ArrayList<>();
        for (String line : trace) {
            if (line.startsWith("Z ")) {
                statuses.add(line);
            }
        }
        assertEquals(List.of("Z T", "Z E", "Z E", "Z I", "Z I"), statuses);
    }

    @Test
    void extendedProtocolTransactionStatusAndPortalAcrossSyncInTransaction() throws IOException {
        assertSameTrace("", 5,
                query("BEGIN"),
                parse("cur", "SELECT g FROM generate_series(1, 5) g"),
                bind("p", "cur"),
                execute("p", 2),
                sync(),
                execute("p", 2),
                sync(),
                execute("p", 0),
                close('P', "p"),
                sync(),
                query("COMMIT"));
    }

    @Test
    void unnamedPortalIsGoneAfterSyncOutsideATransaction() throws IOException {
        assertSameTrace("", 2,
                parse("", "SELECT g FROM generate_series(1, 5) g"),
                bind("", ""),
                execute("", 2),
                sync(),
                execute("", 2),
                sync());
    }

    @Test
    void multiStatementQueryStopsAtTheFirstError() throws IOException {
        assertSameTrace("", 1, query("SELECT 1; SELECT 1 / 0; SELECT 3"));
    }

    @Test
    void emptyQueriesAnswerEmptyQueryResponse() throws IOException {
        assertSameTrace("", 4,
                query(""),
                query("  -- only a comment"),
                query(";"),
                concat(parse("", ""), bind("", ""), describe('P', ""), execute("", 0), sync()));
    }

    @Test
    void statementWithoutRowsDescribesAsNoData() throws IOException {
        assertSameTrace("", 1,
                parse("", "DO $$ BEGIN PERFORM 1; END $$"),
                describe('S', ""),
                bind("", ""),
                describe('P', ""),
                execute("", 0),
                sync());
    }

    @Test
    void flushSendsRepliesBeforeSync() throws IOException {
        byte[] pipeline = concat(parse("", "SELECT 42"), bind("", ""), execute("", 0), flush());
        List<String> expected;
        try (RawConnection c = direct()) {
            c.send(pipeline);
            expected = renderAll(c.readThrough('C'));
            c.send(sync());
            expected.addAll(renderAll(c.readUntilReady()));
        }
        List<String> actual;
        try (RawConnection c = proxied()) {
            c.send(pipeline);
            actual = renderAll(c.readThrough('C'));
            c.send(sync());
            actual.addAll(renderAll(c.readUntilReady()));
        }
        assertEquals(expected, actual);
        assertEquals(List.of("1", "2", "D 0001000000023432", "C SELECT 1", "Z I"), actual);
    }

    private static List<String> renderAll(List<RawConnection.Message> messages) {
        List<String> result = new ArrayList<>();
        for (RawConnection.Message m : messages) {
            result.add(render(m));
        }
        return result;
    }

    @Test
    void duplicateAndUnknownStatementsAndPortalsAreRefused() throws IOException {
        assertSameTrace("", 6,
                parse("dup", "SELECT 1"),
                sync(),
                parse("dup", "SELECT 2"),
                sync(),
                bind("", "no_such_statement"),
                sync(),
                execute("no_such_portal", 0),
                sync(),
                describe('S', "no_such_statement"),
                sync(),
                close('S', "dup"),
                close('S', "no_such_statement"),
                close('P', "no_such_portal"),
                sync());
    }

    @Test
    void bindWithWrongParameterCountIsRefused() throws IOException {
        assertSameTrace("", 2,
                parse("", "SELECT $1::int"),
                bind("", ""),
                execute("", 0),
                sync(),
                parse("", "SELECT 1"),
                bind("", "", "unexpected"),
                execute("", 0),
                sync());
    }

    @Test
    void parameterTypesAreInferredAsOnTheServer() throws IOException {
        assertSameTrace("", 3,
                parse("typed", "SELECT $1::int8 AS a, $2 AS b, $3 + 1 AS c", 0, 0, 0),
                describe('S', "typed"),
                sync(),
                parse("", "SELECT $1 + $2"),
                describe('S', ""),
                sync(),
                parse("", "SELECT $1 = ANY($2)", 25, 0),
                describe('S', ""),
                sync());
    }

    @Test
    void nullAndTextParametersRoundTrip() throws IOException {
        assertSameTrace("", 1,
                parse("", "SELECT $1::text IS NULL AS is_null, $2::text AS t, length($2) AS n, $3::numeric * 2 AS doubled"),
                bind("", "", null, "héllo ✓", "12.50"),
                execute("", 0),
                sync());
    }

    @Test
    void noticesComeBeforeTheirCommandComplete() throws IOException {
        assertSameTrace("", 2,
                query("DO $$ BEGIN RAISE NOTICE 'first'; RAISE WARNING 'second' USING DETAIL = 'details', HINT = 'a hint'; END $$"),
                concat(parse("", "DO $$ BEGIN RAISE NOTICE 'extended'; END $$"), bind("", ""), execute("", 0), sync()));
    }

    @Test
    void parameterStatusFollowsSetAndRollback() throws IOException {
        assertSameTrace("", 7,
                query("SET application_name = 'changed'"),
                query("BEGIN"),
                query("SET application_name = 'in_transaction'"),
                query("ROLLBACK"),
                query("SET TimeZone = 'Asia/Tokyo'"),
                query("RESET ALL"),
                query("SHOW application_name"));
    }

    @Test
    void copyInThroughTheSimpleProtocol() throws IOException {
        List<String> trace = assertSameTrace("DROP TABLE IF EXISTS wire_copy; CREATE TABLE wire_copy (id int, name text)", 2,
                query("COPY wire_copy FROM STDIN"),
                RawConnection.message('d', "1\tone\n2\ttwo\n".getBytes(StandardCharsets.UTF_8)),
                RawConnection.message('d', "3\tthree\n".getBytes(StandardCharsets.UTF_8)),
                RawConnection.message('c', new byte[0]),
                query("COPY wire_copy TO STDOUT"));
        assertEquals("C COPY 3", trace.get(1));
    }

    @Test
    void copyFailFromTheClientAbortsTheCopy() throws IOException {
        assertSameTrace("DROP TABLE IF EXISTS wire_copy_fail; CREATE TABLE wire_copy_fail (id int)", 2,
                query("COPY wire_copy_fail FROM STDIN"),
                RawConnection.message('d', "1\n".getBytes(StandardCharsets.UTF_8)),
                RawConnection.message('f', RawConnection.cString("client gave up")),
                query("SELECT count(*) FROM wire_copy_fail"));
    }

    @Test
    void portalLimitReachedExactlyIsSuspendedNotCompleted() throws IOException {
        // PostgreSQL does not look ahead: an Execute whose limit the rows reach suspends the portal
        // even when no row is left, and the next Execute completes it with no rows.
        assertSameTrace("", 1,
                parse("", "SELECT generate_series(1, 2)"),
                bind("", ""),
                execute("", 2),
                execute("", 2),
                sync());
    }

    @Test
    void sqlCursorReadWithFetchMoveAndExecute() throws IOException {
        assertSameTrace("", 9,
                query("BEGIN"),
                query("DECLARE c SCROLL CURSOR FOR SELECT g, 'r' || g AS label FROM generate_series(1, 10) g ORDER BY g"),
                query("FETCH 3 FROM c"),
                query("MOVE FORWARD 2 IN c"),
                query("FETCH NEXT FROM c"),
                query("FETCH BACKWARD 2 FROM c"),
                query("FETCH ABSOLUTE -1 FROM c; FETCH RELATIVE -3 FROM c; FETCH RELATIVE 0 FROM c; FETCH FIRST FROM c"),
                query("FETCH ALL FROM c; FETCH PRIOR FROM c; MOVE ABSOLUTE 0 IN c; FETCH FORWARD 2 FROM c; CLOSE c"),
                query("COMMIT"));
        // A cursor is a portal: the protocol describes and executes it by name.
        assertSameTrace("", 4,
                query("BEGIN"),
                query("DECLARE c CURSOR FOR SELECT g FROM generate_series(1, 3) g"),
                concat(describe('P', "c"), execute("c", 2), execute("c", 2), execute("c", 2), sync()),
                query("ROLLBACK"));
    }

    @Test
    void boundPortalMovedWithSql() throws IOException {
        // asyncpg reads a cursor by binding a named portal and skips rows with SQL's MOVE.
        assertSameTrace("", 5,
                query("BEGIN"),
                concat(parse("", "SELECT g FROM generate_series(1, 6) g"), bind("p1", ""), execute("p1", 1), sync()),
                query("MOVE FORWARD 2 p1"),
                query("FETCH 2 FROM p1"),
                query("COMMIT"));
    }

    @Test
    void cursorErrorsAsPostgresGivesThem() throws IOException {
        assertSameTrace("", 9,
                query("DECLARE c CURSOR FOR SELECT 1"),
                query("FETCH 1 FROM nothing"),
                query("BEGIN"),
                query("DECLARE c NO SCROLL CURSOR FOR SELECT g FROM generate_series(1, 3) g"),
                query("DECLARE c CURSOR FOR SELECT 2"),
                query("ROLLBACK"),
                query("BEGIN; DECLARE d NO SCROLL CURSOR FOR SELECT 1; FETCH 1 FROM d"),
                query("FETCH BACKWARD 1 FROM d"),
                query("ROLLBACK"));
    }

    @Test
    void cursorWithHoldOutlivesItsTransaction() throws IOException {
        assertSameTrace("", 8,
                query("DECLARE h CURSOR WITH HOLD FOR SELECT g FROM generate_series(1, 4) g"),
                query("FETCH 2 FROM h"),
                query("BEGIN; DECLARE gone CURSOR WITH HOLD FOR SELECT 1; DECLARE notheld CURSOR FOR SELECT 2"),
                query("ROLLBACK"),
                query("FETCH 1 FROM gone"),
                query("FETCH ALL FROM h"),
                query("CLOSE ALL"),
                query("FETCH 1 FROM h"));
    }

    @Test
    void multiStatementQueryDeclaresAndReadsInItsOwnTransaction() throws IOException {
        assertSameTrace("", 2,
                query("DECLARE c CURSOR FOR SELECT g FROM generate_series(1, 3) g; FETCH 2 FROM c; FETCH ALL IN c"),
                query("FETCH 1 FROM c"));
    }

    @Test
    void cursorDeclaredThroughTheExtendedProtocol() throws IOException {
        // psycopg: DECLARE with a bound parameter, Describe of the cursor's portal, then FETCH.
        assertSameTrace("", 4,
                query("BEGIN"),
                concat(parse("", "DECLARE \"c\" CURSOR FOR SELECT g FROM generate_series(1, $1::int) g"),
                        bind("", "", "5"), describe('P', ""), execute("", 0), sync()),
                concat(describe('P', "c"), sync(),
                        parse("", "FETCH FORWARD 2 FROM \"c\""), bind("", ""), describe('P', ""), execute("", 0), sync()),
                query("COMMIT"));
    }
}
