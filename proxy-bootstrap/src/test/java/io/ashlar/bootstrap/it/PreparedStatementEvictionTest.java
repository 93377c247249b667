package io.ashlar.bootstrap.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A backend connection keeps at most {@code ServerLink.MAX_PREPARED} (256) of the proxy's prepared statements: the
 * next Parse closes the least recently used one first. With one pooled connection, every statement lands on it.
 */
final class PreparedStatementEvictionTest {

    private static final String HOT = "SELECT ?::int + 100000";

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

    @Test
    void theLeastRecentlyUsedGivesWayAndAStatementInUseStays() throws SQLException {
        try (Connection c = server.proxy("prepareThreshold=1")) {
            assertEquals(100_001, run(c, HOT));
            String hotName = backendName(c);
            for (int i = 0; i < 300; i++) {
                assertEquals(1 + i, run(c, "SELECT ?::int + " + i));
                assertEquals(100_001, run(c, HOT)); // used between every two others: never the least recently used
            }
            try (Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_prepared_statements WHERE name LIKE 'ashlar_%'")) {
                rs.next();
                int kept = rs.getInt(1);
                assertTrue(kept <= 256 && kept >= 250, "statements kept on the connection: " + kept);
            }
            assertEquals(hotName, backendName(c), "the statement in use was closed and prepared again");
            // The first ones were closed: used again, they are prepared anew and answer the same.
            for (int i = 0; i < 10; i++) {
                assertEquals(1 + i, run(c, "SELECT ?::int + " + i));
            }
        }
    }

    private static int run(Connection c, String sql) throws SQLException {
        try (PreparedStatement p = c.prepareStatement(sql)) {
            p.setInt(1, 1);
            try (ResultSet rs = p.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }

    /** The name the proxy prepared {@link #HOT} under on its connection. */
    private static String backendName(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT name FROM pg_prepared_statements WHERE statement = 'SELECT $1::int + 100000'")) {
            assertTrue(rs.next(), "the hot statement is not prepared on the connection");
            return rs.getString(1);
        }
    }
}
