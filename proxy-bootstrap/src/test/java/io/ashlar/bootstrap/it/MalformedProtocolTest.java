package io.ashlar.bootstrap.it;

import static io.ashlar.bootstrap.it.RawConnection.cString;
import static io.ashlar.bootstrap.it.RawConnection.concat;
import static io.ashlar.bootstrap.it.RawConnection.message;
import static io.ashlar.bootstrap.it.RawConnection.startupPacket;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Hand-made protocol bytes over a raw socket, as PostgreSQL answers them: broken framing (an
 * unknown type, an impossible length, a bad startup packet) gets a FATAL ErrorResponse with
 * SQLSTATE 08P01 ({@code protocol_violation}) and a closed connection; a whole message whose body
 * does not read gets an ERROR 08P01 and the session goes on. A pgjdbc session opened before (with a
 * transaction open) keeps working throughout. The raw client logs in as the clear-text password
 * user, so that no SCRAM exchange has to be written by hand. {@code MalformedInputDifferentialTest}
 * compares a corpus of such inputs with PostgreSQL's own answers.
 *
 * @see <a href="https://www.postgresql.org/docs/current/protocol-message-formats.html">PostgreSQL: Message Formats</a>
 */
final class MalformedProtocolTest {

    private static ProxiedPostgres server;
    private Connection bystander;
    private int bystanderQueries;

    @BeforeAll
    static void start() throws Exception {
        server = ProxiedPostgres.start();
    }

    @AfterAll
    static void stop() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    @BeforeEach
    void openBystander() throws SQLException {
        bystander = server.proxy("");
        bystander.setAutoCommit(false);
        assertBystanderWorks();
    }

    @AfterEach
    void closeBystander() throws SQLException {
        assertBystanderWorks();
        bystander.commit();
        bystander.close();
    }

    private void assertBystanderWorks() throws SQLException {
        bystanderQueries++;
        try (Statement s = bystander.createStatement(); ResultSet rs = s.executeQuery("SELECT " + bystanderQueries)) {
            assertTrue(rs.next());
            assertEquals(bystanderQueries, rs.getInt(1));
        }
    }

    /** A raw connection to the proxy. */
    private static RawConnection connect() throws IOException {
        return new RawConnection(server.proxyPort());
    }

    private static void logIn(RawConnection client) throws IOException {
        client.logIn(ProxiedPostgres.PASSWORD_USER, ProxiedPostgres.DATABASE, ProxiedPostgres.password(ProxiedPostgres.PASSWORD_USER));
    }

    /** The proxy answered one FATAL ErrorResponse with 08P01, then closed the connection. */
    private static void assertProtocolViolationThenClosed(List<RawConnection.Message> answer) {
        assertEquals(1, answer.size(), () -> "expected one ErrorResponse then end of stream, got " + answer);
        RawConnection.Message error = answer.get(0);
        assertEquals('E', error.type(), error::toString);
        assertEquals("08P01", error.fields().get('C'), error::toString);
        assertEquals("FATAL", error.fields().get('S'), error::toString);
    }

    @Test
    void loggedInRawClientCanQuery() throws IOException {
        try (RawConnection client = connect()) {
            logIn(client);
            client.send(message('Q', cString("SELECT 1 + 1 AS two")));
            List<RawConnection.Message> answer = client.readUntilReady();
            assertEquals("TDCZ", RawConnection.types(answer), answer::toString);
            assertEquals("2", new String(answer.get(1).body(), 6, 1, StandardCharsets.US_ASCII));
            client.send(message('X', new byte[0]));
            assertEquals(List.of(), client.readUntilClosed());
        }
    }

    @Test
    void messageLengthBelowFourIsAProtocolViolation() throws IOException, SQLException {
        try (RawConnection client = connect()) {
            logIn(client);
            // 'Q', Int32 length 2: the length counts itself, so anything below 4 is impossible.
            client.send(new byte[] {'Q', 0, 0, 0, 2});
            assertProtocolViolationThenClosed(client.readUntilClosed());
        }
        assertBystanderWorks();
    }

