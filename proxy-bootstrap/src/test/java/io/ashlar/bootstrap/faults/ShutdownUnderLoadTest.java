package io.ashlar.bootstrap.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * The proxy stops (what SIGTERM does) while sessions of a pooled and a sharded database are idle, inside
 * transactions, running long statements and running short ones in a loop. As PostgreSQL's smart shutdown turning
 * fast: idle sessions are told FATAL 57P01 at once, open transactions may still commit within the grace, then the
 * rest are told the same and what they still run on the backends is cancelled; no backend connection is left.
 * (Sessions were closed without a word once all of them happened to be idle at once, which under load never came,
 * and running statements went on after the proxy exited. And a sharded session's COMMIT, answered just as the stop
 * looked at it, reached its client as FATAL 57P01 in about one run of four after other tests had warmed the JVM: the
 * loop wrote the FATAL ahead of the answer the session's thread had queued, and the transaction had committed.)
 */
final class ShutdownUnderLoadTest {

    private static final long GRACE_MILLIS = 3_000;

    @Test
    void idleSessionsAreToldAtOnceTransactionsFinishAndTheRestAreCancelledAfterTheGrace() throws Exception {
        ExecutorService threads = Executors.newCachedThreadPool();
        List<Connection> connections = new ArrayList<>();
        try (FaultyServers servers = FaultyServers.start(20, 20)) {
            try (Connection c = servers.connect(FaultyServers.SHARDED); Statement s = c.createStatement()) {
                s.execute("INSERT INTO t (id, v) VALUES (0, 'zero'), (1, 'one')");
            }
            List<Connection> idle = new ArrayList<>();
            for (String database : List.of(FaultyServers.POOLED, FaultyServers.SHARDED)) {
                for (int i = 0; i < 3; i++) {
                    Connection c = servers.connect(database);
                    connections.add(c);
                    try (Statement s = c.createStatement()) {
                        s.execute("SELECT 1");
                    }
                    idle.add(c);
                }
            }
            // Transactions open when the stop begins, committed within the grace.
            Connection pooledTx = servers.connect(FaultyServers.POOLED);
            Connection shardedTx = servers.connect(FaultyServers.SHARDED);
            connections.add(pooledTx);
            connections.add(shardedTx);
            pooledTx.setAutoCommit(false);
            shardedTx.setAutoCommit(false);
            try (Statement s = pooledTx.createStatement()) {
                s.execute("INSERT INTO p (id, v) VALUES (1, 'committed in the grace')");
            }
            try (Statement s = shardedTx.createStatement()) {
                s.execute("INSERT INTO t (id, v) VALUES (10, 'committed in the grace'), (11, 'committed in the grace')");
            }
            // Statements that outlast the grace.
            Map<String, CompletableFuture<String>> sleepers = new ConcurrentHashMap<>();
            for (String database : List.of(FaultyServers.POOLED, FaultyServers.SHARDED)) {
                Connection c = servers.connect(database);
                connections.add(c);
                sleepers.put(database, CompletableFuture.supplyAsync(() -> outcome(c, database.equals(FaultyServers.POOLED)
                        ? "SELECT pg_sleep(60) AS shutdown_sleeper" : "SELECT v, pg_sleep(60) AS shutdown_sleeper FROM t"), threads));
            }
            // Short statements in a loop: busy, but idle between statements.
            AtomicBoolean running = new AtomicBoolean(true);
            List<CompletableFuture<String>> loops = new ArrayList<>();
            for (String database : List.of(FaultyServers.POOLED, FaultyServers.SHARDED, FaultyServers.POOLED, FaultyServers.SHARDED)) {
                Connection c = servers.connect(database);
                connections.add(c);
                loops.add(CompletableFuture.supplyAsync(() -> {
                    while (running.get()) {
                        String outcome = outcome(c, "SELECT count(*) FROM " + (database.equals(FaultyServers.POOLED) ? "p" : "t"));
                        if (!outcome.equals("ok")) {
                            return outcome;
                        }
                    }
                    return "still running";
                }, threads));
            }
            awaitSleeping(servers, 2);
            long stopping = System.nanoTime();
            CompletableFuture<Void> stop = CompletableFuture.runAsync(() -> servers.proxy().stop(GRACE_MILLIS), threads);
            Thread.sleep(500);
            for (Connection c : idle) {
                String outcome = outcome(c, "SELECT 1");
                assertEquals("57P01", outcome, "an idle session is told at once");
            }
            for (CompletableFuture<String> each : loops) {
                assertEquals("57P01", each.get(10, TimeUnit.SECONDS), "a session between two statements is told");
            }
            running.set(false);
            pooledTx.commit();
            shardedTx.commit();
            for (Map.Entry<String, CompletableFuture<String>> each : sleepers.entrySet()) {
                String outcome;
                try {
                    outcome = each.getValue().get(30, TimeUnit.SECONDS);
                } catch (java.util.concurrent.TimeoutException e) {
                    // Should it happen: what the process's threads and sockets were doing then (on io_uring, the stop
                    // itself once did not end, and a backend connection once stayed open after its loop ended).
                    throw new AssertionError(each.getKey() + ": the sleeping client got no answer within 30 s of the stop;"
                            + " stop done: " + stop.isDone() + "\n" + threadsAndSockets(), e);
                }
                long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stopping);
                assertTrue(outcome.equals("57P01") || outcome.startsWith("08"), each.getKey() + ": " + outcome);
                assertTrue(millis >= GRACE_MILLIS, each.getKey() + ": ended before the grace was over");
            }
            try {
                stop.get(30, TimeUnit.SECONDS);
            } catch (java.util.concurrent.TimeoutException e) {
                throw new AssertionError("the stop did not end within 30 s\n" + threadsAndSockets(), e);
            }
            long stoppedAfter = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stopping);
            System.out.println("ShutdownUnderLoadTest: stopped " + stoppedAfter + " ms after the stop began (grace " + GRACE_MILLIS + " ms)");
            try (Connection c = servers.server(0).connect("pooled"); Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT count(*) FROM p WHERE id = 1")) {
                rs.next();
                assertEquals(1, rs.getInt(1), "the pooled transaction open at the stop committed");
            }
            for (int i = 0; i < 2; i++) {
                try (Connection c = servers.server(i).connect("ds_" + i); Statement s = c.createStatement();
                        ResultSet rs = s.executeQuery("SELECT count(*) FROM t WHERE id IN (10, 11)")) {
                    rs.next();
                    assertEquals(1, rs.getInt(1), "the sharded transaction open at the stop committed on ds_" + i);
                }
            }
            // Nothing of the proxy's is left on the backends: no statement running, no connection at all.
            for (int i = 0; i < 2; i++) {
                String left = leftOver(servers.server(i));
                int server = i;
                assertEquals("", left, () -> "server " + server + " still has the proxy's backends: " + left + "\n" + threadsAndSockets());
            }
        } finally {
            for (Connection c : connections) {
                try {
                    c.close();
                } catch (SQLException ignored) {
                    // Closed by the proxy.
                }
            }
            threads.shutdownNow();
        }
    }

    /** Every thread's stack, and the process's TCP sockets as {@code ss} shows them. */
    private static String threadsAndSockets() {
        StringBuilder result = new StringBuilder();
        for (Map.Entry<Thread, StackTraceElement[]> each : Thread.getAllStackTraces().entrySet()) {
            result.append('"').append(each.getKey().getName()).append("\" ").append(each.getKey().getState()).append('\n');
            for (StackTraceElement frame : each.getValue()) {
                result.append("    at ").append(frame).append('\n');
            }
        }
        try {
            Process ss = new ProcessBuilder("ss", "-tanpo").redirectErrorStream(true).start();
            String pid = Long.toString(ProcessHandle.current().pid());
            for (String line : new String(ss.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).split("\n")) {
                if (line.contains("pid=" + pid + ",")) {
                    result.append(line).append('\n');
                }
            }
        } catch (java.io.IOException e) {
            result.append("ss: ").append(e);
        }
        return result.toString();
    }

    /** "ok", or the SQLSTATE the statement failed with. */
    private static String outcome(Connection c, String sql) {
        try (Statement s = c.createStatement()) {
            s.execute(sql);
            return "ok";
        } catch (SQLException e) {
            return e.getSQLState();
        }
    }

    private static void awaitSleeping(FaultyServers servers, int expected) throws Exception {
        for (int i = 0; i < 200; i++) {
            int sleeping = 0;
            for (int server = 0; server < 2; server++) {
                try (Connection c = servers.server(server).connect("postgres"); Statement s = c.createStatement();
                        ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE state = 'active'"
                                + " AND query LIKE '%shutdown_sleeper%' AND pid <> pg_backend_pid()")) {
                    rs.next();
                    sleeping += rs.getInt(1);
                }
            }
            if (sleeping >= expected + 1) { // the sharded statement sleeps on both servers
                return;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("the long statements did not start");
    }

    /** The client backends of a server other than the checker's own, as "pid state query" lines; empty when none. */
    private static String leftOver(FaultyServers.Server server) throws Exception {
        String result = "";
        for (int i = 0; i < 100; i++) {
            StringBuilder found = new StringBuilder();
            try (Connection c = server.connect("postgres"); Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT pid, state, query FROM pg_stat_activity WHERE backend_type = 'client backend'"
                            + " AND pid <> pg_backend_pid()")) {
                while (rs.next()) {
                    found.append(rs.getLong(1)).append(' ').append(rs.getString(2)).append(' ').append(rs.getString(3)).append('\n');
                }
            }
            result = found.toString();
            if (result.isEmpty()) {
                return result;
            }
            Thread.sleep(50);
        }
        return result;
    }
}
