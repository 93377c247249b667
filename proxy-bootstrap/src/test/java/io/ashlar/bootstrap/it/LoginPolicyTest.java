package io.ashlar.bootstrap.it;

import static io.ashlar.bootstrap.it.RawConnection.cString;
import static io.ashlar.bootstrap.it.RawConnection.concat;
import static io.ashlar.bootstrap.it.RawConnection.message;
import static io.ashlar.bootstrap.it.RawConnection.startupPacket;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The proxy's door, as PostgreSQL keeps it: a user nobody configured goes through the same exchange as
 * one who exists and fails as a wrong password does, an empty password lets nobody in, a wrong password's
 * answer waits {@code proxy-frontend-auth-delay-milliseconds}, connections that do not log in within
 * {@code proxy-frontend-authentication-timeout-seconds} are closed while others are served, and the
 * connection past {@code proxy-frontend-max-connections} gets 53300.
 */
final class LoginPolicyTest {

    private static final long DELAY_MILLIS = 400;
    private static final int TIMEOUT_SECONDS = 3;

    /** SCRAM by default, one MD5 user, one user with an empty password; a delay after a wrong password. */
    private static ProxiedPostgres door;
    /** A short authentication timeout, and TLS (a self-signed certificate) for a handshake left half way. */
    private static ProxiedPostgres impatient;

    @BeforeAll
    static void start() throws Exception {
        door = ProxiedPostgres.startWithServerYaml("""
                authority:
                  users:
                    - user: root
                      password: root
                    - user: md5_user
                      password: md5-secret
                      authenticationMethodName: md5
                    - user: nopass
                      password: ""
                      authenticationMethod: password
                  authenticators:
                    scram:
                      type: SCRAM_SHA256
                    md5:
                      type: MD5
                  defaultAuthenticator: scram
                props:
                  proxy-frontend-auth-delay-milliseconds: %d
                """.formatted(DELAY_MILLIS));
        impatient = ProxiedPostgres.startWithServerYaml("""
                authority:
                  users:
                    - user: root
                      password: root
                      authenticationMethod: scram-sha-256
                props:
                  proxy-frontend-authentication-timeout-seconds: %d
                  proxy-frontend-ssl-enabled: true
                """.formatted(TIMEOUT_SECONDS));
    }

    @AfterAll
    static void stop() throws Exception {
        for (ProxiedPostgres each : new ProxiedPostgres[] {door, impatient}) {
            if (each != null) {
                each.close();
            }
        }
    }

    private static Connection login(ProxiedPostgres proxy, String user, String password) throws SQLException {
        Properties properties = new Properties();
        properties.setProperty("user", user);
        properties.setProperty("password", password);
        properties.setProperty("connectTimeout", "30");
        return DriverManager.getConnection(proxy.proxyUrl(""), properties);
    }

