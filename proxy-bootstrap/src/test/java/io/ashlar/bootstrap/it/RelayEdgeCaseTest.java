package io.ashlar.bootstrap.it;

import static io.ashlar.bootstrap.it.RawConnection.bind;
import static io.ashlar.bootstrap.it.RawConnection.concat;
import static io.ashlar.bootstrap.it.RawConnection.execute;
import static io.ashlar.bootstrap.it.RawConnection.flush;
import static io.ashlar.bootstrap.it.RawConnection.parse;
import static io.ashlar.bootstrap.it.RawConnection.query;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A pooled database's relay at the edges of the protocol, with one backend connection that every
 * session must share: a client that leaves in the middle of a pipeline, data sent with a COPY
 * before the session has a connection, a connection left idle on another event loop. Each was a
 * session of another client waiting forever, or a write of a client that had gone committed by
 * the next one.
 */
final class RelayEdgeCaseTest {

    private static ProxiedPostgres server;

    @BeforeAll
    static void start() throws Exception {
        server = ProxiedPostgres.start(Map.of(), 1);
    }

    @AfterAll
    static void stop() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    @BeforeEach
    void table() throws SQLException {
        try (Connection c = server.direct(""); Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS relay_edge");
            s.execute("CREATE TABLE relay_edge (a int)");
        }
    }

    private static RawConnection session() throws IOException {
        RawConnection result = new RawConnection(server.proxyPort());
        result.logIn(ProxiedPostgres.PASSWORD_USER, ProxiedPostgres.DATABASE, ProxiedPostgres.password(ProxiedPostgres.PASSWORD_USER));
        return result;
    }

    private static List<String> rendered(List<RawConnection.Message> messages) {
        List<String> result = new ArrayList<>();
        for (RawConnection.Message m : messages) {
            result.add(WireTraceTest.render(m));
        }
        return result;
    }

