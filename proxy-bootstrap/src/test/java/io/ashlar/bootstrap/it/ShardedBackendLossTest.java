package io.ashlar.bootstrap.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A sharded database whose backend connection is lost: the client hears of it, and nothing is
 * half done. A SELECT whose shard connection died mid-answer succeeded with no rows; a COMMIT
 * after one data source's connection ended committed the others.
 */
final class ShardedBackendLossTest {

    private static ProxiedPostgres server;

    @BeforeAll
    static void start() throws Exception {
        server = ProxiedPostgres.startSharded();
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

    /** The pid of the backend of data source {@code ds} in {@code state} whose query contains {@code marker}, waiting for it. */
    private static long backendOf(String ds, String marker, String state) throws Exception {
        for (int i = 0; i < 200; i++) {
            try (Connection c = server.backend("postgres"); Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT pid FROM pg_stat_activity WHERE datname = '" + ds
                            + "' AND query LIKE '%" + marker + "%' AND state = '" + state + "' AND pid <> pg_backend_pid()")) {
                if (rs.next()) {
                    return rs.getLong(1);
                }
            }
            Thread.sleep(50);
        }
        throw new AssertionError("no backend of " + ds + " runs " + marker);
    }

    private static void waitGone(long pid) throws Exception {
        for (int i = 0; i < 200; i++) {
            try (Connection c = server.backend("postgres"); Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE pid = " + pid)) {
                rs.next();
                if (rs.getLong(1) == 0) {
                    Thread.sleep(300); // its socket's end reaches the proxy's event loop
                    return;
                }
            }
            Thread.sleep(50);
        }
        throw new AssertionError("backend " + pid + " still there");
    }

    @Test
    void aSelectWhoseShardConnectionDiesFailsInsteadOfAnsweringNoRows() throws Exception {
        try (Connection c = server.proxy(""); Statement s = c.createStatement()) {
            CompletableFuture<SQLException> outcome = CompletableFuture.supplyAsync(() -> {
                try {
                    s.executeQuery("SELECT pg_sleep(5) AS lost_probe, name FROM t_og").close();
                    return null;
                } catch (SQLException e) {
                    return e;
                }
            });
            long pid = backendOf("ds_1", "lost_probe", "active");
            // Killed, not terminated: the backend sends nothing before its socket ends, as when a
            // server crashes or the network drops.
            ProcessHandle.of(pid).orElseThrow().destroyForcibly();
            SQLException failure = outcome.get(60, TimeUnit.SECONDS);
            assertTrue(failure != null, "the SELECT succeeded although a shard's connection died mid-statement");
            assertTrue(failure.getSQLState().startsWith("08") || failure.getSQLState().startsWith("57"), failure::getMessage);
        }
        // PostgreSQL restarts its backends after a killed one; the proxy serves again once it is back.
        for (int i = 0; ; i++) {
            try (Connection c = server.proxy(""); Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT count(*) FROM t_og")) {
                rs.next();
                break;
            } catch (SQLException recovering) {
                if (i == 100) {
                    throw recovering;
                }
                Thread.sleep(200);
            }
        }
    }

    @Test
    void aCommitAfterOneDataSourceConnectionEndedRollsBackEverywhere() throws Exception {
        try (Connection c = server.proxy(""); Statement s = c.createStatement()) {
            s.execute("DELETE FROM t_og WHERE id IN (100, 101)");
            c.setAutoCommit(false);
            s.execute("INSERT INTO t_og (id, name) VALUES (100, 'loss_probe_0')"); // ds_0
            s.execute("INSERT INTO t_og (id, name) VALUES (101, 'loss_probe_1')"); // ds_1
            long pid = backendOf("ds_1", "loss_probe_1", "idle in transaction");
            try (Connection direct = server.backend("postgres"); Statement d = direct.createStatement()) {
                d.execute("SELECT pg_terminate_backend(" + pid + ")");
            }
            waitGone(pid);
            SQLException failure = assertThrows(SQLException.class, c::commit);
            assertTrue(failure.getSQLState().startsWith("08"), failure::getMessage);
        }
        for (String ds : new String[] {"ds_0", "ds_1"}) {
            try (Connection c = server.backend(ds); Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT (SELECT count(*) FROM t_og_0) + (SELECT count(*) FROM t_og_1)"
                            + " - (SELECT count(*) FROM t_og_0 WHERE id NOT IN (100, 101)) - (SELECT count(*) FROM t_og_1 WHERE id NOT IN (100, 101))")) {
                rs.next();
                assertEquals(0, rs.getLong(1), () -> "a row of the failed transaction was committed on " + ds);
            }
        }
    }

    /**
     * A backend that ends an idle transaction (idle_in_transaction_session_timeout) says why; the
     * session's next statement there fails with that reason (it said only "the backend closed the
     * connection"), and its COMMIT keeps nothing.
     */
    @Test
    void aBackendThatEndsAnIdleTransactionSaysWhy() throws Exception {
        try (Connection c = server.proxy(""); Statement s = c.createStatement()) {
            s.execute("SET idle_in_transaction_session_timeout = '1000ms'");
            c.setAutoCommit(false);
            s.execute("INSERT INTO t_og (id, name) VALUES (200, 'idle_probe')"); // ds_0
            long pid = backendOf("ds_0", "idle_probe", "idle in transaction");
            waitGone(pid);
            SQLException failure = assertThrows(SQLException.class, () -> s.executeQuery("SELECT name FROM t_og WHERE id = 200").close());
            assertTrue(failure.getMessage().contains("idle-in-transaction"), failure::getMessage);
            assertThrows(SQLException.class, c::commit);
        }
        try (Connection c = server.backend("ds_0"); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*) FROM t_og_0 WHERE id = 200")) {
            rs.next();
            assertEquals(0, rs.getLong(1));
        }
    }
}
