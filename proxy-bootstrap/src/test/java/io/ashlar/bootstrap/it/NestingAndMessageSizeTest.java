package io.ashlar.bootstrap.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ashlar.bootstrap.config.ServerProps;
import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 13's deep nesting and huge messages, through a sharded database (its statements are read by
 * Ashlar's analyzer) and a pooled one (relayed), side by side with PostgreSQL itself: 50,000 nested
 * parentheses get PostgreSQL's error and the session lives on (they threw StackOverflowError and
 * dropped the connection); a message over a statement's memory budget ({@code
 * proxy-statement-memory-limit}, 1 MiB here) gets 53200 without being held, in the simple and the
 * extended protocol, and the session lives on. Each client: pgjdbc in its default (extended) mode
 * and in simple query mode.
 */
final class NestingAndMessageSizeTest {

    private static final long MEMORY_LIMIT = 1L << 20;
    private static ProxiedPostgres server;

    @BeforeAll
    static void start() throws Exception {
        ServerProps d = ServerProps.DEFAULTS;
        ServerProps props = new ServerProps(d.port(), d.bindAddress(), d.frontendMaxConnections(), d.sqlShow(), d.sqlSimple(),
                d.backendQueryFetchSize(), d.maxConnectionsSizePerQuery(), d.frontendDatabaseProtocolType(),
                d.frontendFlushThreshold(), d.frontendExecutorSize(), d.nettyBacklog(), MEMORY_LIMIT, d.frontendTls(),
                d.authenticationTimeoutSeconds(), d.authDelayMilliseconds());
        server = ProxiedPostgres.startSharded(true, props);
    }

    @AfterAll
    static void stop() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    private enum Target { POSTGRESQL, SHARDED, POOLED }

