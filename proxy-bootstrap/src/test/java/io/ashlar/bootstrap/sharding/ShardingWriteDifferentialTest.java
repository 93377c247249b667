package io.ashlar.bootstrap.sharding;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ashlar.bootstrap.sharding.DifferentialCheck.Execution;
import java.io.IOException;
import java.sql.BatchUpdateException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.function.Executable;

/**
 * Issue 3's differential test of writes, transactions and errors: {@code sharding/writes.sql} runs in order on one
 * session through the proxy and one against the reference. Each statement must give the same update count,
 * RETURNING rows and SQLSTATE; after each group of writes the shards, read directly, must hold exactly the
 * reference's rows, each where the ShardingSphere rules put it. A statement that fails on one shard must change no
 * shard, and a ROLLBACK must undo every shard's writes.
 *
 * <p>Key generation and the JDBC transaction API need values or calls a corpus line cannot hold; they are tests here.
 */
final class ShardingWriteDifferentialTest {

    private static final TestData DATA = TestData.generate();

    private static ShardedDatabases databases;
    private static ConnectionPair pair;

    @BeforeAll
    static void start() throws Exception {
        databases = ShardedDatabases.start();
        pair = new ConnectionPair(databases, "");
    }

    @AfterAll
    static void stop() throws IOException {
        if (pair != null) {
            pair.close();
        }
        if (databases != null) {
            databases.close();
        }
    }

    @TestFactory
    List<DynamicTest> writeCorpus() throws IOException {
        List<DynamicTest> result = new ArrayList<>();
        for (CorpusEntry entry : Corpus.load("writes.sql")) {
            Executable check = switch (entry.kind()) {
                case RESET -> () -> {
                    pair.close();
                    databases.resetDirectly(DATA);
                };
                case CONTENTS -> () -> {
                    List<Executable> tables = new ArrayList<>();
                    for (String table : entry.text().split("\\s+")) {
                        tables.add(() -> databases.assertContents(table));
                    }
                    assertAll(entry.displayName(), tables);
                };
                case STATEMENT -> () -> DifferentialCheck.verify(pair, entry, Execution.ONCE);
            };
            result.add(DynamicTest.dynamicTest(entry.displayName(), check));
        }
        return result;
    }

    /**
     * An UPDATE that would move a row to another shard fails inside a transaction block as any failed statement does:
     * the block is aborted, its COMMIT rolls back, and no shard keeps what the block or the statement changed (the
     * statement's units that ran on other shards included). The corpus checks the same outside a block.
     */
    @Test
    void anUpdateThatWouldMoveARowFailsItsBlockAndTheBlockLeavesNothing() throws SQLException {
        databases.resetDirectly(DATA);
        try (Connection proxy = databases.proxy(""); Statement statement = proxy.createStatement()) {
            statement.execute("BEGIN");
            assertEquals(1, statement.executeUpdate("UPDATE t_order SET status = 'in block' WHERE order_id = 1091"));
            assertEquals(1, statement.executeUpdate("UPDATE t_order SET user_id = 3, note = 'stays' WHERE order_id = 1168"));
            SQLException moved = assertThrows(SQLException.class,
                    () -> statement.executeUpdate("UPDATE t_order SET user_id = 3, note = 'moved' WHERE order_id IN (1168, 1126)"));
            assertEquals("0A000", moved.getSQLState(), moved.getMessage());
            assertTrue(moved.getMessage().contains("would move a row to another shard"), moved.getMessage());
            SQLException aborted = assertThrows(SQLException.class, () -> statement.executeQuery("SELECT 1"));
            assertEquals("25P02", aborted.getSQLState(), aborted.getMessage());
            statement.execute("COMMIT");
            try (ResultSet rs = statement.executeQuery("SELECT count(*) FROM t_order WHERE status = 'in block' OR note IN ('stays', 'moved')")) {
                assertTrue(rs.next());
                assertEquals(0, rs.getInt(1), "the aborted block's COMMIT rolled back every shard");
            }
        }
        databases.assertContents("t_order");
    }

    /**
     * Hibernate saves entities in a JDBC batch of whole-row UPDATEs: rows that stay are updated, and a batch with a
     * row that would move fails as one (pgjdbc's batch is one implicit transaction), leaving every row as it was.
     */
    @Test
    void aBatchOfWholeRowUpdatesRunsAndOneThatWouldMoveARowChangesNothing() throws SQLException {
        databases.resetDirectly(DATA);
        String sql = "UPDATE t_order SET user_id = ?, status = ? WHERE order_id = ?";
        try (Connection proxy = databases.proxy(""); Connection reference = databases.reference("");
                PreparedStatement proxied = proxy.prepareStatement(sql); PreparedStatement direct = reference.prepareStatement(sql)) {
            for (PreparedStatement each : new PreparedStatement[] {proxied, direct}) {
                addSave(each, 3, "BATCHED", 1091);
                addSave(each, 4, "BATCHED", 1126);
            }
            assertEquals(Arrays.toString(direct.executeBatch()), Arrays.toString(proxied.executeBatch()));
            databases.assertContents("t_order");
            addSave(proxied, 3, "MOVED", 1091);
            addSave(proxied, 3, "MOVED", 1126);
            BatchUpdateException failed = assertThrows(BatchUpdateException.class, proxied::executeBatch);
            SQLException cause = failed.getNextException() != null ? failed.getNextException() : failed;
            assertEquals("0A000", cause.getSQLState(), cause.getMessage());
        }
        databases.assertContents("t_order");
    }

