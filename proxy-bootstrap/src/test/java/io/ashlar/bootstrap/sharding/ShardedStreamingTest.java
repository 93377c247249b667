package io.ashlar.bootstrap.sharding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ashlar.bootstrap.config.ModeConfig;
import io.ashlar.bootstrap.config.ServerConfig;
import io.ashlar.bootstrap.config.ServerProps;
import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Sharded results that stream: rows reach the client as the shards send them, a portal read in
 * pieces (pgjdbc's fetch size: Execute with a row limit, PortalSuspended) keeps working across
 * shards, also while the session runs other statements on the same connections, and a merge that
 * must hold every row fails with 53200 past the statement's memory budget while the session and
 * others go on. {@code t_order} has two tables per data source (read as portals in turns); the
 * differential tests cover one table per data source. Memory and time are proved by
 * benchmarks/stalled-reader.sh, not here.
 */
final class ShardedStreamingTest {

    /** Rows per table: enough for several portal fetches per shard table, and well past the budget below. */
    private static final int ROWS = 20_000;
    private static final long MEMORY_LIMIT = 1L << 20;

    private static ShardedDatabases databases;

    @BeforeAll
    static void start() throws Exception {
        ServerProps defaults = ServerProps.DEFAULTS;
        ServerProps props = new ServerProps(defaults.port(), defaults.bindAddress(), 0, false, false, -1, 1,
                defaults.frontendDatabaseProtocolType(), defaults.frontendFlushThreshold(), 0, defaults.nettyBacklog(), MEMORY_LIMIT,
                defaults.frontendTls(), defaults.authenticationTimeoutSeconds(), defaults.authDelayMilliseconds());
        databases = ShardedDatabases.start(new ServerConfig(ModeConfig.STANDALONE, List.of(ServerConfig.DEFAULT_USER), props));
        for (String dataSource : ShardingLayout.DATA_SOURCES) {
            int d = dataSource.endsWith("0") ? 0 : 1;
            try (Connection connection = databases.shard(dataSource); Statement statement = connection.createStatement()) {
                for (int t = 0; t < 2; t++) {
                    // order_id g on table g % 2 of data source user_id % 2; user_id = 2 * (g % 500) + d
                    statement.execute("INSERT INTO t_order_" + t + " (order_id, user_id, status, amount, note)"
                            + " SELECT g, 2 * (g % 500) + " + d + ", 'st' || (g % 7), g % 1000, repeat('n', g % 40)"
                            + " FROM generate_series(1, " + ROWS + ") g WHERE g % 2 = " + t + " AND g % 4 IN (" + d + ", " + (d + 2) + ")");
                }
            }
        }
    }

    @AfterAll
    static void stop() throws IOException {
        if (databases != null) {
            databases.close();
        }
    }

    /** How many t_order rows the shards hold (every g in 1..ROWS whose data source and table match). */
    private static int orderRows() throws SQLException {
        int total = 0;
        for (String dataSource : ShardingLayout.DATA_SOURCES) {
            try (Connection connection = databases.shard(dataSource); Statement statement = connection.createStatement();
                    ResultSet rs = statement.executeQuery("SELECT (SELECT count(*) FROM t_order_0) + (SELECT count(*) FROM t_order_1)")) {
                rs.next();
                total += rs.getInt(1);
            }
        }
        return total;
    }

    @Test
    void aBigOrderByAcrossShardsReadSlowlyInSmallFetchesReturnsEveryRowInOrder() throws Exception {
        int expected = orderRows();
        assertEquals(ROWS, expected, "every generated row is on some shard");
        try (Connection proxy = databases.proxy("")) {
            proxy.setAutoCommit(false); // pgjdbc reads with a fetch size inside a transaction only
            try (PreparedStatement statement = proxy.prepareStatement("SELECT order_id, user_id, note FROM t_order ORDER BY order_id DESC")) {
                statement.setFetchSize(37);
                try (ResultSet rs = statement.executeQuery()) {
                    long previous = Long.MAX_VALUE;
                    int count = 0;
                    while (rs.next()) {
                        long id = rs.getLong(1);
                        assertTrue(id < previous, "descending order_id: " + id + " after " + previous);
                        assertEquals((int) (2 * (id % 500) + (id % 4 == 0 || id % 4 == 2 ? 0 : 1)), rs.getInt(2));
                        assertEquals("n".repeat((int) (id % 40)), rs.getString(3));
                        previous = id;
                        count++;
                        if (count % 2_000 == 0) {
                            Thread.sleep(20); // a slow reader: the shards wait, suspended
                        }
                    }
                    assertEquals(expected, count);
                }
            }
            proxy.commit();
        }
    }

    @Test
    void portalsSuspendedAcrossShardsSurviveOtherStatementsOfTheSession() throws Exception {
        try (Connection proxy = databases.proxy("")) {
            proxy.setAutoCommit(false);
            try (PreparedStatement ordered = proxy.prepareStatement("SELECT order_id FROM t_order WHERE order_id <= 3000 ORDER BY order_id");
                    PreparedStatement users = proxy.prepareStatement("SELECT order_id FROM t_order WHERE order_id > 19990 ORDER BY order_id")) {
                ordered.setFetchSize(100);
                try (ResultSet rs = ordered.executeQuery()) {
                    long expected = 1;
                    for (int i = 0; i < 250; i++) {
                        assertTrue(rs.next());
                        assertEquals(expected++, rs.getLong(1));
                    }
                    // Another statement on the same data sources while the first portal is suspended.
                    List<Long> tail = new java.util.ArrayList<>();
                    try (ResultSet other = users.executeQuery()) {
                        while (other.next()) {
                            tail.add(other.getLong(1));
                        }
                    }
                    assertEquals(10, tail.size());
                    assertEquals(19_991L, tail.get(0));
                    while (rs.next()) {
                        assertEquals(expected++, rs.getLong(1));
                    }
                    assertEquals(3001, expected);
                }
            }
            proxy.commit();
        }
        // Extended protocol outside a transaction: a row limit that leaves the portal suspended.
        try (Connection proxy = databases.proxy("");
                PreparedStatement statement = proxy.prepareStatement("SELECT order_id FROM t_order ORDER BY order_id LIMIT 5")) {
            statement.setMaxRows(3);
            try (ResultSet rs = statement.executeQuery()) {
                for (long expected = 1; expected <= 3; expected++) {
                    assertTrue(rs.next());
                    assertEquals(expected, rs.getLong(1));
                }
                assertFalse(rs.next());
            }
        }
    }

    /**
     * A cursor keeps the rows it read for moves backwards only within the statement memory limit: declared with
     * neither SCROLL nor NO SCROLL it then scans forward only and reads every row (a backward FETCH gets PostgreSQL's
     * 55000 "cursor can only scan forward"); declared SCROLL its FETCH fails with 53200. It kept every row before,
     * 1.7 GB of the proxy's memory for a 5,000,000-row cursor.
     */
    @Test
    void aCursorKeepsRowsForMovesBackwardsOnlyWithinTheMemoryLimit() throws Exception {
        try (Connection c = databases.proxy("preferQueryMode=simple"); Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            s.execute("DECLARE small CURSOR FOR SELECT order_id FROM t_order WHERE order_id <= 10 ORDER BY order_id");
            assertEquals(10, count(s, "FETCH ALL FROM small"));
            assertEquals(3, count(s, "FETCH BACKWARD 3 FROM small")); // few rows: it goes back
            s.execute("DECLARE plain CURSOR FOR SELECT order_id, note FROM t_order ORDER BY order_id");
            assertEquals(ROWS, count(s, "FETCH ALL FROM plain"));
            SQLException back = assertThrows(SQLException.class, () -> count(s, "FETCH BACKWARD 1 FROM plain"));
            assertEquals("55000", back.getSQLState(), back.getMessage());
            assertTrue(back.getMessage().contains("cursor can only scan forward"), back.getMessage());
            c.rollback();
            s.execute("DECLARE scrolling SCROLL CURSOR FOR SELECT order_id, note FROM t_order ORDER BY order_id");
            SQLException full = assertThrows(SQLException.class, () -> count(s, "FETCH ALL FROM scrolling"));
            assertEquals("53200", full.getSQLState(), full.getMessage());
            assertTrue(full.getMessage().contains("proxy-statement-memory-limit"), full.getMessage());
            c.rollback();
            s.execute("DECLARE forward NO SCROLL CURSOR FOR SELECT order_id FROM t_order");
            assertEquals(ROWS, count(s, "FETCH ALL FROM forward"));
            c.rollback();
        }
    }

    private static int count(Statement s, String sql) throws SQLException {
        int result = 0;
        try (ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                result++;
            }
        }
        return result;
    }

    @Test
    void aMergePastTheMemoryBudgetFailsWith53200AndEveryoneGoesOn() throws Exception {
        try (Connection first = databases.proxy(""); Connection second = databases.proxy("");
                Statement statement = first.createStatement(); Statement other = second.createStatement()) {
            // Groups sorted by their count: the proxy holds every group to sort them.
            SQLException e = assertThrows(SQLException.class, () -> {
                try (ResultSet rs = statement.executeQuery("SELECT order_id, count(*) FROM t_order GROUP BY order_id ORDER BY count(*), order_id")) {
                    while (rs.next()) {
                        // the rows would come after the sort
                    }
                }
            });
            assertEquals("53200", e.getSQLState(), e.getMessage());
            assertTrue(e.getMessage().contains("proxy-statement-memory-limit"), e.getMessage());
            try (ResultSet rs = other.executeQuery("SELECT count(*) FROM t_order")) {
                assertTrue(rs.next());
                assertEquals(ROWS, rs.getInt(1));
            }
            try (ResultSet rs = statement.executeQuery("SELECT count(*) FROM t_order WHERE order_id <= 100")) {
                assertTrue(rs.next());
                assertEquals(100, rs.getInt(1));
            }
            // Inside a transaction: the statement fails it, as PostgreSQL's out-of-memory does; ROLLBACK goes on.
            first.setAutoCommit(false);
            SQLException inTransaction = assertThrows(SQLException.class, () -> {
                try (ResultSet rs = statement.executeQuery("SELECT DISTINCT note || order_id FROM t_order")) {
                    while (rs.next()) {
                        // distinct rows are kept as they pass
                    }
                }
            });
            assertEquals("53200", inTransaction.getSQLState(), inTransaction.getMessage());
            first.rollback();
            try (ResultSet rs = statement.executeQuery("SELECT count(*) FROM t_order WHERE order_id <= 10")) {
                assertTrue(rs.next());
                assertEquals(10, rs.getInt(1));
            }
            first.commit();
        }
        // The shards' connections were left clean: nothing still runs, nothing idles in a transaction.
        for (String dataSource : ShardingLayout.DATA_SOURCES) {
            try (Connection connection = databases.shard(dataSource); Statement statement = connection.createStatement();
                    ResultSet rs = statement.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                            + " AND pid <> pg_backend_pid() AND state IN ('active', 'idle in transaction', 'idle in transaction (aborted)')")) {
                rs.next();
                assertEquals(0, rs.getInt(1), "backends of " + dataSource + " busy or in a transaction");
            }
        }
    }
}
