package io.ashlar.bootstrap.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * Stopping the proxy (what SIGTERM does): it stops accepting, lets a transaction in progress
 * finish, then closes the sessions; nothing committed is lost and nothing half-done stays.
 */
class ShutdownTest {

    @Test
    void aTransactionInProgressFinishesBeforeTheProxyCloses() throws Exception {
        ProxiedPostgres server = ProxiedPostgres.start();
        try {
            try (Connection setup = server.direct(""); Statement s = setup.createStatement()) {
                s.execute("DROP TABLE IF EXISTS shutdown_rows; CREATE TABLE shutdown_rows (id int PRIMARY KEY)");
            }
            Connection idle = server.proxy("");
            Connection busy = server.proxy("");
            busy.setAutoCommit(false);
            try (Statement s = busy.createStatement()) {
                s.executeUpdate("INSERT INTO shutdown_rows VALUES (1)");
            }
            CompletableFuture<Void> stopping = CompletableFuture.runAsync(server::stopProxy);
            Thread.sleep(300);
            assertTrue(!stopping.isDone(), "the proxy waits for the open transaction");
            try (Statement s = busy.createStatement()) {
                s.executeUpdate("INSERT INTO shutdown_rows VALUES (2)");
            }
            busy.commit();
            stopping.get();
            try (Connection check = server.direct(""); Statement s = check.createStatement();
                 ResultSet rs = s.executeQuery("SELECT count(*) FROM shutdown_rows")) {
                assertTrue(rs.next());
                assertEquals(2, rs.getInt(1), "the transaction that was running when the proxy stopped committed");
            }
            SQLException closed = assertThrows(SQLException.class, () -> {
                try (Statement s = idle.createStatement()) {
                    s.execute("SELECT 1");
                }
            });
            // Told, as PostgreSQL tells its sessions at shutdown (it was closed without a word).
            assertEquals("57P01", closed.getSQLState(), closed::getMessage);
            assertTrue(closed.getMessage().contains("terminating connection due to administrator command"), closed::getMessage);
            assertThrows(SQLException.class, () -> server.proxy("").close(), "no new connections once stopped");
        } finally {
            server.close();
        }
    }
}