    private static void addSave(PreparedStatement statement, int userId, String status, long orderId) throws SQLException {
        statement.setInt(1, userId);
        statement.setString(2, status);
        statement.setLong(3, orderId);
        statement.addBatch();
    }

    @Test
    void omittedOrderIdIsGeneratedAndTheRowLandsWhereTheRulesPutIt() throws SQLException {
        databases.resetDirectly(DATA);
        Set<Long> generated = new HashSet<>();
        try (Connection proxy = databases.proxy(""); Connection reference = databases.reference("")) {
            List<String> inserted = new ArrayList<>();
            try (Statement statement = proxy.createStatement();
                    ResultSet rs = statement.executeQuery("INSERT INTO t_order (user_id, status, amount) VALUES (3, 'GEN', 1.00),"
                            + " (4, 'GEN', 2.00), (3, 'GEN', 3.00), (4, 'GEN', 4.00) RETURNING order_id, user_id, amount")) {
                while (rs.next()) {
                    generated.add(rs.getLong(1));
                    inserted.add("(" + rs.getLong(1) + ", " + rs.getInt(2) + ", 'GEN', " + rs.getBigDecimal(3) + ")");
                }
            }
            assertEquals(4, inserted.size(), "RETURNING gives one row per inserted row");
            assertEquals(4, generated.size(), "generated keys are distinct: " + generated);
            for (long each : generated) {
                assertTrue(each > 0, "a SNOWFLAKE key is positive: " + each);
            }
            try (Statement statement = reference.createStatement()) {
                statement.execute("INSERT INTO t_order (order_id, user_id, status, amount) VALUES " + String.join(", ", inserted));
            }
            databases.assertContents("t_order");

            try (PreparedStatement statement = proxy.prepareStatement("INSERT INTO t_order (user_id, status) VALUES (?, 'GEN2')",
                    new String[] {"order_id"})) {
                statement.setInt(1, 5);
                assertEquals(1, statement.executeUpdate());
                try (ResultSet keys = statement.getGeneratedKeys()) {
                    assertTrue(keys.next(), "getGeneratedKeys returns the generated order_id");
                    long key = keys.getLong(1);
                    assertTrue(key > 0 && generated.add(key), "a new positive key: " + key);
                    try (Statement direct = reference.createStatement()) {
                        direct.execute("INSERT INTO t_order (order_id, user_id, status) VALUES (" + key + ", 5, 'GEN2')");
                    }
                }
            }
            try (Statement statement = proxy.createStatement()) {
                assertEquals(1, statement.executeUpdate("INSERT INTO t_order (user_id, status) VALUES (6, 'GEN3')"));
                try (ResultSet rs = statement.executeQuery("SELECT order_id FROM t_order WHERE status = 'GEN3'")) {
                    assertTrue(rs.next(), "the row inserted without RETURNING can be read back");
                    long key = rs.getLong(1);
                    assertTrue(generated.add(key), "a new key: " + key);
                    try (Statement direct = reference.createStatement()) {
                        direct.execute("INSERT INTO t_order (order_id, user_id, status) VALUES (" + key + ", 6, 'GEN3')");
                    }
                }
            }
            databases.assertContents("t_order");
        }
    }

