package io.ashlar.bootstrap.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * A session that LISTENs and then waits without running anything gets a NOTIFY as it comes, as from PostgreSQL:
 * pgjdbc's {@code getNotifications(timeout)} reads the socket and runs no statement (nor do psycopg's
 * {@code notifies()} generator and asyncpg's listeners), so a notification held until the listener's next statement
 * never arrives. Inside a transaction block of the listener's it comes before the ReadyForQuery that ends the block,
 * where PostgreSQL delivers one that came meanwhile.
 */
final class IdleNotificationTest {

    private static ProxiedPostgres server;

    @BeforeAll
    static void start() throws Exception {
        server = ProxiedPostgres.startSharded();
    }

    @AfterAll
    static void stop() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void aShardedSessionWaitingIdleGetsTheNotification() throws Exception {
        try (Connection listener = server.proxy(""); Connection notifier = server.proxy("")) {
            idleListenerHearsIt(listener, notifier);
            stillAnswers(listener);
        }
    }

    /**
     * The listener's transaction block writes on the other shard, so its LISTEN connection stays idle and hears the
     * NOTIFY at once; the client hears it when its block ends, just before that ReadyForQuery, not in the middle of the
     * block (pgjdbc reads no notification inside a transaction: the raw protocol shows it).
     */
    @Test
    void insideATransactionBlockItComesAtTheBlocksEnd() throws Exception {
        try (RawConnection listener = new RawConnection(server.proxyPort()); Connection notifier = server.proxy("");
                Statement n = notifier.createStatement()) {
            listener.logIn(ProxiedPostgres.PASSWORD_USER, ProxiedPostgres.DATABASE, ProxiedPostgres.password(ProxiedPostgres.PASSWORD_USER));
            for (String sql : new String[] {"LISTEN ashlar_block", "BEGIN", "INSERT INTO t_og (id, name) VALUES (3, 'on ds_1')"}) {
                listener.send(RawConnection.query(sql));
                List<RawConnection.Message> answer = listener.readUntilReady();
                assertEquals("CZ", RawConnection.types(answer), sql + ": " + answer);
            }
            n.execute("NOTIFY ashlar_block, 'during a block'");
            listener.readTimeout(1_000);
            assertThrows(java.net.SocketTimeoutException.class, listener::read, "a notification in the middle of a transaction block");
            listener.readTimeout(10_000);
            listener.send(RawConnection.query("COMMIT"));
            List<RawConnection.Message> answer = listener.readUntilReady();
            assertEquals("CAZ", RawConnection.types(answer), answer::toString);
            assertTrue(new String(answer.get(1).body(), java.nio.charset.StandardCharsets.UTF_8).contains("ashlar_block\0during a block"),
                    answer::toString);
        }
    }

    /**
     * A notification the listener's own statements cause comes before the ReadyForQuery that ends them, as
     * PostgreSQL delivers it at the commit: a NOTIFY in the same query string as the LISTEN (the implicit
     * transaction commits after both), pg_notify in a SELECT, and a NOTIFY from elsewhere while the listener's
     * block ran on the LISTEN connection's own data source. Each waited for the listener's next statement.
     */
    @Test
    void notificationsOfTheListenersOwnStatementsComeBeforeTheirReadyForQuery() throws Exception {
        try (RawConnection listener = new RawConnection(server.proxyPort()); Connection notifier = server.proxy("");
                Statement n = notifier.createStatement()) {
            listener.logIn(ProxiedPostgres.PASSWORD_USER, ProxiedPostgres.DATABASE, ProxiedPostgres.password(ProxiedPostgres.PASSWORD_USER));
            listener.send(RawConnection.query("LISTEN ashlar_own; NOTIFY ashlar_own, 'in one string'"));
            assertNotified(listener.readUntilReady(), "CCAZ", "ashlar_own\0in one string");
            listener.send(RawConnection.query("SELECT pg_notify('ashlar_own', 'by a function')"));
            assertNotified(listener.readUntilReady(), "TDCAZ", "ashlar_own\0by a function");
            listener.send(RawConnection.concat(RawConnection.parse("", "SELECT pg_notify('ashlar_own', 'extended')"),
                    RawConnection.bind("", ""), RawConnection.execute("", 0), RawConnection.sync()));
            assertNotified(listener.readUntilReady(), "12DCAZ", "ashlar_own\0extended");
            for (String sql : new String[] {"BEGIN", "SELECT pg_notify('ashlar_none', 'x')"}) {
                listener.send(RawConnection.query(sql));
                listener.readUntilReady();
            }
            n.execute("NOTIFY ashlar_own, 'during the block'");
            listener.send(RawConnection.query("COMMIT"));
            assertNotified(listener.readUntilReady(), "CAZ", "ashlar_own\0during the block");
        }
    }

    private static void assertNotified(List<RawConnection.Message> answer, String types, String payload) {
        assertEquals(types, RawConnection.types(answer), answer::toString);
        for (RawConnection.Message m : answer) {
            if (m.type() == 'A') {
                assertTrue(new String(m.body(), java.nio.charset.StandardCharsets.UTF_8).contains(payload), answer::toString);
            }
        }
    }

    @Test
    void aPooledSessionOnTheJdbcPathWaitingIdleGetsTheNotification() throws Exception {
        // reWriteBatchedInserts puts the pooled database's sessions on the JDBC path (PassthroughSession).
        try (io.ashlar.bootstrap.ProxyRuntime pooler = server.pooler("ds_0", java.util.Map.of("reWriteBatchedInserts", "true"));
                Connection listener = pooled(pooler); Connection notifier = pooled(pooler)) {
            idleListenerHearsIt(listener, notifier);
            stillAnswers(listener);
        }
    }

    private static Connection pooled(io.ashlar.bootstrap.ProxyRuntime pooler) throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + pooler.port() + "/" + ProxiedPostgres.POOLED_DATABASE,
                ProxiedPostgres.PASSWORD_USER, ProxiedPostgres.password(ProxiedPostgres.PASSWORD_USER));
    }

    private static void idleListenerHearsIt(Connection listener, Connection notifier) throws SQLException {
        try (Statement l = listener.createStatement(); Statement n = notifier.createStatement()) {
            l.execute("LISTEN ashlar_idle");
            n.execute("NOTIFY ashlar_idle, 'first'");
            n.execute("SELECT pg_notify('ashlar_idle', 'second')");
            List<String> got = received(listener, 10_000);
            if (got.size() < 2) {
                got.addAll(received(listener, 10_000)); // the two may come in two reads
            }
            assertEquals(List.of("ashlar_idle: first", "ashlar_idle: second"), got);
            assertEquals(List.of(), received(listener, 200), "a notification twice");
        }
    }

    /** Notifications read off the socket within the timeout, running no statement. */
    private static List<String> received(Connection listener, int timeoutMillis) throws SQLException {
        PGNotification[] notifications = listener.unwrap(PGConnection.class).getNotifications(timeoutMillis);
        List<String> result = new ArrayList<>();
        if (notifications != null) {
            for (PGNotification each : notifications) {
                result.add(each.getName() + ": " + each.getParameter());
            }
        }
        return result;
    }

    /** The session goes on as before: a statement, and nothing left over from the notifications. */
    private static void stillAnswers(Connection listener) throws SQLException {
        try (Statement s = listener.createStatement(); ResultSet rs = s.executeQuery("SELECT 41 + 1")) {
            rs.next();
            assertEquals(42, rs.getInt(1));
        }
        PGNotification[] left = listener.unwrap(PGConnection.class).getNotifications(); // what the statement read, no wait
        assertEquals(0, left == null ? 0 : left.length);
    }
}
