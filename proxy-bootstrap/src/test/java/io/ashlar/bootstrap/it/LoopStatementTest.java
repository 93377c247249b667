package io.ashlar.bootstrap.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Reads of a sharded database routed to one shard, run by the client's event loop itself (LoopStatement, LoopRun):
 * pgjdbc's server-prepared statements arrive as Bind, Execute, Sync, which the loop answers without the session's
 * thread. Each test checks that its statements took that path (the {@code ashlar_statements_on_event_loop_total}
 * counter moved by them) and that the client gets what the session's own path gives: the rows of the right shard
 * under the logical table, errors in logical names followed by a working session, a cancel, a large result whole.
 */
final class LoopStatementTest {

    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final String SERIES = "ashlar_statements_on_event_loop_total{database=\"" + OpsProxy.SHARDED + "\"}";
    private static OpsProxy ops;
    private static int metricsPort;

    @BeforeAll
    static void start() throws Exception {
        try (ServerSocket free = new ServerSocket(0)) {
            metricsPort = free.getLocalPort();
        }
        ops = OpsProxy.start("  metrics-port: " + metricsPort + "\n");
        try (Connection c = connect(); PreparedStatement insert = c.prepareStatement("INSERT INTO t_order (order_id, user_id, status) VALUES (?, ?, ?)")) {
            for (int id = 1; id <= 40; id++) {
                insert.setLong(1, id);
                insert.setInt(2, id % 7);
                insert.setString(3, "status " + id);
                insert.addBatch();
            }
            insert.executeBatch();
        }
    }

    @AfterAll
    static void stop() throws Exception {
        if (ops != null) {
            ops.close();
        }
    }