    private static Connection connect(Target target, boolean simple) throws SQLException {
        String mode = simple ? "?preferQueryMode=simple" : "";
        return switch (target) {
            case POSTGRESQL -> DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + server.backendPort() + "/"
                    + ProxiedPostgres.BACKEND_DATABASE + mode, ProxiedPostgres.BACKEND_USER, "");
            case SHARDED, POOLED -> DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + server.proxyPort() + "/"
                    + (target == Target.SHARDED ? ProxiedPostgres.DATABASE : ProxiedPostgres.POOLED_DATABASE) + mode,
                    ProxiedPostgres.PASSWORD_USER, ProxiedPostgres.password(ProxiedPostgres.PASSWORD_USER));
        };
    }

    private static String nested(int depth) {
        return "SELECT " + "(".repeat(depth) + "1" + ")".repeat(depth) + " AS one";
    }

    private static int one(Statement s, String sql) throws SQLException {
        try (ResultSet rows = s.executeQuery(sql)) {
            assertTrue(rows.next());
            return rows.getInt(1);
        }
    }

    private static void assertLives(Statement s) throws SQLException {
        assertEquals(1, one(s, "SELECT 1"), "the session goes on");
    }

    /** Issue 13: the connection dropped with no message; PostgreSQL answers 42601 and the session lives. */
    @Test
    void fiftyThousandParenthesesGetPostgresqlsErrorAndTheSessionLivesOn() throws SQLException {
        for (boolean simple : new boolean[] {false, true}) {
            String expected = null;
            for (Target target : Target.values()) {
                try (Connection c = connect(target, simple); Statement s = c.createStatement()) {
                    SQLException e = assertThrows(SQLException.class, () -> one(s, nested(50_000)), target.name());
                    if (expected == null) {
                        expected = e.getSQLState();
                    }
                    assertEquals(expected, e.getSQLState(), target + (simple ? " simple" : " extended") + ": " + e.getMessage());
                    assertLives(s);
                }
            }
            assertEquals("42601", expected, "PostgreSQL's own parser gives up ('memory exhausted')");
        }
    }

    @Test
    void aStatementNestedAsDeepAsAshlarReadsRunsEverywhere() throws SQLException {
        for (Target target : Target.values()) {
            try (Connection c = connect(target, false); Statement s = c.createStatement()) {
                assertEquals(1, one(s, nested(1000)), target.name());
            }
        }
    }

    /**
     * Deeper than Ashlar's analyzer reads, and not as deep as PostgreSQL's parser gives up: a sharded
     * database refuses it with PostgreSQL's 54001 and a hint (PostgreSQL runs it), the pooled one
     * passes it on and PostgreSQL runs it.
     */
    @Test
    void deeperThanTheAnalyzerReadsIsStackDepthLimitExceededOnAShardedDatabase() throws SQLException {
        try (Connection c = connect(Target.SHARDED, false); Statement s = c.createStatement()) {
            SQLException e = assertThrows(SQLException.class, () -> one(s, nested(5000)));
            assertEquals("54001", e.getSQLState(), e.getMessage());
            assertTrue(e.getMessage().contains("stack depth limit exceeded") && e.getMessage().contains("nest at most 1000"),
                    e.getMessage());
            assertLives(s);
        }
        for (Target target : new Target[] {Target.POSTGRESQL, Target.POOLED}) {
            try (Connection c = connect(target, false); Statement s = c.createStatement()) {
                assertEquals(1, one(s, nested(5000)), target.name());
            }
        }
    }

    private static String literalOf(int bytes) {
        return "x".repeat(bytes);
    }

    @Test
    void aQueryOverTheStatementMemoryLimitIs53200AndTheSessionLivesOn() throws SQLException {
        for (Target target : List.of(Target.SHARDED, Target.POOLED)) {
            for (boolean simple : new boolean[] {false, true}) {
                try (Connection c = connect(target, simple); Statement s = c.createStatement()) {
                    String huge = "SELECT length('" + literalOf((int) MEMORY_LIMIT + 1) + "')";
                    SQLException e = assertThrows(SQLException.class, () -> one(s, huge), target.name());
                    assertEquals("53200", e.getSQLState(), target + ": " + e.getMessage());
                    assertTrue(e.getMessage().contains("out of memory"), e.getMessage());
                    assertEquals(500_000, one(s, "SELECT length('" + literalOf(500_000) + "')"), "under the limit it runs");
                    assertLives(s);
                }
            }
        }
    }

    @Test
    void aBindOverTheStatementMemoryLimitIs53200UpToTheSyncAndTheSessionLivesOn() throws SQLException {
        for (Target target : List.of(Target.SHARDED, Target.POOLED)) {
            try (Connection c = connect(target, false); Statement s = c.createStatement();
                 PreparedStatement p = c.prepareStatement("SELECT length(?::text)")) {
                p.setString(1, literalOf((int) MEMORY_LIMIT + 1));
                SQLException e = assertThrows(SQLException.class, p::executeQuery, target.name());
                assertEquals("53200", e.getSQLState(), target + ": " + e.getMessage());
                p.setString(1, "four");
                try (ResultSet rows = p.executeQuery()) {
                    assertTrue(rows.next());
                    assertEquals(4, rows.getInt(1));
                }
                assertLives(s);
            }
        }
    }

    /** PostgreSQL's own cap on a message's length (1 GB - 1): a longer length is broken framing, FATAL. */
    @Test
    void aLengthOverPostgresqlsMessageLimitEndsTheSession() throws IOException {
        for (String database : new String[] {ProxiedPostgres.DATABASE, ProxiedPostgres.POOLED_DATABASE}) {
            try (RawConnection raw = new RawConnection(server.proxyPort())) {
                raw.logIn(ProxiedPostgres.PASSWORD_USER, database, ProxiedPostgres.password(ProxiedPostgres.PASSWORD_USER));
                raw.send(new byte[] {'Q', 0x40, 0, 0, 0});
                RawConnection.Message error = raw.read();
                assertEquals('E', error.type());
                assertEquals("FATAL", error.fields().get('S'));
                assertEquals("08P01", error.fields().get('C'));
                assertEquals("invalid message length", error.fields().get('M'));
                assertEquals(null, raw.read(), "closed");
            }
        }
    }
}
