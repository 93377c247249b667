package io.ashlar.bootstrap.sharding;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.math.BigDecimal;
import java.sql.BatchUpdateException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.sql.Types;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 4's batches: pgjdbc's executeBatch of 1,000 rows into t_order (data source
 * {@code user_id % 2}, table {@code order_id % 2}) in every preferQueryMode, run through the
 * proxy (where a pipeline of Bind/Execute pairs becomes one backend batch per data source) and
 * the same batch straight into the reference database. Update counts, the exception of a batch
 * that fails midway, and the rows the shards hold afterwards (each on the node the rules name)
 * must be the reference's.
 */
final class ShardedBatchTest {

    private static final int ROWS = 1_000;

    private static ShardedDatabases databases;

    @BeforeAll
    static void start() throws Exception {
        databases = ShardedDatabases.start();
    }

    @AfterAll
    static void stop() throws IOException {
        if (databases != null) {
            databases.close();
        }
    }

    @BeforeEach
    void empty() throws SQLException {
        databases.truncate("t_order");
    }

    /** Backend batches and the rows they carried, over both data sources. */
    private static long[] batchCounts() {
        long[] total = new long[2];
        for (var dataSource : databases.dataSources()) {
            long[] counts = dataSource.batchCounts();
            total[0] += counts[0];
            total[1] += counts[1];
        }
        return total;
    }

    /** What one batch did: its update counts, or the failure's SQLSTATE and counts. */
    private static String insertBatch(Connection connection, int duplicateAt) throws SQLException {
        return insertBatch(connection, duplicateAt, false);
    }

