package io.ashlar.bootstrap.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A sharded statement that reads several actual tables of one data source runs one unit per table
 * on that data source's connection. When one unit is cancelled (here by the client's cancel), the
 * units after it stop too, as the one statement PostgreSQL would have cancelled: they were sent
 * already and ran to their end (a statement_timeout ended each of them in turn, so a statement
 * took the timeout once per table).
 */
final class ShardedCancelTest {

    private static ProxiedPostgres server;

    @BeforeAll
    static void start() throws Exception {
        server = ProxiedPostgres.startSharded();
        for (String dataSource : new String[] {"ds_0", "ds_1"}) {
            try (Connection c = server.backend(dataSource); Statement s = c.createStatement()) {
                // Sequences are not transactional: one that moved says a unit ran past its sleep.
                s.execute("CREATE SEQUENCE cancel_probe");
            }
        }
        try (Connection c = server.proxy(""); Statement s = c.createStatement()) {
            // One row on each actual table: ds_${id % 2}.t_og_${id.intdiv(2) % 2}.
            s.execute("INSERT INTO t_og (id, name) VALUES (0, 'a'), (1, 'b'), (2, 'c'), (3, 'd')");
        }
    }

    @AfterAll
    static void stop() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void unitsAfterTheCancelledOneOnTheSameDataSourceStopToo() throws Exception {
        try (Connection c = server.proxy(""); Statement s = c.createStatement()) {
            Thread canceller = Thread.ofVirtual().start(() -> {
                try {
                    Thread.sleep(500);
                    s.cancel();
                } catch (InterruptedException | SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            SQLException cancelled = assertThrows(SQLException.class,
                    () -> s.executeQuery("SELECT pg_sleep(3), nextval('cancel_probe'), name FROM t_og"));
            assertEquals("57014", cancelled.getSQLState(), cancelled.getMessage());
            canceller.join();
        }
        for (String dataSource : new String[] {"ds_0", "ds_1"}) {
            try (Connection c = server.backend(dataSource); Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT is_called FROM cancel_probe")) {
                rs.next();
                assertEquals(false, rs.getBoolean(1), () -> "a unit on " + dataSource + " ran to its end after the cancel");
            }
        }
    }
}
