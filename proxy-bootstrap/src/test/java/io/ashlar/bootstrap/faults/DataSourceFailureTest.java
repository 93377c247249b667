package io.ashlar.bootstrap.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ashlar.backend.datasource.BackendDataSource;
import io.ashlar.backend.pg.DataSourceHealth;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A data source that dies, hangs or is busy, beside one that is well, under a sharded database: statements that
 * need the sick one fail at once with 08006 naming it (they waited the whole connection timeout), statements that
 * need only the well one keep going (they starved behind sessions that held its connections while waiting for the
 * other's), a hung server's running statements end (they hung until TCP gave up, hours), and the data source is
 * back without a restart once its server is.
 */
final class DataSourceFailureTest {

    /** ds_0 lends 4 connections, ds_1 2: a few sessions are enough to exhaust either. */
    private static FaultyServers servers;

    @BeforeAll
    static void start() throws Exception {
        servers = FaultyServers.start(4, 2);
        try (Connection c = servers.connect(FaultyServers.SHARDED); Statement s = c.createStatement()) {
            s.execute("INSERT INTO t (id, v) VALUES (0, 'zero'), (1, 'one'), (2, 'two'), (3, 'three')");
        }
    }

    @AfterAll
    static void stop() throws Exception {
        if (servers != null) {
            servers.close();
        }
    }

    /** Every test leaves both servers running and both data sources up. */
    @AfterEach
    void bothUp() throws Exception {
        servers.server(1).thaw();
        awaitUp();
    }

    private static void awaitUp() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try (Connection c = servers.connect(FaultyServers.SHARDED); Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT count(*) FROM t")) {
                rs.next();
                return;
            } catch (SQLException notYet) {
                if (System.nanoTime() - deadline > 0) {
                    throw new AssertionError("the data sources did not come back within 30 s: " + notYet.getMessage(), notYet);
                }
                Thread.sleep(100);
            }
        }
    }

    private static BackendDataSource dataSource(String name) {
        for (BackendDataSource each : servers.proxy().databases().get(FaultyServers.SHARDED).dataSources()) {
            if (each.name().equals(name)) {
                return each;
            }
        }
        throw new AssertionError("no data source " + name);
    }

    /** Runs a query and returns its first column of its first row, or throws. */
    private static String value(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            assertTrue(rs.next(), sql);
            return rs.getString(1);
        }
    }

    private static SQLException failure(Connection c, String sql) {
        try {
            value(c, sql);
        } catch (SQLException e) {
            return e;
        }
        throw new AssertionError("succeeded: " + sql);
    }

    @Test
    void aStoppedServerFailsItsStatementsAtOnceAndIsBackWithoutARestart() throws Exception {
        try (Connection c = servers.connect(FaultyServers.SHARDED)) {
            assertEquals("one", value(c, "SELECT v FROM t WHERE id = 1"));
            servers.server(1).stop();
            try {
                for (int i = 0; i < 3; i++) {
                    long started = System.nanoTime();
                    SQLException lost = failure(c, "SELECT v FROM t WHERE id = 1");
                    long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
                    assertEquals("08006", lost.getSQLState(), lost::getMessage);
                    assertTrue(lost.getMessage().contains("ds_1"), lost::getMessage);
                    assertTrue(millis < FaultyServers.CONNECTION_TIMEOUT_MILLIS / 2, () -> "failed after " + millis
                            + " ms, not at once: " + lost.getMessage());
                    // ds_0 serves all along.
                    assertEquals("zero", value(c, "SELECT v FROM t WHERE id = 0"));
                }
                DataSourceHealth.State state = dataSource("ds_1").health().state();
                assertTrue(!state.up() && state.reason().contains("refused"), state::toString);
                assertTrue(dataSource("ds_0").health().state().up());
            } finally {
                servers.server(1).start();
            }
            awaitUp();
            assertEquals("one", value(c, "SELECT v FROM t WHERE id = 1"));
            assertTrue(dataSource("ds_1").health().state().up());
        }
    }

    @Test
    void aFrozenServerIsFoundOutAndTheStatementsWaitingOnItEnd() throws Exception {
        try (Connection sleeper = servers.connect(FaultyServers.SHARDED); Connection other = servers.connect(FaultyServers.SHARDED)) {
            assertEquals("one", value(other, "SELECT v FROM t WHERE id = 1"));
            CompletableFuture<SQLException> sleeping = CompletableFuture.supplyAsync(() -> {
                try {
                    value(sleeper, "SELECT v || pg_sleep(20) FROM t WHERE id = 1");
                    return null;
                } catch (SQLException e) {
                    return e;
                }
            });
            Thread.sleep(500);
            long frozenAt = System.nanoTime();
            servers.server(1).freeze();
            SQLException ended = sleeping.get(60, TimeUnit.SECONDS);
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - frozenAt);
            assertTrue(ended != null, "the statement on the frozen server succeeded");
            assertEquals("08006", ended.getSQLState(), ended::getMessage);
            // Found out by the health check (every 0.5 s, 1.5 s to answer), not by the end of the pg_sleep (20 s).
            assertTrue(millis < 10_000, () -> "the statement on the frozen server ended after " + millis + " ms");
            assertEquals("zero", value(other, "SELECT v FROM t WHERE id = 0"));
            long started = System.nanoTime();
            SQLException down = failure(other, "SELECT v FROM t WHERE id = 3");
            long failedIn = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            assertEquals("08006", down.getSQLState(), down::getMessage);
            assertTrue(failedIn < 2_000, () -> "failed after " + failedIn + " ms");
            assertTrue(dataSource("ds_1").health().state().reason().contains("health check"),
                    () -> dataSource("ds_1").health().state().toString());
            servers.server(1).thaw();
            awaitUp();
        }
    }

    /**
     * ds_1's two connections are held by open transactions: statements across both data sources wait for ds_1.
     * Borrowing one data source after another, each of them held a connection of ds_0 meanwhile, and four of them
     * took all of ds_0's: a statement on ds_0 alone then waited the whole connection timeout and failed.
     */
    @Test
    void statementsThatWaitForABusyDataSourceHoldNothingOfTheOther() throws Exception {
        List<Connection> holders = new ArrayList<>();
        ExecutorService threads = Executors.newCachedThreadPool();
        try {
            for (int i = 0; i < 2; i++) {
                Connection holder = servers.connect(FaultyServers.SHARDED);
                holder.setAutoCommit(false);
                value(holder, "SELECT v FROM t WHERE id = 1");
                holders.add(holder);
            }
            List<CompletableFuture<String>> crossing = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                crossing.add(CompletableFuture.supplyAsync(() -> {
                    try (Connection c = servers.connect(FaultyServers.SHARDED)) {
                        return value(c, "SELECT count(*) FROM t");
                    } catch (SQLException e) {
                        return e.getSQLState();
                    }
                }, threads));
            }
            Thread.sleep(1000); // they are all waiting for ds_1 by now
            try (Connection c = servers.connect(FaultyServers.SHARDED)) {
                long started = System.nanoTime();
                assertEquals("zero", value(c, "SELECT v FROM t WHERE id = 0"));
                long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
                assertTrue(millis < FaultyServers.CONNECTION_TIMEOUT_MILLIS / 2, () -> "a statement on ds_0 alone waited "
                        + millis + " ms behind statements waiting for ds_1");
            }
            for (Connection holder : holders) {
                holder.rollback();
            }
            for (CompletableFuture<String> each : crossing) {
                assertEquals("4", each.get(60, TimeUnit.SECONDS), "a statement across both data sources, once ds_1 came free");
            }
        } finally {
            for (Connection holder : holders) {
                holder.close();
            }
            threads.shutdownNow();
        }
    }

    /**
     * Under load: sessions across both data sources, and sessions on ds_0 alone, while ds_1's server is stopped and
     * started again. Those on ds_0 keep going; those that need ds_1 fail fast, and succeed again once it is back.
     */
    @Test
    void underLoadADeadDataSourceNeitherStallsTheLiveOneNorStaysDown() throws Exception {
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicLong liveOk = new AtomicLong();
        AtomicLong liveFailed = new AtomicLong();
        AtomicLong liveSlowest = new AtomicLong();
        AtomicLong crossOk = new AtomicLong();
        AtomicLong crossFailed = new AtomicLong();
        AtomicLong crossSlowest = new AtomicLong();
        ExecutorService threads = Executors.newCachedThreadPool();
        List<CompletableFuture<Void>> load = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            boolean cross = i % 2 == 0;
            load.add(CompletableFuture.runAsync(() -> {
                try (Connection c = servers.connect(FaultyServers.SHARDED)) {
                    while (running.get()) {
                        long started = System.nanoTime();
                        boolean ok;
                        try {
                            value(c, cross ? "SELECT count(*) FROM t" : "SELECT v FROM t WHERE id = 2");
                            ok = true;
                        } catch (SQLException e) {
                            ok = false;
                        }
                        long nanos = System.nanoTime() - started;
                        (cross ? crossSlowest : liveSlowest).accumulateAndGet(nanos, Math::max);
                        (cross ? (ok ? crossOk : crossFailed) : (ok ? liveOk : liveFailed)).incrementAndGet();
                    }
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            }, threads));
        }
        try {
            Thread.sleep(1000);
            servers.server(1).stop();
            Thread.sleep(3000);
            long crossFailedWhileDown = crossFailed.get();
            long liveOkWhileDown = liveOk.get();
            servers.server(1).start();
            awaitUp();
            long crossOkBefore = crossOk.get();
            Thread.sleep(1000);
            running.set(false);
            for (CompletableFuture<Void> each : load) {
                each.get(60, TimeUnit.SECONDS);
            }
            String figures = "ds_0 alone: " + liveOk.get() + " ok, " + liveFailed.get() + " failed, slowest "
                    + TimeUnit.NANOSECONDS.toMillis(liveSlowest.get()) + " ms; across both: " + crossOk.get() + " ok, "
                    + crossFailed.get() + " failed, slowest " + TimeUnit.NANOSECONDS.toMillis(crossSlowest.get()) + " ms";
            System.out.println("DataSourceFailureTest under load: " + figures);
            assertEquals(0, liveFailed.get(), figures);
            assertTrue(liveOkWhileDown > 0 && crossFailedWhileDown > 0, figures);
            assertTrue(TimeUnit.NANOSECONDS.toMillis(liveSlowest.get()) < 2_000, figures);
            assertTrue(TimeUnit.NANOSECONDS.toMillis(crossSlowest.get()) < FaultyServers.CONNECTION_TIMEOUT_MILLIS / 2, figures);
            assertTrue(crossOk.get() > crossOkBefore, "statements across both data sources succeed again: " + figures);
        } finally {
            running.set(false);
            threads.shutdownNow();
        }
    }
}