    /** @param oneDataSource whether every row goes to ds_0 (even user_id), else to both */
    private static String insertBatch(Connection connection, int duplicateAt, boolean oneDataSource) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO t_order (order_id, user_id, status, amount,"
                + " discount, weight, rate, note, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
            for (int i = 0; i < ROWS; i++) {
                int row = i == duplicateAt ? 0 : i;
                insert.setLong(1, 7L * row + 3);
                insert.setInt(2, oneDataSource ? 2 * (row % 13) : row % 13);
                insert.setString(3, row % 3 == 0 ? "NEW" : "PAID");
                insert.setBigDecimal(4, BigDecimal.valueOf(row * 37L % 100_000, 2));
                if (row % 10 == 0) {
                    insert.setNull(5, Types.NUMERIC);
                } else {
                    insert.setBigDecimal(5, new BigDecimal("0.0" + row % 7));
                }
                insert.setDouble(6, row / 8.0);
                insert.setFloat(7, row % 4 + 0.25f);
                insert.setString(8, row % 5 == 0 ? null : "note " + row + " with 'quotes' and \\ backslash");
                insert.setTimestamp(9, Timestamp.valueOf("2024-0" + (1 + row % 9) + "-1" + row % 10 + " 0" + row % 10 + ":30:00"));
                insert.addBatch();
            }
            try {
                return "counts " + Arrays.toString(insert.executeBatch());
            } catch (BatchUpdateException e) {
                return "failed " + e.getSQLState() + " " + Arrays.toString(e.getUpdateCounts());
            }
        }
    }

    @ParameterizedTest(name = "preferQueryMode={0}")
    @ValueSource(strings = {"extended", "extendedForPrepared", "extendedCacheEverything", "simple"})
    void batchOfThousandRowsLandsWhereTheRulesSay(String mode) throws SQLException {
        String parameters = "preferQueryMode=" + mode;
        try (Connection proxy = databases.proxy(parameters); Connection reference = databases.reference(parameters)) {
            String expected = insertBatch(reference, -1);
            int[] ones = new int[ROWS];
            Arrays.fill(ones, 1);
            assertEquals("counts " + Arrays.toString(ones), expected);
            long[] before = batchCounts();
            assertEquals(expected, insertBatch(proxy, -1), "the batch through the proxy");
            databases.assertContents("t_order");
            long[] after = batchCounts();
            if (!mode.equals("simple")) {
                // pgjdbc syncs every few hundred rows; each run of pairs is one backend batch per
                // data source, not a round trip per row.
                assertTrue(after[1] - before[1] >= ROWS * 9 / 10, () -> "rows that ran in backend batches: " + (after[1] - before[1]));
                assertTrue(after[0] - before[0] <= 24, () -> "backend batches for " + ROWS + " rows: " + (after[0] - before[0]));
            }

            String update = "UPDATE t_order SET status = ?, amount = amount + ? WHERE order_id = ? AND user_id = ?";
            try (PreparedStatement viaProxy = proxy.prepareStatement(update);
                 PreparedStatement direct = reference.prepareStatement(update)) {
                for (PreparedStatement each : new PreparedStatement[] {viaProxy, direct}) {
                    for (int row = 0; row < ROWS; row += 2) {
                        each.setString(1, "SHIPPED");
                        each.setBigDecimal(2, BigDecimal.ONE);
                        each.setLong(3, 7L * row + 3);
                        each.setInt(4, row % 13 == 5 ? 99 : row % 13); // some rows match nothing
                        each.addBatch();
                    }
                }
                int[] counts = direct.executeBatch();
                assertTrue(Arrays.stream(counts).anyMatch(c -> c == 0) && Arrays.stream(counts).anyMatch(c -> c == 1));
                assertArrayEquals(counts, viaProxy.executeBatch(), "update counts through the proxy");
            }
            databases.assertContents("t_order");

            try (Statement s = proxy.createStatement(); ResultSet rs = s.executeQuery("SELECT count(*) FROM t_order")) {
                assertTrue(rs.next());
                assertEquals(ROWS, rs.getLong(1));
            }
        }
    }

    /**
     * A duplicate key at row 700: PostgreSQL fails that row, skips the rest until the next Sync
     * and rolls back what ran since the previous one (pgjdbc syncs every few hundred rows). The
     * proxy must give the same exception and leave the same rows, whichever shard failed.
     */
    @ParameterizedTest(name = "preferQueryMode={0}")
    @ValueSource(strings = {"extended", "extendedCacheEverything", "simple"})
    void batchFailingMidwayLeavesWhatPostgreSqlLeaves(String mode) throws SQLException {
        String parameters = "preferQueryMode=" + mode;
        try (Connection proxy = databases.proxy(parameters); Connection reference = databases.reference(parameters)) {
            String expected = insertBatch(reference, 700);
            assertTrue(expected.startsWith("failed 23505 "), expected);
            assertEquals(expected, insertBatch(proxy, 700), "the failed batch through the proxy");
            databases.assertContents("t_order");
            try (Statement s = proxy.createStatement(); ResultSet rs = s.executeQuery("SELECT 'still usable'")) {
                assertTrue(rs.next());
            }
        }
    }

    /** A batch inside the client's own transaction rolls back with it on every shard. */
    @ParameterizedTest(name = "preferQueryMode={0}")
    @ValueSource(strings = {"extended", "simple"})
    void batchInsideATransactionRollsBackEverywhere(String mode) throws SQLException {
        try (Connection proxy = databases.proxy("preferQueryMode=" + mode)) {
            proxy.setAutoCommit(false);
            assertTrue(insertBatch(proxy, -1).startsWith("counts "));
            try (Statement s = proxy.createStatement(); ResultSet rs = s.executeQuery("SELECT count(*) FROM t_order")) {
                assertTrue(rs.next());
                assertEquals(ROWS, rs.getLong(1), "the transaction sees its own rows");
            }
            proxy.rollback();
        }
        databases.assertContents("t_order");
    }

    /**
     * A batch whose rows land on both data sources sends each its rows, then reads each one's
     * answers, on the session's own thread: no thread is started for a data source (there was a
     * virtual thread per extra data source, on the JDK's scheduler, a hand-off each way per batch).
     * JFR sees every virtual thread that starts.
     */
    @Test
    void batchOverBothDataSourcesStartsNoThread() throws Exception {
        try (Connection proxy = databases.proxy(""); Connection reference = databases.reference("")) {
            assertTrue(insertBatch(proxy, -1).startsWith("counts "), "warm-up batch");
            databases.truncate("t_order");
            assertTrue(insertBatch(reference, -1).startsWith("counts "));
            long[] before = batchCounts();
            List<RecordedEvent> started;
            try (Recording recording = new Recording()) {
                recording.enable("jdk.VirtualThreadStart");
                recording.start();
                String outcome = insertBatch(proxy, -1);
                recording.stop();
                assertTrue(outcome.startsWith("counts "), outcome);
                Path file = Files.createTempFile("batch-threads", ".jfr");
                try {
                    recording.dump(file);
                    started = RecordingFile.readAllEvents(file);
                } finally {
                    Files.delete(file);
                }
            }
            long[] after = batchCounts();
            assertTrue(after[0] - before[0] >= 2, () -> "backend batches (both data sources): " + (after[0] - before[0]));
            // The session's own thread exists already (the warm-up ran on it); nothing else in
            // this JVM starts virtual threads.
            List<String> threads = started.stream().map(e -> "virtual thread " + e.getLong("javaThreadId")).toList();
            assertEquals(List.of(), threads, "virtual threads started during a batch over two data sources");
        }
        databases.assertContents("t_order");
    }

    /**
     * A batch whose rows all land on one data source, with the client's Sync right after it (pgjdbc
     * syncs every few hundred rows), is the whole of its implicit transaction: it commits with the
     * backend's own Sync, as PostgreSQL commits a pipeline, with no BEGIN ahead and no COMMIT round
     * trip of the proxy's at the client's Sync (the backend's last statement for the session is
     * the INSERT; it was that COMMIT). A row failing midway leaves what PostgreSQL leaves.
     */
    @Test
    void batchOnOneDataSourceCommitsWithItsSync() throws SQLException {
        try (Connection proxy = databases.proxy("ApplicationName=one-source-batch"); Connection reference = databases.reference("")) {
            String expected = insertBatch(reference, -1, true);
            assertTrue(expected.startsWith("counts "), expected);
            long[] before = batchCounts();
            assertEquals(expected, insertBatch(proxy, -1, true), "the batch through the proxy");
            long[] after = batchCounts();
            assertTrue(after[1] - before[1] >= ROWS * 9 / 10, () -> "rows that ran in backend batches: " + (after[1] - before[1]));
            databases.assertContents("t_order");
            assertEquals(List.of("INSERT"), lastStatements("ds_0", "one-source-batch"),
                    "what the session's connection to ds_0 ran last");

            databases.truncate("t_order");
            expected = insertBatch(reference, 700, true);
            assertTrue(expected.startsWith("failed 23505 "), expected);
            assertEquals(expected, insertBatch(proxy, 700, true), "the failed batch through the proxy");
            databases.assertContents("t_order"); // the rows of pgjdbc's syncs before the failing row's
        }
    }

    /** The first word of the last statement of each connection to a data source with that application_name. */
    private static List<String> lastStatements(String dataSource, String applicationName) throws SQLException {
        try (Connection shard = databases.shard(dataSource);
             PreparedStatement activity = shard.prepareStatement("SELECT DISTINCT split_part(query, ' ', 1) FROM pg_stat_activity"
                     + " WHERE datname = current_database() AND application_name = ? AND pid <> pg_backend_pid()")) {
            activity.setString(1, applicationName);
            List<String> result = new java.util.ArrayList<>();
            try (ResultSet rs = activity.executeQuery()) {
                while (rs.next()) {
                    result.add(rs.getString(1));
                }
            }
            return result;
        }
    }

    /**
     * A batch that PostgreSQL fails only when it commits, at Sync (a deferred unique constraint),
     * fails through the proxy as it fails directly: every row's count, then the error. The batch
     * goes to the one data source of a single table. (Run in a transaction of the proxy's, its
     * COMMIT failed at the client's Sync, after the client had been told every row succeeded.)
     */
    @Test
    void batchFailingAtItsCommitFailsAsDirectly() throws SQLException {
        String create = "CREATE TABLE t_deferred (id int, CONSTRAINT t_deferred_id UNIQUE (id) DEFERRABLE INITIALLY DEFERRED)";
        try (Connection proxy = databases.proxy(""); Connection reference = databases.reference("");
             Statement viaProxy = proxy.createStatement(); Statement direct = reference.createStatement()) {
            viaProxy.execute(create);
            direct.execute(create);
            try {
                String expected = deferredBatch(reference);
                assertTrue(expected.startsWith("failed 23505 "), expected);
                assertEquals(expected, deferredBatch(proxy), "the batch through the proxy");
                try (ResultSet rs = viaProxy.executeQuery("SELECT count(*) FROM t_deferred")) {
                    assertTrue(rs.next());
                    assertEquals(0, rs.getLong(1), "rows left by the failed batch");
                }
            } finally {
                viaProxy.execute("DROP TABLE t_deferred");
                direct.execute("DROP TABLE t_deferred");
            }
        }
    }

    /**
     * A batch over both data sources, outside a transaction, whose COMMIT fails on one of them (a
     * deferred unique constraint on ds_1's actual table only, checked at its PREPARE TRANSACTION):
     * the client is told, with the constraint's 23505, and no row stays on either data source: ds_0
     * prepared and rolled back (two-phase commit). Before, ds_0 committed its rows before ds_1
     * refused; and before that, the proxy's COMMIT at the client's Sync failed quietly.
     */
    @Test
    void batchOverTwoDataSourcesWhoseCommitFailsOnOneIsAnError() throws SQLException {
        String constraint = "ALTER TABLE t_order_0 ADD CONSTRAINT t_order_0_note_deferred UNIQUE (note) DEFERRABLE INITIALLY DEFERRED";
        try (Connection ds1 = databases.shard("ds_1"); Statement onDs1 = ds1.createStatement();
             Connection proxy = databases.proxy("")) {
            onDs1.execute(constraint);
            try (PreparedStatement insert = proxy.prepareStatement(
                    "INSERT INTO t_order (order_id, user_id, status, note) VALUES (?, ?, 'NEW', ?)")) {
                // order_id even: actual table t_order_0; user_id 0 -> ds_0, 1 -> ds_1
                long[][] rows = {{990_000, 0}, {990_002, 0}, {990_004, 1}, {990_006, 1}};
                for (long[] row : rows) {
                    insert.setLong(1, row[0]);
                    insert.setLong(2, row[1]);
                    insert.setString(3, row[1] == 1 ? "deferred duplicate" : "deferred " + row[0]);
                    insert.addBatch();
                }
                BatchUpdateException failure = org.junit.jupiter.api.Assertions.assertThrows(BatchUpdateException.class,
                        insert::executeBatch, "a batch whose COMMIT failed on ds_1");
                assertEquals("23505", failure.getSQLState(), failure.getMessage());
            }
            try (ResultSet rs = onDs1.executeQuery("SELECT count(*) FROM t_order_0 WHERE order_id >= 990000")) {
                assertTrue(rs.next());
                assertEquals(0, rs.getLong(1), "ds_1's rows of the failed batch");
            }
            try (Connection ds0 = databases.shard("ds_0"); Statement onDs0 = ds0.createStatement()) {
                try (ResultSet rs = onDs0.executeQuery("SELECT count(*) FROM t_order_0 WHERE order_id >= 990000")) {
                    assertTrue(rs.next());
                    assertEquals(0, rs.getLong(1), "ds_0's rows of the failed batch (its transaction prepared, then rolled back)");
                }
                try (ResultSet rs = onDs0.executeQuery("SELECT count(*) FROM pg_prepared_xacts")) {
                    assertTrue(rs.next());
                    assertEquals(0, rs.getLong(1), "prepared transactions left");
                }
            }
        } finally {
            try (Connection ds0 = databases.shard("ds_0"); Statement onDs0 = ds0.createStatement();
                 Connection ds1 = databases.shard("ds_1"); Statement onDs1 = ds1.createStatement()) {
                onDs1.execute("ALTER TABLE t_order_0 DROP CONSTRAINT IF EXISTS t_order_0_note_deferred");
                onDs0.execute("DELETE FROM t_order_0 WHERE order_id >= 990000");
                onDs1.execute("DELETE FROM t_order_0 WHERE order_id >= 990000");
            }
        }
    }

    /** Ten rows, the last a duplicate of the first: fine row by row, refused at commit. */
    private static String deferredBatch(Connection connection) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO t_deferred (id) VALUES (?)")) {
            for (int i = 0; i < 10; i++) {
                insert.setInt(1, i == 9 ? 0 : i);
                insert.addBatch();
            }
            try {
                return "counts " + Arrays.toString(insert.executeBatch());
            } catch (BatchUpdateException e) {
                return "failed " + e.getSQLState() + " " + Arrays.toString(e.getUpdateCounts());
            }
        }
    }
}