    private static long rows() throws SQLException {
        try (Connection c = server.direct(""); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*) FROM relay_edge")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /**
     * The next session on the leaver's event loop (connections are spread over the loops in turn;
     * a spacer takes the other one's turn) is the one that would be lent its connection.
     */
    private static List<String> nextSessionOnTheSameLoopRuns(String sql) throws IOException {
        try (RawConnection spacer = session(); RawConnection next = session()) {
            next.send(query(sql));
            return rendered(next.readUntilReady());
        }
    }

    @Test
    void aClientThatLeavesBeforeSyncLeavesNoTransactionForTheNextSession() throws Exception {
        try (RawConnection leaver = session()) {
            leaver.send(concat(parse("", "INSERT INTO relay_edge VALUES (1)"), bind("", ""), execute("", 0), flush()));
            assertTrue(rendered(leaver.readThrough('C')).contains("C INSERT 0 1"));
        }
        // PostgreSQL rolls the implicit transaction back when its client goes; the pooled connection
        // must not carry it on to be committed by whoever runs next.
        List<String> next = nextSessionOnTheSameLoopRuns("SELECT 1 AS next");
        assertEquals("Z I", next.get(next.size() - 1), next::toString);
        assertEquals(0, rows(), "rows of the client that left without Sync");
    }

    @Test
    void aClientThatLeavesAfterAnErrorBeforeSyncLeavesAWorkingPool() throws Exception {
        try (RawConnection leaver = session()) {
            leaver.send(concat(parse("", "SELEC 1"), flush()));
            assertTrue(rendered(leaver.readThrough('E')).get(0).startsWith("E "));
        }
        // The backend skips everything up to a Sync after the error: a connection in that state
        // would leave the next session waiting for an answer forever.
        List<String> next = nextSessionOnTheSameLoopRuns("SELECT 7 AS next");
        assertTrue(next.contains("C SELECT 1"), next::toString);
    }

    @Test
    void copyDataSentWithTheQueryBeforeTheSessionHasAConnection() throws Exception {
        try (RawConnection holder = session(); RawConnection copier = session()) {
            holder.send(query("BEGIN; SELECT 1"));
            holder.readUntilReady();
            // pgx's CopyFrom sends the data without waiting for CopyInResponse.
            copier.send(concat(query("COPY relay_edge FROM STDIN"),
                    RawConnection.message('d', "5\n6\n".getBytes(StandardCharsets.UTF_8)), RawConnection.message('c', new byte[0])));
            Thread.sleep(300);
            holder.send(query("COMMIT"));
            holder.readUntilReady();
            List<String> answer = rendered(copier.readUntilReady());
            assertTrue(answer.contains("C COPY 2"), answer::toString);
        }
        assertEquals(2, rows());
    }

    /**
     * Two sessions with different time zones prepare the same text on the one connection: each
     * statement reads its literal under its own session's zone, as PostgreSQL reads it at Parse
     * (the connection's statement of the other session was reused: a timestamp off by 5:45).
     */
    @Test
    void aStatementIsNotReusedUnderAnotherSessionsSettings() throws Exception {
        String sql = "SELECT '2024-03-10 02:30'::timestamptz::text AS t";
        try (RawConnection utc = session(); RawConnection spacer = session(); RawConnection kathmandu = session()) {
            utc.send(query("SET TimeZone TO 'UTC'"));
            utc.readUntilReady();
            kathmandu.send(query("SET TimeZone TO 'Asia/Kathmandu'"));
            kathmandu.readUntilReady();
            utc.send(concat(parse("s", sql), bind("", "s"), execute("", 0), RawConnection.sync()));
            assertTrue(rendered(utc.readUntilReady()).toString().contains(hex("2024-03-10 02:30:00+00")));
            kathmandu.send(concat(parse("s", sql), bind("", "s"), execute("", 0), RawConnection.sync()));
            assertTrue(rendered(kathmandu.readUntilReady()).toString().contains(hex("2024-03-10 02:30:00+05:45")));
            utc.send(concat(bind("", "s"), execute("", 0), RawConnection.sync()));
            List<String> again = rendered(utc.readUntilReady());
            assertTrue(again.toString().contains(hex("2024-03-10 02:30:00+00")), again::toString);
        }
    }

    /**
     * A statement waiting for a pooled connection is cancelled by the client's CancelRequest, as
     * PostgreSQL cancels one waiting for a lock (it was not: the client waited for the connection
     * timeout, and a statement whose client had given up ran later).
     */
    @Test
    void aStatementWaitingForAConnectionCanBeCancelled() throws Exception {
        try (RawConnection holder = session(); RawConnection waiter = new RawConnection(server.proxyPort())) {
            List<RawConnection.Message> login = waiter.logIn(ProxiedPostgres.PASSWORD_USER, ProxiedPostgres.DATABASE,
                    ProxiedPostgres.password(ProxiedPostgres.PASSWORD_USER));
            java.nio.ByteBuffer key = null;
            for (RawConnection.Message m : login) {
                if (m.type() == 'K') {
                    key = java.nio.ByteBuffer.wrap(m.body());
                }
            }
            assertTrue(key != null, "BackendKeyData at login");
            holder.send(query("BEGIN; SELECT 1"));
            holder.readUntilReady();
            waiter.send(query("INSERT INTO relay_edge VALUES (9)"));
            Thread.sleep(300);
            try (java.net.Socket cancel = new java.net.Socket("127.0.0.1", server.proxyPort())) {
                cancel.getOutputStream().write(java.nio.ByteBuffer.allocate(16).putInt(16).putInt(80877102)
                        .putInt(key.getInt(0)).putInt(key.getInt(4)).array());
            }
            List<String> answer = rendered(waiter.readUntilReady());
            assertTrue(answer.get(0).startsWith("E ERROR 57014"), answer::toString);
            holder.send(query("COMMIT"));
            holder.readUntilReady();
            waiter.send(query("SELECT 1 AS still_served"));
            assertTrue(rendered(waiter.readUntilReady()).contains("C SELECT 1"));
        }
        assertEquals(0, rows(), "the cancelled INSERT ran after all");
    }

    /**
     * The backend of a session in a transaction is terminated: the client gets PostgreSQL's FATAL
     * once and its connection ends, as a direct client would (it got the backend's FATAL and one of
     * the proxy's: libpq then counted two results for its next command).
     */
    @Test
    void aTerminatedBackendEndsItsSessionWithOneFatal() throws Exception {
        try (RawConnection inTransaction = session()) {
            inTransaction.send(query("BEGIN; SELECT pg_backend_pid()"));
            String pid = null;
            for (RawConnection.Message m : inTransaction.readUntilReady()) {
                if (m.type() == 'D') {
                    java.nio.ByteBuffer row = java.nio.ByteBuffer.wrap(m.body());
                    row.getShort();
                    byte[] value = new byte[row.getInt()];
                    row.get(value);
                    pid = new String(value, StandardCharsets.US_ASCII);
                }
            }
            try (Connection c = server.direct(""); Statement s = c.createStatement()) {
                s.execute("SELECT pg_terminate_backend(" + pid + ")");
            }
            List<String> end = rendered(inTransaction.readUntilClosed());
            assertEquals(1, end.size(), end::toString);
            assertTrue(end.get(0).startsWith("E FATAL 57P01"), end::toString);
        }
        List<String> next = nextSessionOnTheSameLoopRuns("SELECT 1 AS after");
        assertTrue(next.contains("C SELECT 1"), next::toString);
    }

    /** A text value as WireTraceTest renders it in a DataRow: its bytes in hex. */
    private static String hex(String text) {
        return java.util.HexFormat.of().formatHex(text.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void aSessionWaitingOnOneLoopGetsTheConnectionAnotherLoopLeftIdle() throws Exception {
        // Consecutive sessions are on different event loops; the pool's one connection is held by the first.
        try (RawConnection holder = session(); RawConnection waiter = session()) {
            holder.send(query("BEGIN; SELECT 1"));
            holder.readUntilReady();
            waiter.send(query("SELECT 42 AS answer"));
            Thread.sleep(300);
            holder.send(query("COMMIT"));
            holder.readUntilReady();
            // Not a 53300 after the 30 s connection timeout, with the connection idle on the holder's loop.
            List<String> answer = rendered(waiter.readUntilReady());
            assertTrue(answer.contains("C SELECT 1"), answer::toString);
        }
    }

    /**
     * lib/pq parses and describes the unnamed statement in one exchange (Parse, Describe, Sync) and binds it in the
     * next (Bind, Execute, Sync). Between the two the session's connection went back to the pool and another session
     * parsed its own unnamed statement there; the first session's Bind then ran the other's statement with its values,
     * or failed for their number (an INSERT landed in the other session's table). PostgreSQL keeps a session's unnamed
     * statement until the session replaces it. A Bind of the unnamed statement where the session has none (its Parse
     * failed) gets PostgreSQL's 26000, never a statement of another session.
     */
    @Test
    void unnamedStatementStaysTheSessionsAcrossSyncs() throws Exception {
        try (RawConnection a = session(); RawConnection b = session()) {
            a.send(RawConnection.concat(RawConnection.parse("", "SELECT 'a:' || $1::text"), RawConnection.describe('S', ""),
                    RawConnection.sync()));
            assertEquals("1tTZ", RawConnection.types(a.readUntilReady()));
            b.send(RawConnection.concat(RawConnection.parse("", "SELECT 'b:' || $1::text || $2::text"),
                    RawConnection.describe('S', ""), RawConnection.sync()));
            assertEquals("1tTZ", RawConnection.types(b.readUntilReady()));
            a.send(RawConnection.concat(RawConnection.bind("", "", "x"), RawConnection.execute("", 0), RawConnection.sync()));
            List<RawConnection.Message> answer = a.readUntilReady();
            assertEquals("2DCZ", RawConnection.types(answer), answer::toString);
            assertEquals("a:x", firstValue(answer.get(1)));
            b.send(RawConnection.concat(RawConnection.bind("", "", "y", "z"), RawConnection.execute("", 0), RawConnection.sync()));
            answer = b.readUntilReady();
            assertEquals("2DCZ", RawConnection.types(answer), answer::toString);
            assertEquals("b:yz", firstValue(answer.get(1)));
            // a's next Parse fails: it has no unnamed statement now, whatever the shared connection has
            a.send(RawConnection.concat(RawConnection.parse("", "SELEC 1"), RawConnection.sync()));
            assertEquals("EZ", RawConnection.types(a.readUntilReady()));
            b.send(RawConnection.concat(RawConnection.parse("", "INSERT INTO relay_edge VALUES ($1::int)"), RawConnection.sync()));
            assertEquals("1Z", RawConnection.types(b.readUntilReady()));
            a.send(RawConnection.concat(RawConnection.bind("", "", "7"), RawConnection.execute("", 0), RawConnection.sync()));
            List<RawConnection.Message> refused = a.readUntilReady();
            assertEquals("EZ", RawConnection.types(refused), refused::toString);
            assertEquals("26000", refused.get(0).fields().get('C'), refused::toString);
            assertEquals(0, rows(), "nothing of b's ran for a");
        }
    }

    /** The first value of a DataRow, as text. */
    private static String firstValue(RawConnection.Message dataRow) {
        java.nio.ByteBuffer body = java.nio.ByteBuffer.wrap(dataRow.body());
        body.getShort();
        byte[] value = new byte[body.getInt()];
        body.get(value);
        return new String(value, java.nio.charset.StandardCharsets.UTF_8);
    }

    /**
     * The function call protocol (pgjdbc's large objects) on a pooled database: refused with 0A000 and a hint that
     * names what sends it, then ReadyForQuery; the error carries no context of how the proxy raised it (it said
     * "PL/pgSQL function inline_code_block line 1 at RAISE"), and the session goes on.
     */
    @Test
    void aFunctionCallIsRefusedWithoutTheProxysContext() throws Exception {
        try (RawConnection c = session()) {
            c.send(RawConnection.message('F', java.nio.ByteBuffer.allocate(10).putInt(957).putShort((short) 0)
                    .putShort((short) 0).putShort((short) 0).array()));
            java.util.List<RawConnection.Message> answer = c.readUntilReady();
            assertEquals(2, answer.size(), answer::toString);
            String error = WireTraceTest.render(answer.get(0));
            assertTrue(error.startsWith("E ERROR 0A000"), error);
            assertTrue(answer.get(0).fields().getOrDefault('H', "").contains("large objects"), error);
            assertEquals(null, answer.get(0).fields().get('W'), answer.get(0).fields()::toString);
            c.send(query("SELECT 1"));
            java.util.List<String> next = new java.util.ArrayList<>();
            for (RawConnection.Message m : c.readUntilReady()) {
                next.add(WireTraceTest.render(m));
            }
            assertTrue(next.contains("C SELECT 1"), next::toString);
        }
    }
}