    /** pgjdbc with server-prepared statements from the first execution (then Bind, Execute, Sync each time). */
    private static Connection connect() throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + ops.proxy.port() + "/" + OpsProxy.SHARDED
                + "?prepareThreshold=1", "app", "app");
    }

    private static double onLoop() throws Exception {
        return metric(SERIES);
    }

    private static double metric(String series) throws Exception {
        HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + metricsPort
                + "/metrics")).build(), HttpResponse.BodyHandlers.ofString());
        for (String line : response.body().split("\n")) {
            if (line.startsWith(series + " ")) {
                return Double.parseDouble(line.substring(series.length() + 1));
            }
        }
        throw new AssertionError(series + " is not among the metrics:\n" + response.body());
    }

    @Test
    void readsOfOneShardAreAnsweredByTheLoopWithThatShardsRows() throws Exception {
        double before = onLoop();
        int executions = 0;
        try (Connection c = connect();
             PreparedStatement read = c.prepareStatement("SELECT order_id, status, user_id FROM t_order WHERE user_id = ? AND order_id = ?")) {
            for (int round = 0; round < 3; round++) {
                for (int id = 1; id <= 40; id++) {
                    read.setInt(1, id % 7);
                    read.setLong(2, id);
                    try (ResultSet rs = read.executeQuery()) {
                        assertTrue(rs.next(), "row " + id);
                        assertEquals(id, rs.getLong(1));
                        assertEquals("status " + id, rs.getString(2));
                        assertEquals(id % 7, rs.getInt(3));
                        assertFalse(rs.next());
                    }
                    executions++;
                }
            }
            // The same key on the wrong data source: no row (the loop routed the value, it did not guess).
            read.setInt(1, 1);
            read.setLong(2, 2);
            try (ResultSet rs = read.executeQuery()) {
                assertFalse(rs.next());
            }
            assertEquals("I", transactionStatus(c));
        }
        // Each on the shard its keys name: order 12 (user 5) in ds_1.t_order_0, as the rules place it.
        try (Connection shard = ops.backend("demo_ds_1"); Statement s = shard.createStatement();
             ResultSet rs = s.executeQuery("SELECT status FROM t_order_0 WHERE order_id = 12")) {
            assertTrue(rs.next());
            assertEquals("status 12", rs.getString(1));
        }
        double ran = onLoop() - before;
        // The first execution parses (the session's thread runs it); the others are the loop's.
        assertTrue(ran >= executions - 1, "statements run on the loop: " + ran + " of " + executions);
    }

    /**
     * Simple queries that inline their keys, as pgbench's and many applications' do: after a few texts of one shape
     * the proxy stops parsing them (PlanCache, LiteralShape) and each is analysed from the first one's analysis with
     * its own constants. Every read must still come from the shard its own keys name, and every UPDATE change that
     * row only: a rebinding that kept the first text's keys would send them all to one shard.
     */
    @Test
    void simpleQueriesOfOneShapeAreRoutedByTheirOwnKeysWithoutBeingParsed() throws Exception {
        String analyses = "ashlar_statement_analyses_total{database=\"" + OpsProxy.SHARDED + "\"}";
        String rebinds = "ashlar_statement_rebinds_total{database=\"" + OpsProxy.SHARDED + "\"}";
        double analysedBefore = metric(analyses);
        double reboundBefore = metric(rebinds);
        int texts = 0;
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + ops.proxy.port() + "/"
                + OpsProxy.SHARDED + "?preferQueryMode=simple", "app", "app"); Statement s = c.createStatement()) {
            for (int id = 10; id <= 40; id++) {
                if (id % 7 == 0) {
                    continue; // (user 0: a lone 0 is another shape)
                }
                try (ResultSet rs = s.executeQuery("SELECT order_id, status, user_id FROM t_order WHERE user_id = " + id % 7
                        + " AND order_id = " + id)) {
                    assertTrue(rs.next(), "row " + id);
                    assertEquals(id, rs.getLong(1));
                    assertEquals(id % 7, rs.getInt(3));
                    assertFalse(rs.next());
                }
                assertEquals(1, s.executeUpdate("UPDATE t_order SET status = 'seen' WHERE user_id = " + id % 7
                        + " AND order_id = " + id));
                texts += 2;
            }
            // Keys that name no row together: order 12 is user 5's, on another data source than user 2's.
            try (ResultSet rs = s.executeQuery("SELECT order_id, status, user_id FROM t_order WHERE user_id = 2 AND order_id = 12")) {
                assertFalse(rs.next());
            }
            try (ResultSet rs = s.executeQuery("SELECT count(*) FROM t_order WHERE status = 'seen'")) {
                assertTrue(rs.next());
                assertEquals(texts / 2, rs.getInt(1), "each UPDATE changed its own row");
            }
            s.executeUpdate("UPDATE t_order SET status = 'status ' || order_id WHERE order_id BETWEEN 10 AND 40");
        }
        try (Connection shard = ops.backend("demo_ds_1"); Statement s = shard.createStatement();
             ResultSet rs = s.executeQuery("SELECT status FROM t_order_0 WHERE order_id = 12")) {
            assertTrue(rs.next());
            assertEquals("status 12", rs.getString(1));
        }
        double rebound = metric(rebinds) - reboundBefore;
        double analysed = metric(analyses) - analysedBefore;
        // Per shape, the first text and the two that verify it are parsed; the rest are rebound.
        assertTrue(rebound >= texts - 20, "rebound " + rebound + " of " + texts + " texts, analysed " + analysed);
        assertTrue(analysed <= 20, "analysed " + analysed + " of " + texts + " texts");
    }

    /**
     * The loop writes a RowDescription it wrote last as its kept bytes (OutputBuffer.rowDescriptionOf): simple queries
     * (each one described) of two statements with as many columns but other names and types, one after the other on
     * one session, each read under its own columns.
     */
    @Test
    void eachSimpleQueryIsDescribedWithItsOwnColumnsWhenTheLoopWritesADescriptionAgain() throws Exception {
        double before = onLoop();
        int executions = 0;
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + ops.proxy.port() + "/"
                + OpsProxy.SHARDED + "?preferQueryMode=simple", "app", "app"); Statement s = c.createStatement()) {
            for (int round = 0; round < 3; round++) {
                for (int id = 1; id <= 40; id += 3) {
                    String where = " FROM t_order WHERE user_id = " + (id % 7) + " AND order_id = " + id;
                    for (int again = 0; again < 2; again++) {
                        try (ResultSet rs = s.executeQuery("SELECT order_id, user_id" + where)) {
                            assertEquals("order_id", rs.getMetaData().getColumnName(1));
                            assertEquals("int8", rs.getMetaData().getColumnTypeName(1));
                            assertTrue(rs.next(), "row " + id);
                            assertEquals(id, rs.getLong(1));
                            assertEquals(id % 7, rs.getInt(2));
                        }
                        executions++;
                    }
                    try (ResultSet rs = s.executeQuery("SELECT status, order_id" + where)) {
                        assertEquals("status", rs.getMetaData().getColumnName(1));
                        assertEquals("text", rs.getMetaData().getColumnTypeName(1));
                        assertTrue(rs.next(), "row " + id);
                        assertEquals("status " + id, rs.getString(1));
                        assertEquals(id, rs.getLong(2));
                    }
                    executions++;
                }
            }
        }
        double ran = onLoop() - before;
        assertTrue(ran >= executions, "statements run on the loop: " + ran + " of " + executions);
    }

    @Test
    void aShardsErrorComesInLogicalNamesAndTheSessionGoesOn() throws Exception {
        try (Connection holder = ops.backend("demo_ds_1"); Statement lock = holder.createStatement()) {
            holder.setAutoCommit(false);
            lock.executeQuery("SELECT * FROM t_order_1 WHERE order_id = 5 FOR UPDATE").close();
            double before = onLoop();
            try (Connection c = connect();
                 PreparedStatement read = c.prepareStatement("SELECT status FROM t_order WHERE user_id = ? AND order_id = ? FOR UPDATE NOWAIT")) {
                read.setInt(1, 5);
                read.setLong(2, 3);
                read.executeQuery().close(); // prepared, and a row nobody locks
                read.setInt(1, 5);
                read.setLong(2, 5);
                SQLException locked = assertThrows(SQLException.class, read::executeQuery);
                assertEquals("55P03", locked.getSQLState());
                assertTrue(locked.getMessage().contains("\"t_order\""), locked.getMessage());
                assertFalse(locked.getMessage().contains("t_order_1"), locked.getMessage());
                assertEquals("I", transactionStatus(c));
                read.setInt(1, 5);
                read.setLong(2, 33);
                try (ResultSet rs = read.executeQuery()) {
                    assertTrue(rs.next());
                    assertEquals("status 33", rs.getString(1));
                }
            }
            assertTrue(onLoop() - before >= 2, "the failing read and the one after it ran on the loop");
            holder.rollback();
        }
    }

    @Test
    void aCancelStopsAStatementTheLoopRuns() throws Exception {
        try (Connection c = connect();
             PreparedStatement sleep = c.prepareStatement("SELECT pg_sleep(?) FROM t_order WHERE user_id = ? AND order_id = ?")) {
            sleep.setDouble(1, 0);
            sleep.setInt(2, 1);
            sleep.setLong(3, 1);
            sleep.executeQuery().close();
            double before = onLoop();
            sleep.setDouble(1, 30);
            CompletableFuture<Void> cancel = CompletableFuture.runAsync(() -> {
                try {
                    Thread.sleep(500);
                    sleep.cancel();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            long started = System.nanoTime();
            SQLException cancelled = assertThrows(SQLException.class, sleep::executeQuery);
            assertEquals("57014", cancelled.getSQLState());
            assertTrue(System.nanoTime() - started < TimeUnit.SECONDS.toNanos(20), "cancelled, not slept out");
            cancel.get(10, TimeUnit.SECONDS);
            assertEquals(1, onLoop() - before);
            sleep.setDouble(1, 0);
            try (ResultSet rs = sleep.executeQuery()) {
                assertTrue(rs.next());
            }
        }
    }

    @Test
    void aLargeResultOfOneShardArrivesWhole() throws Exception {
        double before = onLoop();
        try (Connection c = connect();
             PreparedStatement read = c.prepareStatement("SELECT g, repeat('x', 40) FROM t_order, generate_series(1, ?) g"
                     + " WHERE user_id = ? AND order_id = ?")) {
            for (int round = 0; round < 2; round++) {
                read.setInt(1, 150_000);
                read.setInt(2, 2);
                read.setLong(3, 9);
                long count = 0;
                long sum = 0;
                try (ResultSet rs = read.executeQuery()) {
                    while (rs.next()) {
                        count++;
                        sum += rs.getInt(1);
                    }
                }
                assertEquals(150_000, count);
                assertEquals(150_000L * 150_001L / 2, sum);
            }
        }
        assertTrue(onLoop() - before >= 1);
    }

    @Test
    void writesInATransactionBlockRunOnTheLoopAndCommitOrRollBackWithIt() throws Exception {
        double before = onLoop();
        try (Connection c = connect();
             PreparedStatement insert = c.prepareStatement("INSERT INTO t_order (order_id, user_id, status) VALUES (?, ?, ?)");
             PreparedStatement update = c.prepareStatement("UPDATE t_order SET status = status || ? WHERE user_id = ? AND order_id = ?");
             PreparedStatement read = c.prepareStatement("SELECT status FROM t_order WHERE user_id = ? AND order_id = ?")) {
            c.setAutoCommit(false);
            // Orders 1001.. on both data sources (user 0 on ds_0, user 1 on ds_1): pgjdbc's BEGIN (a query ahead of the
            // block's first statement) and every statement prepared before run on the loop, the first statement on each
            // data source with the BEGIN sent ahead of it there; a COMMIT of two data sources is the session thread's.
            for (int round = 0; round < 2; round++) {
                for (int i = 0; i < 6; i++) {
                    long id = 1001 + 10 * round + i;
                    insert.setLong(1, id);
                    insert.setInt(2, i % 2);
                    insert.setString(3, "new");
                    assertEquals(1, insert.executeUpdate());
                    update.setString(1, " paid");
                    update.setInt(2, i % 2);
                    update.setLong(3, id);
                    assertEquals(1, update.executeUpdate());
                    read.setInt(1, i % 2);
                    read.setLong(2, id);
                    try (ResultSet rs = read.executeQuery()) {
                        assertTrue(rs.next());
                        assertEquals("new paid", rs.getString(1));
                    }
                }
                if (round == 0) {
                    c.commit();
                } else {
                    c.rollback();
                }
            }
            c.setAutoCommit(true);
            assertEquals("I", transactionStatus(c));
        }
        assertTrue(onLoop() - before >= 30, "statements of the blocks run on the loop: " + (onLoop() - before));
        // The committed block's rows are on both data sources, the rolled-back one's on neither.
        for (String dataSource : new String[] {"demo_ds_0", "demo_ds_1"}) {
            try (Connection shard = ops.backend(dataSource); Statement s = shard.createStatement();
                 ResultSet rs = s.executeQuery("SELECT count(*), min(status), max(status) FROM (SELECT * FROM t_order_0 UNION ALL"
                         + " SELECT * FROM t_order_1) o WHERE order_id BETWEEN 1001 AND 1999")) {
                assertTrue(rs.next());
                assertEquals(3, rs.getInt(1), dataSource);
                assertEquals("new paid", rs.getString(2));
                assertEquals("new paid", rs.getString(3));
            }
        }
    }

    @Test
    void anErrorInABlockOnTheLoopFailsTheBlockAsPostgresql() throws Exception {
        try (Connection c = connect();
             PreparedStatement update = c.prepareStatement("UPDATE t_order SET status = status || (1 / ?) WHERE user_id = ? AND order_id = ?")) {
            c.setAutoCommit(false);
            update.setInt(1, 1);
            update.setInt(2, 3);
            update.setLong(3, 3);
            assertEquals(1, update.executeUpdate()); // begins the block on ds_1
            double before = onLoop();
            update.setInt(1, 0);
            SQLException divided = assertThrows(SQLException.class, update::executeUpdate);
            assertEquals("22012", divided.getSQLState());
            assertEquals(1, onLoop() - before);
            update.setInt(1, 1);
            SQLException aborted = assertThrows(SQLException.class, update::executeUpdate);
            assertEquals("25P02", aborted.getSQLState());
            c.rollback();
            assertEquals(1, update.executeUpdate());
            c.commit();
        }
    }

    @Test
    void simpleQueriesOfOneShardRunOnTheLoopWithErrorsWhereTheClientsTextHasThem() throws Exception {
        double before = onLoop();
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + ops.proxy.port() + "/"
                + OpsProxy.SHARDED + "?preferQueryMode=simple", "app", "app"); Statement s = c.createStatement()) {
            for (int id = 1; id <= 40; id++) {
                try (ResultSet rs = s.executeQuery("SELECT status FROM t_order WHERE user_id = " + id % 7 + " AND order_id = " + id)) {
                    assertTrue(rs.next(), "row " + id);
                    assertEquals("status " + id, rs.getString(1));
                    assertFalse(rs.next());
                }
            }
            assertEquals(40, onLoop() - before);
            // A comment before the statement: the shard's error position is the one in the client's text.
            String sql = "  /* where */ SELECT status, 'x'::int FROM t_order WHERE user_id = 5 AND order_id = 12";
            SQLException invalid = assertThrows(SQLException.class, () -> s.executeQuery(sql));
            assertEquals("22P02", invalid.getSQLState());
            org.postgresql.util.ServerErrorMessage message = ((org.postgresql.util.PSQLException) invalid).getServerErrorMessage();
            assertEquals(sql.indexOf("'x'") + 1, message.getPosition(), invalid.getMessage());
            assertEquals(41, onLoop() - before);
            try (ResultSet rs = s.executeQuery("SELECT count(*) FROM t_order WHERE user_id = 5 AND order_id = 12")) {
                assertTrue(rs.next());
                assertEquals(1, rs.getInt(1));
            }
        }
    }

    @Test
    void aTableTheProxyMustLookUpFirstIsLookedUpByTheSessionsThreadNotTheLoop() throws Exception {
        // Made on a data source behind the proxy's back: the first statement that names it has the proxy look for it in
        // the data sources, which waits for a backend; the loop leaves that to the session's thread. (Waiting on the
        // loop for a connection that sessions of the same loop held hung them all: test_session_isolation.py's
        // connection-state case, with a pool of 2, found it; here the pool is large, so this checks the answer only.)
        try (Connection shard = ops.backend("demo_ds_0"); Statement s = shard.createStatement()) {
            s.execute("CREATE TABLE t_late (id int PRIMARY KEY, note text)");
            s.execute("INSERT INTO t_late VALUES (1, 'found')");
        }
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + ops.proxy.port() + "/"
                + OpsProxy.SHARDED + "?preferQueryMode=simple&socketTimeout=20", "app", "app"); Statement s = c.createStatement()) {
            for (int i = 0; i < 3; i++) {
                try (ResultSet rs = s.executeQuery("SELECT note FROM t_late WHERE id = 1")) {
                    assertTrue(rs.next());
                    assertEquals("found", rs.getString(1));
                }
            }
        }
    }

    /** pgjdbc with every statement a simple query, as psql and pgbench -M simple send them. */
    private static Connection connectSimple() throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + ops.proxy.port() + "/" + OpsProxy.SHARDED
                + "?preferQueryMode=simple", "app", "app");
    }

    @Test
    void aBlockOnOneShardRunsOnTheLoopFromBeginToCommit() throws Exception {
        try (Connection c = connectSimple(); Statement s = c.createStatement()) {
            // Once first (DDL of other tests may make the session's first look at a table its thread's), then counted.
            s.execute("BEGIN");
            s.executeUpdate("INSERT INTO t_order (order_id, user_id, status) VALUES (2003, 1, 'warm')");
            s.executeUpdate("UPDATE t_order SET status = status || ' paid' WHERE user_id = 1 AND order_id = 2003");
            s.executeQuery("SELECT status FROM t_order WHERE user_id = 1 AND order_id = 2003").close();
            s.execute("COMMIT");
            double before = onLoop();
            // BEGIN kept by the session, the first statement on ds_1 sent with its BEGIN, the next in the block, COMMIT.
            s.execute("BEGIN");
            assertEquals("OPEN", transactionStatus(c));
            assertEquals(1, s.executeUpdate("INSERT INTO t_order (order_id, user_id, status) VALUES (2001, 1, 'block')"));
            assertEquals(1, s.executeUpdate("UPDATE t_order SET status = status || ' paid' WHERE user_id = 1 AND order_id = 2001"));
            try (ResultSet rs = s.executeQuery("SELECT status FROM t_order WHERE user_id = 1 AND order_id = 2001")) {
                assertTrue(rs.next());
                assertEquals("block paid", rs.getString(1));
            }
            // Not committed yet: the shard's other sessions do not see it.
            assertEquals(0, shardCount("demo_ds_1", 2001));
            s.execute("COMMIT");
            assertEquals("I", transactionStatus(c));
            assertEquals(5, onLoop() - before, "BEGIN, three statements and COMMIT ran on the loop");
            assertEquals(1, shardCount("demo_ds_1", 2001));

            // Rolled back on the loop: gone.
            before = onLoop();
            s.execute("START TRANSACTION");
            assertEquals(1, s.executeUpdate("INSERT INTO t_order (order_id, user_id, status) VALUES (2002, 1, 'gone')"));
            s.execute("ROLLBACK");
            assertEquals("I", transactionStatus(c));
            assertEquals(3, onLoop() - before);
            assertEquals(0, shardCount("demo_ds_1", 2002));

            // A block no data source joined: BEGIN and COMMIT answered by the session, nothing sent.
            before = onLoop();
            s.execute("BEGIN");
            s.execute("END");
            assertEquals("I", transactionStatus(c));
            assertEquals(2, onLoop() - before);
        }
    }

    @Test
    void aBlockOverTwoDataSourcesCommitsOnTheSessionsThreadOnBoth() throws Exception {
        try (Connection c = connectSimple(); Statement s = c.createStatement()) {
            s.execute("BEGIN");
            assertEquals(1, s.executeUpdate("INSERT INTO t_order (order_id, user_id, status) VALUES (2011, 0, 'both')"));
            assertEquals(1, s.executeUpdate("INSERT INTO t_order (order_id, user_id, status) VALUES (2012, 1, 'both')"));
            double before = onLoop();
            s.execute("COMMIT");
            assertEquals(0, onLoop() - before, "a COMMIT of two data sources is the session thread's");
            assertEquals("I", transactionStatus(c));
        }
        assertEquals(1, shardCount("demo_ds_0", 2011));
        assertEquals(1, shardCount("demo_ds_1", 2012));
    }

    @Test
    void aFailedFirstStatementOfABlockFailsTheBlockAndRollbackEndsIt() throws Exception {
        try (Connection c = connectSimple(); Statement s = c.createStatement()) {
            double before = onLoop();
            s.execute("BEGIN");
            SQLException divided = assertThrows(SQLException.class,
                    () -> s.executeUpdate("UPDATE t_order SET status = status || (1 / 0) WHERE user_id = 1 AND order_id = 2021"));
            assertEquals("22012", divided.getSQLState());
            assertEquals("FAILED", transactionStatus(c));
            SQLException aborted = assertThrows(SQLException.class,
                    () -> s.executeQuery("SELECT status FROM t_order WHERE user_id = 1 AND order_id = 1"));
            assertEquals("25P02", aborted.getSQLState());
            s.execute("ROLLBACK");
            assertEquals("I", transactionStatus(c));
            assertTrue(onLoop() - before >= 2, "BEGIN and the failing UPDATE ran on the loop");
            try (ResultSet rs = s.executeQuery("SELECT status FROM t_order WHERE user_id = 1 AND order_id = 1")) {
                assertTrue(rs.next());
            }
        }
    }

    @Test
    void aCommitThatFailsOnTheShardRollsBackAndEndsTheBlock() throws Exception {
        try (Connection shard = ops.backend("demo_ds_0"); Statement s = shard.createStatement()) {
            s.execute("CREATE TABLE t_deferred (id int UNIQUE DEFERRABLE INITIALLY DEFERRED, note text)");
        }
        try (Connection c = connectSimple(); Statement s = c.createStatement()) {
            s.execute("INSERT INTO t_deferred VALUES (0, 'known')"); // the proxy looks the table up once
            double before = onLoop();
            s.execute("BEGIN");
            s.executeUpdate("INSERT INTO t_deferred VALUES (1, 'one')");
            s.executeUpdate("INSERT INTO t_deferred VALUES (1, 'two')");
            SQLException unique = assertThrows(SQLException.class, () -> s.execute("COMMIT"));
            assertEquals("23505", unique.getSQLState());
            assertEquals("I", transactionStatus(c));
            assertEquals(4, onLoop() - before);
            try (ResultSet rs = s.executeQuery("SELECT count(*) FROM t_deferred")) {
                assertTrue(rs.next());
                assertEquals(1, rs.getInt(1), "the block rolled back");
            }
        }
    }

    /**
     * A COMMIT over both data sources (the session's thread ends it) that a deferred constraint of a sharded table's
     * actual table fails: the error names the logical table, as the loop's one-shard COMMIT's does. It named t_order_1.
     */
    @Test
    void aCommitOverTwoDataSourcesThatFailsNamesTheLogicalTable() throws Exception {
        try (Connection shard = ops.backend("demo_ds_1"); Statement s = shard.createStatement()) {
            s.execute("ALTER TABLE t_order_1 ADD CONSTRAINT t_order_1_deferred_status EXCLUDE (status WITH =)"
                    + " WHERE (status LIKE 'deferred %') DEFERRABLE INITIALLY DEFERRED");
        }
        try (Connection c = connectSimple(); Statement s = c.createStatement()) {
            s.execute("BEGIN");
            s.executeUpdate("INSERT INTO t_order (order_id, user_id, status) VALUES (7001, 10, 'deferred ds_0')");
            s.executeUpdate("INSERT INTO t_order (order_id, user_id, status) VALUES (7003, 11, 'deferred twice')");
            s.executeUpdate("INSERT INTO t_order (order_id, user_id, status) VALUES (7005, 11, 'deferred twice')");
            org.postgresql.util.PSQLException failed = assertThrows(org.postgresql.util.PSQLException.class, () -> s.execute("COMMIT"));
            assertEquals("23P01", failed.getSQLState());
            assertEquals("t_order", failed.getServerErrorMessage().getTable());
            assertEquals("I", transactionStatus(c));
            try (ResultSet rs = s.executeQuery("SELECT count(*) FROM t_order WHERE order_id IN (7001, 7003, 7005)")) {
                assertTrue(rs.next());
                assertEquals(0, rs.getInt(1), "the block rolled back on both data sources");
            }
        } finally {
            try (Connection shard = ops.backend("demo_ds_1"); Statement s = shard.createStatement()) {
                s.execute("ALTER TABLE t_order_1 DROP CONSTRAINT t_order_1_deferred_status");
            }
        }
    }

    /**
     * COMMIT AND CHAIN and ROLLBACK AND CHAIN begin the next block at once, with the ended one's isolation level, as
     * PostgreSQL's do. The proxy ended the block only: the next INSERT committed on its own, and the ROLLBACK meant for
     * it undid nothing (found with psql).
     */
    @Test
    void commitAndChainBeginsTheNextBlockWithTheSameModes() throws Exception {
        try (Connection c = connectSimple(); Statement s = c.createStatement()) {
            s.execute("DELETE FROM t_order WHERE order_id BETWEEN 8051 AND 8055");
            s.execute("BEGIN ISOLATION LEVEL SERIALIZABLE");
            s.executeUpdate("INSERT INTO t_order (order_id, user_id, status) VALUES (8051, 1, 'first block')");
            s.execute("COMMIT AND CHAIN");
            assertEquals("OPEN", transactionStatus(c), "in the chained block");
            try (ResultSet rs = s.executeQuery("SHOW transaction_isolation")) {
                assertTrue(rs.next());
                assertEquals("serializable", rs.getString(1));
            }
            s.executeUpdate("INSERT INTO t_order (order_id, user_id, status) VALUES (8053, 1, 'rolled back')");
            s.execute("ROLLBACK AND CHAIN");
            assertEquals("OPEN", transactionStatus(c));
            s.executeUpdate("INSERT INTO t_order (order_id, user_id, status) VALUES (8055, 2, 'third block')");
            s.execute("COMMIT");
            assertEquals("I", transactionStatus(c));
            List<Integer> ids = new ArrayList<>();
            try (ResultSet rs = s.executeQuery("SELECT order_id FROM t_order WHERE order_id BETWEEN 8051 AND 8055 ORDER BY order_id")) {
                while (rs.next()) {
                    ids.add(rs.getInt(1));
                }
            }
            assertEquals(List.of(8051, 8055), ids);
            SQLException outside = assertThrows(SQLException.class, () -> s.execute("COMMIT AND CHAIN"));
            assertEquals("25P01", outside.getSQLState());
            s.execute("DELETE FROM t_order WHERE order_id BETWEEN 8051 AND 8055");
        }
    }

    @Test
    void preparedBeginAndCommitRunOnTheLoop() throws Exception {
        // pgbench -M prepared's way: BEGIN, the statements and END each a prepared statement, run by Bind, Describe, Execute, Sync.
        try (Connection c = connect(); PreparedStatement begin = c.prepareStatement("BEGIN");
             PreparedStatement update = c.prepareStatement("UPDATE t_order SET status = ? WHERE user_id = ? AND order_id = ?");
             PreparedStatement end = c.prepareStatement("END")) {
            double before = onLoop();
            for (int round = 0; round < 4; round++) {
                begin.execute();
                update.setString(1, "round " + round);
                update.setInt(2, 3);
                update.setLong(3, 3);
                assertEquals(1, update.executeUpdate());
                end.execute();
                assertEquals("I", transactionStatus(c));
            }
            // The first execution of each is parsed on the session's thread.
            assertTrue(onLoop() - before >= 9, "on the loop: " + (onLoop() - before));
        }
        assertOrder3OnItsShard("round 3");
    }

    @Test
    void pgjdbcBlocksOfOneShardRunOnTheLoopWithTheirBeginAndCommit() throws Exception {
        // autocommit off: BEGIN goes as a query ahead of the block's first statement, COMMIT and ROLLBACK as statements
        // prepared once (prepareThreshold=1): all of it on the loop once each statement is prepared.
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.executeUpdate("INSERT INTO t_order (order_id, user_id, status) VALUES (2031, 5, 'new')");
        }
        double before = onLoop();
        try (Connection c = connect();
             PreparedStatement update = c.prepareStatement("UPDATE t_order SET status = ? WHERE user_id = ? AND order_id = ?");
             PreparedStatement read = c.prepareStatement("SELECT status FROM t_order WHERE user_id = ? AND order_id = ?")) {
            c.setAutoCommit(false);
            for (int round = 0; round < 6; round++) {
                update.setString(1, "pgjdbc " + round);
                update.setInt(2, 5);
                update.setLong(3, 2031);
                assertEquals(1, update.executeUpdate());
                read.setInt(1, 5);
                read.setLong(2, 2031);
                try (ResultSet rs = read.executeQuery()) {
                    assertTrue(rs.next());
                    assertEquals("pgjdbc " + round, rs.getString(1));
                }
                if (round == 5) {
                    c.rollback();
                } else {
                    c.commit();
                }
                assertEquals("I", transactionStatus(c));
            }
        }
        // From the second round on: BEGIN, UPDATE, SELECT and COMMIT (the last round's ROLLBACK is parsed first).
        double ran = onLoop() - before;
        assertTrue(ran >= 4 * 4 + 3, "on the loop: " + ran);
        try (Connection shard = ops.backend("demo_ds_1"); Statement s = shard.createStatement();
             ResultSet rs = s.executeQuery("SELECT status FROM t_order_1 WHERE order_id = 2031")) {
            assertTrue(rs.next());
            assertEquals("pgjdbc 4", rs.getString(1), "rounds 0-4 committed, round 5 rolled back");
        }
    }

    @Test
    void aPreparedCommitSentToTheShardAnswersTheDescribeOfItsPortal() throws Exception {
        // libpq's way (pgbench -M prepared): Bind, Describe of the portal, Execute, Sync for BEGIN, the UPDATE and END.
        try (RawConnection raw = new RawConnection(ops.proxy.port())) {
            raw.logIn("app", OpsProxy.SHARDED, "app");
            raw.send(RawConnection.concat(RawConnection.parse("b", "BEGIN"),
                    RawConnection.parse("u", "UPDATE t_order SET status = $1 WHERE user_id = 3 AND order_id = 3", 25),
                    RawConnection.parse("e", "END"), RawConnection.sync()));
            assertEquals("111Z", RawConnection.types(raw.readUntilReady()));
            double before = onLoop();
            for (int round = 0; round < 2; round++) {
                String[][] steps = {{"b"}, {"u", "raw " + round}, {"e"}};
                char[] status = {'T', 'T', 'I'};
                for (int i = 0; i < steps.length; i++) {
                    String[] values = java.util.Arrays.copyOfRange(steps[i], 1, steps[i].length);
                    raw.send(RawConnection.concat(RawConnection.bind("", steps[i][0], values), RawConnection.describe('P', ""),
                            RawConnection.execute("", 0), RawConnection.sync()));
                    List<RawConnection.Message> answer = raw.readUntilReady();
                    assertEquals("2nCZ", RawConnection.types(answer), steps[i][0] + ": " + answer);
                    assertEquals(status[i], (char) answer.get(3).body()[0]);
                }
            }
            assertEquals(6, onLoop() - before, "BEGIN, UPDATE and END on the loop, twice");
        }
        assertOrder3OnItsShard("raw 1");
    }

    @Test
    void manyQueriesAnsweredAtOnceInOneReadAreAnsweredInOrder() throws Exception {
        // Each answered by the session itself while the loop handles the read that brought them: none may nest the next.
        int pairs = 3000;
        byte[][] queries = new byte[2 * pairs][];
        for (int i = 0; i < pairs; i++) {
            queries[2 * i] = RawConnection.query("BEGIN");
            queries[2 * i + 1] = RawConnection.query("END");
        }
        try (RawConnection raw = new RawConnection(ops.proxy.port())) {
            raw.logIn("app", OpsProxy.SHARDED, "app");
            raw.send(RawConnection.query("SET application_name = 'many'")); // (a session's first request starts its thread)
            raw.readUntilReady();
            double before = onLoop();
            raw.send(RawConnection.concat(queries));
            for (int i = 0; i < 2 * pairs; i++) {
                List<RawConnection.Message> answer = raw.readUntilReady();
                assertEquals("CZ", RawConnection.types(answer), "answer " + i);
                assertEquals(i % 2 == 0 ? 'T' : 'I', (char) answer.get(1).body()[0], "answer " + i);
            }
            assertEquals(2 * pairs, onLoop() - before);
            raw.send(RawConnection.query("SELECT status FROM t_order WHERE user_id = 1 AND order_id = 1"));
            assertEquals("TDCZ", RawConnection.types(raw.readUntilReady()));
        }
    }

    @Test
    void theCommitOfABlockWithDdlIsTheSessionThreadsWhichReadsTheSchemaAgain() throws Exception {
        try (Connection c = connectSimple(); Statement s = c.createStatement()) {
            s.execute("BEGIN");
            s.execute("CREATE TABLE t_block_ddl (id int PRIMARY KEY, note text)");
            double before = onLoop();
            s.execute("COMMIT");
            assertEquals(0, onLoop() - before, "the end of a block with DDL reads the schema: not on the loop, which must not wait");
            assertEquals(1, s.executeUpdate("INSERT INTO t_block_ddl VALUES (1, 'after')"));
            try (ResultSet rs = s.executeQuery("SELECT note FROM t_block_ddl WHERE id = 1")) {
                assertTrue(rs.next());
                assertEquals("after", rs.getString(1));
            }
        }
    }

    private static int shardCount(String dataSource, long orderId) throws SQLException {
        try (Connection shard = ops.backend(dataSource); Statement s = shard.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM (SELECT order_id FROM t_order_0 UNION ALL SELECT order_id FROM t_order_1) o"
                     + " WHERE order_id = " + orderId)) {
            assertTrue(rs.next());
            return rs.getInt(1);
        }
    }

    private static String transactionStatus(Connection c) throws SQLException {
        org.postgresql.core.TransactionState state = c.unwrap(org.postgresql.PGConnection.class) instanceof org.postgresql.core.BaseConnection base
                ? base.getTransactionState() : null;
        return state == org.postgresql.core.TransactionState.IDLE ? "I" : String.valueOf(state);
    }

    /** Order 3 (user 3: ds_1, t_order_1) as its shard holds it: what the statements run on the loop wrote there. */
    private void assertOrder3OnItsShard(String status) throws Exception {
        try (Connection shard = ops.backend("demo_ds_1"); Statement s = shard.createStatement();
             ResultSet rs = s.executeQuery("SELECT status FROM t_order_1 WHERE order_id = 3")) {
            assertTrue(rs.next());
            assertEquals(status, rs.getString(1));
        }
    }
}
