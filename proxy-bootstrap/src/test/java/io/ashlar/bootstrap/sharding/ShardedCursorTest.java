package io.ashlar.bootstrap.sharding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Cursors over sharded tables read every shard, merged as the query asks: SQL cursors (DECLARE,
 * FETCH in every direction, MOVE, WITH HOLD) and pgjdbc's fetch size (a bound portal read in pieces),
 * compared row for row with one PostgreSQL holding the same rows. {@code t_user}'s actual tables
 * carry the logical name on both data sources, so a cursor that reached one data source only would
 * return half the rows and still look plausible.
 *
 * @see <a href="https://www.postgresql.org/docs/current/sql-fetch.html">FETCH</a>
 */
final class ShardedCursorTest {

    private static final TestData DATA = TestData.generate();
    private static ShardedDatabases databases;

    @BeforeAll
    static void start() throws Exception {
        databases = ShardedDatabases.start();
        for (String table : new String[] {"t_user", "t_order"}) {
            databases.loadThroughProxy(DATA, table).ifPresent(failure -> {
                throw new IllegalStateException(failure);
            });
        }
    }

    @AfterAll
    static void stop() throws IOException {
        if (databases != null) {
            databases.close();
        }
    }

    /** Runs the statements on one connection; the rows of each FETCH, one line per row. */
    private static List<String> run(Connection connection, String... statements) throws SQLException {
        List<String> result = new ArrayList<>();
        try (Statement statement = connection.createStatement()) {
            for (String sql : statements) {
                result.add("> " + sql);
                if (statement.execute(sql)) {
                    try (ResultSet rs = statement.getResultSet()) {
                        int columns = rs.getMetaData().getColumnCount();
                        while (rs.next()) {
                            StringBuilder row = new StringBuilder();
                            for (int i = 1; i <= columns; i++) {
                                row.append(i == 1 ? "" : " | ").append(rs.getString(i));
                            }
                            result.add(row.toString());
                        }
                    }
                } else {
                    result.add("count " + statement.getUpdateCount());
                }
            }
        }
        return result;
    }

    private static void assertSameAsReference(String... statements) throws SQLException {
        List<String> expected;
        try (Connection reference = databases.reference("")) {
            expected = run(reference, statements);
        }
        try (Connection proxy = databases.proxy("")) {
            assertEquals(String.join("\n", expected), String.join("\n", run(proxy, statements)));
        }
    }

    @Test
    void scrollCursorOverAShardedTableReadsEveryShard() throws SQLException {
        assertSameAsReference(
                "BEGIN",
                "DECLARE users SCROLL CURSOR FOR SELECT user_id, name, city FROM t_user ORDER BY user_id",
                "FETCH 5 FROM users",
                "MOVE FORWARD 10 IN users",
                "FETCH BACKWARD 3 FROM users",
                "FETCH ABSOLUTE -2 FROM users",
                "FETCH LAST FROM users",
                "FETCH RELATIVE -1 FROM users",
                "MOVE ABSOLUTE 0 IN users",
                "FETCH FORWARD ALL FROM users",
                "CLOSE users",
                "COMMIT");
    }

    /**
     * A cursor one shard answers relays that shard's rows as it sent them: moving backwards, the rows it keeps are
     * read back from them, and the current row is sent again by RELATIVE 0; a forward-only one goes on after
     * another statement of the session.
     */
    @Test
    void cursorsOverOneShard() throws SQLException {
        assertSameAsReference(
                "BEGIN",
                "DECLARE one SCROLL CURSOR FOR SELECT u.user_id, u.name, u.city, g, NULL AS nothing, '' AS empty"
                        + " FROM t_user u, generate_series(1, 30) g WHERE u.user_id = 3 ORDER BY g",
                "FETCH 5 FROM one",
                "FETCH RELATIVE 0 FROM one",
                "MOVE FORWARD 10 IN one",
                "FETCH BACKWARD 3 FROM one",
                "FETCH ABSOLUTE -2 FROM one",
                "FETCH PRIOR FROM one",
                "FETCH ABSOLUTE 1 FROM one",
                "DECLARE forward NO SCROLL CURSOR FOR SELECT u.user_id, g FROM t_user u, generate_series(1, 9) g"
                        + " WHERE u.user_id = 4 ORDER BY g",
                "FETCH 2 FROM forward",
                "SELECT count(*) FROM t_user",
                "FETCH ALL FROM forward",
                "CLOSE one",
                "CLOSE forward",
                "COMMIT");
    }