    private static void assertServed(Connection connection, int value) throws SQLException {
        try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery("SELECT " + value)) {
            assertTrue(rs.next());
            assertEquals(value, rs.getInt(1));
        }
    }

    @Test
    void anUnknownUserFailsAsAWrongPasswordFails() throws Exception {
        SQLException unknown = assertThrows(SQLException.class, () -> login(door, "ghost", "root").close());
        assertEquals("28P01", unknown.getSQLState(), () -> ResultDump.error(unknown));
        assertTrue(unknown.getMessage().contains("password authentication failed for user \"ghost\""), unknown.getMessage());
        SQLException wrong = assertThrows(SQLException.class, () -> login(door, "root", "toor").close());
        assertEquals("28P01", wrong.getSQLState());
        assertEquals(wrong.getMessage().replace("root", "ghost"), unknown.getMessage());
    }

    /**
     * What an unknown user is shown is what a user who exists is shown: the same request, a salt that is
     * the same at every attempt. (A user whose method is not the default one, md5_user here, is told
     * apart by its request, as in PostgreSQL when pg_hba.conf names a method for one user.)
     */
    @Test
    void anUnknownUserCannotBeToldFromAKnownOne() throws Exception {
        byte[] root = scramSalt("root");
        byte[] ghost = scramSalt("ghost");
        assertArrayEquals(root, scramSalt("root"), "a known user's salt is the same at every login");
        assertArrayEquals(ghost, scramSalt("ghost"), "so is an unknown user's");
        assertFalse(Arrays.equals(ghost, scramSalt("ghost2")), "and each unknown user has its own");
        assertFalse(Arrays.equals(ghost, root));
        assertEquals(16, ghost.length);
        assertEquals(root.length, ghost.length);
    }

    /** Starts a SCRAM exchange as {@code user} and returns the salt of the server-first-message. */
    private static byte[] scramSalt(String user) throws IOException {
        try (RawConnection raw = new RawConnection(door.proxyPort())) {
            raw.send(startupPacket(user, ProxiedPostgres.DATABASE));
            RawConnection.Message request = raw.read();
            assertEquals(10, ByteBuffer.wrap(request.body()).getInt(), () -> user + ": AuthenticationSASL, got " + request);
            byte[] clientFirst = "n,,n=,r=0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
            raw.send(message('p', concat(cString("SCRAM-SHA-256"), ByteBuffer.allocate(4).putInt(clientFirst.length).array(),
                    clientFirst)));
            RawConnection.Message serverFirst = raw.read();
            assertEquals(11, ByteBuffer.wrap(serverFirst.body()).getInt(), () -> "AuthenticationSASLContinue, got " + serverFirst);
            String text = new String(serverFirst.body(), 4, serverFirst.body().length - 4, StandardCharsets.US_ASCII);
            String[] attributes = text.split(",");
            assertEquals("i=4096", attributes[2], text);
            return Base64.getDecoder().decode(attributes[1].substring(2));
        }
    }

    /** PostgreSQL accepts no empty password: a user configured with one cannot log in, with "" or anything else. */
    @Test
    void anEmptyPasswordLetsNobodyIn() throws Exception {
        for (String password : List.of("", "x")) {
            try (RawConnection raw = new RawConnection(door.proxyPort())) {
                raw.send(startupPacket("nopass", ProxiedPostgres.DATABASE));
                RawConnection.Message request = raw.read();
                assertEquals(3, ByteBuffer.wrap(request.body()).getInt(), request::toString);
                raw.send(message('p', cString(password)));
                List<RawConnection.Message> answer = raw.readUntilClosed();
                assertEquals(1, answer.size(), answer::toString);
                assertEquals("28P01", answer.get(0).fields().get('C'), answer::toString);
                assertEquals("password authentication failed for user \"nopass\"", answer.get(0).fields().get('M'));
            }
        }
    }

    /** auth_delay: the answer to a wrong password comes no sooner than the delay (a lower bound; never an upper one). */
    @Test
    void aWrongPasswordsAnswerWaitsTheDelay() throws Exception {
        try (Connection bystander = login(door, "md5_user", "md5-secret")) {
            long started = System.nanoTime();
            SQLException wrong = assertThrows(SQLException.class, () -> login(door, "md5_user", "wrong").close());
            long elapsedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            assertEquals("28P01", wrong.getSQLState(), () -> ResultDump.error(wrong));
            assertTrue(elapsedMillis >= DELAY_MILLIS, "the refusal came after " + elapsedMillis + " ms");
            assertServed(bystander, 7);
        }
    }

    /**
     * Slowloris and half-finished logins: half a startup packet, a SCRAM exchange left after its first
     * round, a TLS handshake never started. Each is closed at the authentication timeout without a word,
     * as PostgreSQL closes it; clients that log in meanwhile are served, and a session that logged in
     * long before is not closed by it.
     */
    @Test
    void connectionsThatDoNotLogInAreClosedAtTheTimeoutWhileOthersAreServed() throws Exception {
        try (Connection early = login(impatient, "root", "root")) {
            List<Socket> stalled = new ArrayList<>();
            List<String> kinds = new ArrayList<>();
            try {
                byte[] startup = startupPacket("root", ProxiedPostgres.DATABASE);
                for (int i = 0; i < 100; i++) {
                    Socket half = open();
                    half.getOutputStream().write(Arrays.copyOf(startup, startup.length / 2));
                    stalled.add(half);
                    kinds.add("half a startup packet");
                }
                for (int i = 0; i < 100; i++) {
                    Socket scram = open();
                    scram.getOutputStream().write(startup);
                    readMessage(scram.getInputStream(), 'R');
                    byte[] clientFirst = ("n,,n=,r=nonce" + i).getBytes(StandardCharsets.US_ASCII);
                    scram.getOutputStream().write(message('p', concat(cString("SCRAM-SHA-256"),
                            ByteBuffer.allocate(4).putInt(clientFirst.length).array(), clientFirst)));
                    readMessage(scram.getInputStream(), 'R');
                    stalled.add(scram);
                    kinds.add("a SCRAM exchange stopped in the middle");
                }
                for (int i = 0; i < 20; i++) {
                    Socket tls = open();
                    tls.getOutputStream().write(RawConnection.SSL_REQUEST);
                    assertEquals('S', tls.getInputStream().read());
                    stalled.add(tls);
                    kinds.add("a TLS handshake never started");
                }
                try (Connection during = login(impatient, "root", "root")) {
                    assertServed(during, 1);
                }
                for (int i = 0; i < stalled.size(); i++) {
                    assertClosedWithoutAWord(stalled.get(i), kinds.get(i));
                }
            } finally {
                for (Socket each : stalled) {
                    each.close();
                }
            }
            assertServed(early, 2);
            try (Connection after = login(impatient, "root", "root")) {
                assertServed(after, 3);
            }
        }
    }

    private static Socket open() throws IOException {
        Socket result = new Socket("127.0.0.1", impatient.proxyPort());
        // Generous: the proxy closes at 3 s; a read that has not ended after 60 s is a connection left open.
        result.setSoTimeout(60_000);
        return result;
    }

    private static void readMessage(InputStream in, char type) throws IOException {
        int actual = in.read();
        assertEquals(type, actual);
        byte[] length = in.readNBytes(4);
        in.readNBytes(ByteBuffer.wrap(length).getInt() - 4);
    }

    private static void assertClosedWithoutAWord(Socket socket, String kind) throws IOException {
        int next;
        try {
            next = socket.getInputStream().read();
        } catch (SocketException reset) {
            next = -1;
        } catch (java.net.SocketTimeoutException e) {
            throw new AssertionError("a connection with " + kind + " was still open after 60 s", e);
        }
        assertEquals(-1, next, "a connection with " + kind + " got a byte instead of being closed: " + next);
    }

    /** proxy-frontend-max-connections: the connection past it gets PostgreSQL's 53300; one freed slot serves the next. */
    @Test
    void theConnectionPastTheLimitIsRefusedWith53300() throws Exception {
        try (ProxiedPostgres limited = ProxiedPostgres.startWithServerYaml("""
                authority:
                  users:
                    - user: root
                      password: root
                props:
                  proxy-frontend-max-connections: 3
                """)) {
            List<Connection> open = new ArrayList<>();
            try {
                for (int i = 0; i < 3; i++) {
                    open.add(login(limited, "root", "root"));
                }
                SQLException refused = assertThrows(SQLException.class, () -> login(limited, "root", "root").close());
                assertEquals("53300", refused.getSQLState(), () -> ResultDump.error(refused));
                assertTrue(refused.getMessage().contains("sorry, too many clients already"), refused.getMessage());
                try (Socket unauthenticated = new Socket("127.0.0.1", limited.proxyPort())) {
                    unauthenticated.setSoTimeout(30_000);
                    assertEquals('E', unauthenticated.getInputStream().read(), "refused before it sends a byte");
                }
                open.removeFirst().close();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                Connection next = null;
                while (next == null) {
                    try {
                        next = login(limited, "root", "root");
                    } catch (SQLException e) {
                        if (!"53300".equals(e.getSQLState()) || System.nanoTime() > deadline) {
                            throw e;
                        }
                        Thread.sleep(50);
                    }
                }
                open.add(next);
                for (Connection each : open) {
                    assertServed(each, 4);
                }
            } finally {
                for (Connection each : open) {
                    each.close();
                }
            }
        }
    }
}
