package io.ashlar.bootstrap.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A client that goes away without saying goodbye (no Terminate, the socket just closes) leaves
 * nothing behind on the backend: its transaction is rolled back, its locks are released, a
 * statement it was running is cancelled, and no backend connection stays "idle in transaction".
 * {@link Connection#abort} closes pgjdbc's socket at once, as a crashed client would.
 *
 * @see <a href="https://www.postgresql.org/docs/current/protocol-flow.html#PROTOCOL-FLOW-TERMINATION">Termination</a>
 */
final class SessionLifecycleTest {

    private static final String LEFTOVERS = "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
            + " AND pid <> pg_backend_pid() AND (state LIKE 'idle in transaction%' OR query LIKE '%pg_sleep(31)%' AND state = 'active')";

    private static ProxiedPostgres server;
    private static ExecutorService threads;

    @BeforeAll
    static void start() throws Exception {
        server = ProxiedPostgres.start();
        threads = Executors.newCachedThreadPool();
    }

    @AfterAll
    static void stop() throws Exception {
        if (threads != null) {
            threads.shutdownNow();
        }
        if (server != null) {
            server.close();
        }
    }

    private static void execute(Connection connection, String sql) throws SQLException {
        try (Statement s = connection.createStatement()) {
            s.execute(sql);
        }
    }

    private static void executeDirect(String sql) throws SQLException {
        try (Connection direct = server.direct("")) {
            execute(direct, sql);
        }
    }

    /** Backend connections left in a transaction or still running the abandoned sleep, polled for up to 10 s. */
    private static long leftoversAfterCleanup() throws Exception {
        long result = -1;
        try (Connection direct = server.direct(""); Statement s = direct.createStatement()) {
            for (int attempt = 0; attempt < 50; attempt++) {
                try (ResultSet rs = s.executeQuery(LEFTOVERS)) {
                    rs.next();
                    result = rs.getLong(1);
                }
                if (result == 0) {
                    return 0;
                }
                Thread.sleep(200);
            }
        }
        return result;
    }

    /** The backend's sessions other than the caller's, for failure messages. */
    private static String describeActivity() {
        List<String> result = new ArrayList<>();
        try (Connection direct = server.direct(""); Statement s = direct.createStatement();
             ResultSet rs = s.executeQuery("SELECT pid, state, application_name, query FROM pg_stat_activity"
                     + " WHERE datname = current_database() AND pid <> pg_backend_pid()")) {
            while (rs.next()) {
                result.add(rs.getInt(1) + " " + rs.getString(2) + " [" + rs.getString(3) + "] " + rs.getString(4));
            }
        } catch (SQLException e) {
            result.add("cannot read pg_stat_activity: " + e);
        }
        return result.toString();
    }

    @Test
    void clientGoneMidTransactionReleasesItsRowLock() throws Exception {
        executeDirect("CREATE TABLE gone_tx (id int PRIMARY KEY, v text); INSERT INTO gone_tx VALUES (1, 'start')");
        Connection holder = server.proxy("");
        holder.setAutoCommit(false);
        execute(holder, "UPDATE gone_tx SET v = 'held' WHERE id = 1");
        execute(holder, "SELECT * FROM gone_tx WHERE id = 1 FOR UPDATE");
        holder.abort(Runnable::run);

        try (Connection other = server.proxy("")) {
            // Were the lock kept, the update would wait 10 s and fail with 55P03; released, it succeeds at once.
            execute(other, "SET lock_timeout = '10s'");
            try (Statement s = other.createStatement()) {
                assertEquals(1, s.executeUpdate("UPDATE gone_tx SET v = 'after' WHERE id = 1"));
            }
            try (Statement s = other.createStatement(); ResultSet rs = s.executeQuery("SELECT v FROM gone_tx WHERE id = 1")) {
                assertTrue(rs.next());
                assertEquals("after", rs.getString(1));
            }
        }
        assertEquals(0, leftoversAfterCleanup(), () -> "backend activity: " + describeActivity());
    }

    @Test
    void clientGoneWhileInsertingInTransactionLeavesNoRows() throws Exception {
        executeDirect("CREATE TABLE gone_insert (id int PRIMARY KEY)");
        Connection writer = server.proxy("preferQueryMode=extended");
        writer.setAutoCommit(false);
        execute(writer, "INSERT INTO gone_insert SELECT generate_series(1, 100)");
        writer.abort(Runnable::run);
        assertEquals(0, leftoversAfterCleanup(), () -> "backend activity: " + describeActivity());
        try (Connection other = server.proxy(""); Statement s = other.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM gone_insert")) {
            assertTrue(rs.next());
            assertEquals(0, rs.getLong(1));
        }
    }

    @Test
    void clientGoneWhileStatementRunsCancelsIt() throws Exception {
        Connection sleeper = server.proxy("");
        Future<?> running = threads.submit(() -> {
            execute(sleeper, "SELECT pg_sleep(31)");
            return null;
        });
        try (Connection direct = server.direct(""); Statement s = direct.createStatement()) {
            boolean started = false;
            for (int attempt = 0; attempt < 100 && !started; attempt++) {
                try (ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE state = 'active'"
                        + " AND query LIKE '%pg_sleep(31)%' AND pid <> pg_backend_pid()")) {
                    rs.next();
                    started = rs.getLong(1) == 1;
                }
                if (!started) {
                    Thread.sleep(100);
                }
            }
            assertTrue(started, () -> "the sleep never reached the backend: " + describeActivity());
        }
        sleeper.abort(Runnable::run);
        assertEquals(0, leftoversAfterCleanup(), () -> "backend activity: " + describeActivity());
        running.cancel(true);
        try (Connection other = server.proxy(""); Statement s = other.createStatement();
             ResultSet rs = s.executeQuery("SELECT 'proxy still serves'")) {
            assertTrue(rs.next());
            assertEquals("proxy still serves", rs.getString(1));
        }
    }

    @Test
    void concurrentSessionsKeepTheirOwnSettingsAndTransactions() throws Exception {
        executeDirect("CREATE TABLE concurrent_rows (worker int, n int)");
        int workers = 8;
        List<Future<Integer>> results = new ArrayList<>();
        for (int w = 0; w < workers; w++) {
            int worker = w;
            String mode = switch (w % 4) {
                case 0 -> "simple";
                case 1 -> "extended";
                case 2 -> "extendedForPrepared";
                default -> "extendedCacheEverything";
            };
            results.add(threads.submit(() -> runWorker(worker, mode)));
        }
        for (int w = 0; w < workers; w++) {
            assertEquals(10, results.get(w).get(120, TimeUnit.SECONDS), "rows committed by worker " + w);
        }
        try (Connection direct = server.direct(""); Statement s = direct.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*), count(DISTINCT worker) FROM concurrent_rows")) {
            assertTrue(rs.next());
            assertEquals(workers * 10, rs.getLong(1));
            assertEquals(workers, rs.getLong(2));
        }
        assertEquals(0, leftoversAfterCleanup(), () -> "backend activity: " + describeActivity());
    }

    /** One client: its own settings, checked on every statement, and transactions that commit or roll back. */
    private static int runWorker(int worker, String mode) throws SQLException {
        String name = "worker_" + worker;
        try (Connection c = server.proxy("preferQueryMode=" + mode + "&prepareThreshold=1")) {
            execute(c, "SET application_name = '" + name + "'");
            execute(c, "SET statement_timeout = '" + (worker + 1) + "min'");
            int committed = 0;
            for (int i = 0; i < 40; i++) {
                try (PreparedStatement p = c.prepareStatement("SELECT current_setting('application_name'),"
                        + " current_setting('statement_timeout'), ?::int")) {
                    p.setInt(1, i);
                    try (ResultSet rs = p.executeQuery()) {
                        assertTrue(rs.next());
                        assertEquals(name, rs.getString(1), "application_name of " + name + " at " + i);
                        assertEquals((worker + 1) + "min", rs.getString(2), "statement_timeout of " + name + " at " + i);
                        assertEquals(i, rs.getInt(3));
                    }
                }
                if (i % 2 == 0) {
                    c.setAutoCommit(false);
                    try (PreparedStatement p = c.prepareStatement("INSERT INTO concurrent_rows VALUES (?, ?)")) {
                        p.setInt(1, worker);
                        p.setInt(2, i);
                        p.executeUpdate();
                    }
                    try (PreparedStatement p = c.prepareStatement("SELECT count(*) FROM concurrent_rows WHERE worker = ?")) {
                        p.setInt(1, worker);
                        try (ResultSet rs = p.executeQuery()) {
                            assertTrue(rs.next());
                            assertEquals(committed + 1, rs.getInt(1), "rows seen in the transaction of " + name + " at " + i);
                        }
                    }
                    if (i % 4 == 0) {
                        c.commit();
                        committed++;
                    } else {
                        c.rollback();
                    }
                    c.setAutoCommit(true);
                }
            }
            try (Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT count(*) FROM concurrent_rows WHERE worker = " + worker)) {
                assertTrue(rs.next());
                assertEquals(committed, rs.getInt(1));
                return rs.getInt(1);
            }
        }
    }
}