    @Test
    void unknownMessageTypeIsAProtocolViolation() throws IOException, SQLException {
        try (RawConnection client = connect()) {
            logIn(client);
            client.send(message('x', new byte[0]));
            assertProtocolViolationThenClosed(client.readUntilClosed());
        }
        assertBystanderWorks();
    }

    @Test
    void oversizedSmallMessageIsAProtocolViolation() throws IOException, SQLException {
        try (RawConnection client = connect()) {
            logIn(client);
            // Sync with a declared length of 1 MB: over PQ_SMALL_MESSAGE_LIMIT, refused before reading the body.
            client.send(new byte[] {'S', 0, 0x10, 0, 0});
            assertProtocolViolationThenClosed(client.readUntilClosed());
        }
        assertBystanderWorks();
    }

    /** The session goes on: a query answers its row. */
    private static void assertStillServes(RawConnection client) throws IOException {
        client.send(message('Q', cString("SELECT 'still here'")));
        List<RawConnection.Message> answer = client.readUntilReady();
        assertEquals("TDCZ", RawConnection.types(answer), answer::toString);
    }

    /** An ERROR 08P01 with that message. */
    private static void assertProtocolError(RawConnection.Message error, String message) {
        assertEquals('E', error.type(), error::toString);
        assertEquals("ERROR", error.fields().get('S'), error::toString);
        assertEquals("08P01", error.fields().get('C'), error::toString);
        assertEquals(message, error.fields().get('M'), error::toString);
    }

    @Test
    void queryWithoutTerminatorIsAnErrorAndTheSessionGoesOn() throws IOException, SQLException {
        try (RawConnection client = connect()) {
            logIn(client);
            client.send(message('Q', "SELECT 1".getBytes(StandardCharsets.US_ASCII)));
            List<RawConnection.Message> answer = client.readUntilReady();
            assertEquals("EZ", RawConnection.types(answer), answer::toString);
            assertProtocolError(answer.get(0), "invalid string in message");
            assertStillServes(client);
        }
        assertBystanderWorks();
    }

    /**
     * Issue 13: after an error in a pipeline, a malformed message before the Sync got no answer and
     * the connection hung. PostgreSQL skips it unread, as everything up to the Sync, and answers the Sync.
     */
    @Test
    void malformedMessageAfterAnErrorInAPipelineIsSkippedToTheSync() throws IOException, SQLException {
        try (RawConnection client = connect()) {
            logIn(client);
            client.send(concat(message('P', concat(cString(""), cString("SELEC"), new byte[] {0, 0})),
                    message('B', new byte[] {0, 0, 0, 5}), message('S', new byte[0])));
            List<RawConnection.Message> answer = client.readUntilReady();
            assertEquals("EZ", RawConnection.types(answer), answer::toString);
            assertEquals("42601", answer.get(0).fields().get('C'), answer::toString);
            assertStillServes(client);
        }
        assertBystanderWorks();
    }

    @Test
    void bindWithMoreFormatsThanItHasIsAnErrorUpToTheSync() throws IOException, SQLException {
        try (RawConnection client = connect()) {
            logIn(client);
            // Bind: portal "", statement "", 5 parameter format codes announced but none present.
            client.send(concat(message('P', concat(cString(""), cString("SELECT 1"), new byte[] {0, 0})),
                    message('B', new byte[] {0, 0, 0, 5}), RawConnection.execute("", 0), message('S', new byte[0])));
            List<RawConnection.Message> answer = client.readUntilReady();
            assertEquals("1EZ", RawConnection.types(answer), answer::toString);
            assertProtocolError(answer.get(1), "insufficient data left in message");
            assertStillServes(client);
        }
        assertBystanderWorks();
    }