    @Test
    void cursorOverAGroupedMergeAndWithHold() throws SQLException {
        assertSameAsReference(
                "DECLARE totals CURSOR WITH HOLD FOR SELECT user_id, count(*), sum(amount) FROM t_order"
                        + " GROUP BY user_id ORDER BY user_id",
                "FETCH 4 FROM totals",
                "FETCH ALL FROM totals",
                "CLOSE totals");
    }

    @Test
    void cursorWithAParameter() throws SQLException {
        List<String> expected = declareWithParameterAndFetch(databases.reference(""));
        assertTrue(expected.size() > 2, "the user has orders");
        assertEquals(expected, declareWithParameterAndFetch(databases.proxy("")));
    }

    private static List<String> declareWithParameterAndFetch(Connection connection) throws SQLException {
        try (connection) {
            connection.setAutoCommit(false);
            try (PreparedStatement declare = connection.prepareStatement(
                    "DECLARE c CURSOR FOR SELECT order_id, status FROM t_order WHERE user_id = ? ORDER BY order_id")) {
                declare.setInt(1, 3);
                declare.execute();
            }
            List<String> result = run(connection, "FETCH ALL FROM c");
            connection.rollback();
            return result;
        }
    }

    @Test
    void fetchSizeReadsABoundPortalInPieces() throws SQLException {
        List<String> expected = fetchInPieces(databases.reference(""));
        assertEquals(expected, fetchInPieces(databases.proxy("")));
    }

    private static List<String> fetchInPieces(Connection connection) throws SQLException {
        List<String> result = new ArrayList<>();
        try (connection) {
            connection.setAutoCommit(false);
            try (Statement statement = connection.createStatement()) {
                statement.setFetchSize(7);
                try (ResultSet rs = statement.executeQuery("SELECT user_id, score FROM t_user ORDER BY user_id")) {
                    while (rs.next()) {
                        result.add(rs.getString(1) + " " + rs.getString(2));
                    }
                }
            }
            connection.commit();
        }
        return result;
    }

    @Test
    void cursorErrorsAbortTheTransaction() throws SQLException {
        try (Connection proxy = databases.proxy(""); Statement statement = proxy.createStatement()) {
            proxy.setAutoCommit(false);
            SQLException missing = assertThrows(SQLException.class, () -> statement.execute("FETCH 1 FROM nothing"));
            assertEquals("34000", missing.getSQLState());
            SQLException aborted = assertThrows(SQLException.class, () -> statement.execute("SELECT count(*) FROM t_user"));
            assertEquals("25P02", aborted.getSQLState());
            proxy.rollback();
            SQLException outside = assertThrows(SQLException.class, () -> {
                proxy.setAutoCommit(true);
                statement.execute("DECLARE c CURSOR FOR SELECT 1");
            });
            assertEquals("25P01", outside.getSQLState());
        }
    }

    /**
     * Issue 15: a cursor over a sharded table whose actual tables carry the logical name, read with FETCH in pieces
     * over the simple protocol (as psql's FETCH_COUNT does), returns every shard's rows: it returned one data
     * source's half of 5,000,000 rows with no error.
     */
    @Test
    void aLargeCursorReadInPiecesReadsEveryShard() throws SQLException {
        int perShard = 150_000;
        for (int shard = 0; shard < 2; shard++) {
            try (Connection direct = databases.shard("ds_" + shard); Statement s = direct.createStatement()) {
                s.execute("INSERT INTO t_user (user_id, name) SELECT 1000000 + 2 * g + " + shard + ", 'bulk' FROM generate_series(0, "
                        + (perShard - 1) + ") g");
            }
        }
        try (Connection proxy = databases.proxy("preferQueryMode=simple"); Statement s = proxy.createStatement()) {
            proxy.setAutoCommit(false);
            s.execute("DECLARE big CURSOR FOR SELECT user_id FROM t_user WHERE name = 'bulk'");
            long rows = 0;
            long sum = 0;
            while (true) {
                int fetched = 0;
                try (ResultSet rs = s.executeQuery("FETCH FORWARD 40000 FROM big")) {
                    while (rs.next()) {
                        fetched++;
                        sum += rs.getLong(1) - 1000000;
                    }
                }
                if (fetched == 0) {
                    break;
                }
                rows += fetched;
            }
            proxy.rollback();
            long n = 2L * perShard;
            assertEquals(n, rows, "rows read through the cursor");
            assertEquals(n * (n - 1) / 2, sum, "the rows' ids");
        } finally {
            for (int shard = 0; shard < 2; shard++) {
                try (Connection direct = databases.shard("ds_" + shard); Statement s = direct.createStatement()) {
                    s.execute("DELETE FROM t_user WHERE user_id >= 1000000");
                }
            }
        }
    }
}