    @Test
    void jdbcTransactionsCommitAndRollBackEveryShard() throws SQLException {
        databases.resetDirectly(DATA);
        try (Connection proxy = databases.proxy(""); Connection reference = databases.reference("")) {
            proxy.setAutoCommit(false);
            try (Statement statement = proxy.createStatement()) {
                statement.executeUpdate("INSERT INTO t_order (order_id, user_id, status) VALUES (9001, 0, 'JDBC')");
                statement.executeUpdate("INSERT INTO t_order (order_id, user_id, status) VALUES (9002, 1, 'JDBC')");
                assertEquals(count(reference, "SELECT count(*) FROM t_order WHERE user_id IN (0, 1)") + 2,
                        statement.executeUpdate("UPDATE t_order SET note = 'JDBC' WHERE user_id IN (0, 1)"),
                        "the UPDATE sees the transaction's own rows on both shards");
            }
            proxy.rollback();
            databases.assertContents("t_order");

            try (Statement statement = proxy.createStatement()) {
                statement.executeUpdate("INSERT INTO t_order (order_id, user_id, status) VALUES (9003, 0, 'JDBC')");
                statement.executeUpdate("INSERT INTO t_order (order_id, user_id, status) VALUES (9004, 1, 'JDBC')");
            }
            proxy.commit();
            try (Statement statement = reference.createStatement()) {
                statement.executeUpdate("INSERT INTO t_order (order_id, user_id, status) VALUES (9003, 0, 'JDBC'), (9004, 1, 'JDBC')");
            }
            databases.assertContents("t_order");

            try (Statement statement = proxy.createStatement()) {
                statement.executeUpdate("INSERT INTO t_order (order_id, user_id, status) VALUES (9005, 1, 'JDBC')");
                SQLException duplicate = assertThrows(SQLException.class,
                        () -> statement.executeUpdate("INSERT INTO t_order (order_id, user_id) VALUES (9003, 0)"));
                assertEquals("23505", duplicate.getSQLState(), duplicate.getMessage());
                SQLException aborted = assertThrows(SQLException.class, () -> statement.executeQuery("SELECT 1"));
                assertEquals("25P02", aborted.getSQLState(), aborted.getMessage());
            }
            proxy.rollback();
            databases.assertContents("t_order");

            proxy.setAutoCommit(true);
            assertEquals(2, count(proxy, "SELECT count(*) FROM t_order WHERE status = 'JDBC'"), "the committed rows, and only those");
        }
    }

    /**
     * A pgjdbc batch is pipelined Executes before one Sync: PostgreSQL runs them in one implicit transaction, so a
     * failing row keeps every row of the batch out, whichever shard the other rows went to.
     */
    @Test
    void jdbcBatchesSpanShardsAndFailAsOne() throws SQLException {
        databases.resetDirectly(DATA);
        String sql = "INSERT INTO t_order (order_id, user_id, status) VALUES (?, ?, 'BATCH')";
        long[][] good = {{9101, 0}, {9102, 1}, {9103, 2}, {9104, 3}, {9105, 4}};
        long[][] bad = {{9111, 0}, {9112, 1}, {9101, 0}, {9113, 3}};
        try (Connection proxy = databases.proxy(""); Connection reference = databases.reference("")) {
            for (long[][] batch : new long[][][] {good, bad}) {
                String expected = batch(reference, sql, batch);
                String actual = batch(proxy, sql, batch);
                assertEquals(expected, actual, "the batch's outcome through the proxy and in PostgreSQL");
                databases.assertContents("t_order");
            }
        }
    }

    private static String batch(Connection connection, String sql, long[][] rows) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            for (long[] row : rows) {
                statement.setLong(1, row[0]);
                statement.setInt(2, (int) row[1]);
                statement.addBatch();
            }
            try {
                return "counts " + Arrays.toString(statement.executeBatch());
            } catch (BatchUpdateException e) {
                SQLException cause = e.getNextException() == null ? e : e.getNextException();
                return "failed " + cause.getSQLState();
            }
        }
    }

    /**
     * A REPEATABLE READ transaction whose first statement reads every shard keeps seeing that snapshot on every shard,
     * as in one PostgreSQL database, while another session commits rows on both shards; and every backend connection
     * of the transaction runs at the isolation level the client asked for.
     */
    @Test
    void repeatableReadHoldsOnEveryShard() throws SQLException {
        databases.resetDirectly(DATA);
        String countAll = "SELECT count(*) FROM t_order";
        try (Connection reader = databases.proxy(""); Connection writer = databases.proxy("")) {
            long before = count(reader, countAll);
            try (Statement statement = reader.createStatement()) {
                statement.execute("START TRANSACTION ISOLATION LEVEL REPEATABLE READ");
                assertEquals(before, count(reader, countAll));
                try (ResultSet rs = statement.executeQuery("SELECT DISTINCT current_setting('transaction_isolation') FROM t_order")) {
                    List<String> levels = new ArrayList<>();
                    while (rs.next()) {
                        levels.add(rs.getString(1));
                    }
                    assertEquals(List.of("repeatable read"), levels, "the isolation level of every shard's backend connection");
                }
                try (Statement other = writer.createStatement()) {
                    assertEquals(2, other.executeUpdate("INSERT INTO t_order (order_id, user_id) VALUES (9201, 0), (9202, 1)"));
                }
                assertEquals(before, count(reader, countAll), "rows committed after the snapshot stay invisible on every shard");
                assertEquals(0, count(reader, "SELECT count(*) FROM t_order WHERE order_id IN (9201, 9202)"));
                statement.execute("COMMIT");
            }
            assertEquals(before + 2, count(reader, countAll), "after COMMIT the new snapshot sees them");
        }
    }

    private static long count(Connection connection, String sql) throws SQLException {
        try (Statement statement = connection.createStatement(); ResultSet rs = statement.executeQuery(sql)) {
            assertTrue(rs.next(), sql);
            return rs.getLong(1);
        }
    }
}