    @Test
    void bindWithFormatCodeTwoIsRefusedWith22023() throws IOException, SQLException {
        try (RawConnection client = connect()) {
            logIn(client);
            client.send(concat(RawConnection.parse("", "SELECT $1::int"),
                    RawConnection.bind("", "", new short[] {2}, new byte[][] {{'7'}}, new short[0]),
                    RawConnection.execute("", 0), message('S', new byte[0])));
            List<RawConnection.Message> answer = client.readUntilReady();
            assertEquals("1EZ", RawConnection.types(answer), answer::toString);
            assertEquals("22023", answer.get(1).fields().get('C'), answer::toString);
            assertEquals("unsupported format code: 2", answer.get(1).fields().get('M'), answer::toString);
            assertStillServes(client);
        }
        assertBystanderWorks();
    }

    @Test
    void passwordMessageAfterLoginIsAnInvalidMessageType() throws IOException, SQLException {
        try (RawConnection client = connect()) {
            logIn(client);
            client.send(message('p', cString("plain-secret")));
            List<RawConnection.Message> answer = client.readUntilClosed();
            assertProtocolViolationThenClosed(answer);
            assertEquals("invalid frontend message type 112", answer.get(0).fields().get('M'));
        }
        assertBystanderWorks();
    }

    @Test
    void queryInsteadOfPasswordIsAProtocolViolation() throws IOException, SQLException {
        try (RawConnection client = connect()) {
            client.send(startupPacket(ProxiedPostgres.PASSWORD_USER, ProxiedPostgres.DATABASE));
            assertEquals('R', client.read().type());
            client.send(message('Q', cString("SELECT 1")));
            assertProtocolViolationThenClosed(client.readUntilClosed());
        }
        assertBystanderWorks();
    }

    @Test
    void startupPacketTooLongIsAProtocolViolation() throws IOException, SQLException {
        try (RawConnection client = connect()) {
            client.send(new byte[] {0, 0x10, 0, 0, 0, 3, 0, 0});
            assertProtocolViolationThenClosed(client.readUntilClosed());
        }
        assertBystanderWorks();
    }

    @Test
    void startupPacketTooShortIsAProtocolViolation() throws IOException, SQLException {
        try (RawConnection client = connect()) {
            client.send(new byte[] {0, 0, 0, 4});
            assertProtocolViolationThenClosed(client.readUntilClosed());
        }
        assertBystanderWorks();
    }

    @Test
    void startupPacketSentOneByteAtATimeLogsIn() throws IOException, InterruptedException {
        try (RawConnection client = connect()) {
            byte[] startup = startupPacket(ProxiedPostgres.PASSWORD_USER, ProxiedPostgres.DATABASE);
            for (byte b : startup) {
                client.send(new byte[] {b});
                Thread.sleep(1);
            }
            RawConnection.Message request = client.read();
            assertEquals('R', request.type(), request::toString);
            byte[] password = message('p', cString(ProxiedPostgres.password(ProxiedPostgres.PASSWORD_USER)));
            for (byte b : password) {
                client.send(new byte[] {b});
            }
            List<RawConnection.Message> login = client.readUntilReady();
            assertEquals('R', login.get(0).type(), login::toString);
            byte[] query = message('Q', cString("SELECT 'split'"));
            for (byte b : query) {
                client.send(new byte[] {b});
            }
            List<RawConnection.Message> answer = client.readUntilReady();
            assertEquals("TDCZ", RawConnection.types(answer), answer::toString);
        }
    }

    @Test
    void garbageAfterAGoodQueryInTheSameWriteStillAnswersTheQueryFirst() throws IOException, SQLException {
        try (RawConnection client = connect()) {
            logIn(client);
            client.send(concat(message('Q', cString("SELECT 5")), new byte[] {'Q', 0, 0, 0, 1}));
            List<RawConnection.Message> answer = client.readUntilClosed();
            assertTrue(answer.size() == 5, answer::toString);
            assertEquals("TDCZ", RawConnection.types(answer.subList(0, 4)), answer::toString);
            assertProtocolViolationThenClosed(answer.subList(4, 5));
        }
        assertBystanderWorks();
    }
}
