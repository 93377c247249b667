package io.ashlar.bootstrap.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * server.yaml's sql-show (ShardingSphere's "Logic SQL" and "Actual SQL" lines, under its logger name) and the
 * slow-query log (slow-query-threshold-milliseconds: one WARN line with the times and the route), on a sharded and a
 * pooled database, and a refused login logged as one line with its reason and no stack trace. The log is read from
 * stderr, where slf4j-simple writes it.
 */
final class StatementLogTest {

    private static OpsProxy ops;
    private static final ByteArrayOutputStream LOG = new ByteArrayOutputStream();
    private static PrintStream stderr;

    @BeforeAll
    static void start() throws Exception {
        stderr = System.err;
        System.setErr(new PrintStream(new TeeStream(stderr, LOG), true, StandardCharsets.UTF_8));
        ops = OpsProxy.start("  sql-show: true\n  slow-query-threshold-milliseconds: 800\n");
    }

    @AfterAll
    static void stop() throws Exception {
        try {
            if (ops != null) {
                ops.close();
            }
        } finally {
            System.setErr(stderr);
        }
    }

    /** What was logged since {@code mark}, once the proxy's threads have written it. */
    private static String logSince(int mark) throws InterruptedException {
        Thread.sleep(200);
        synchronized (LOG) {
            return new String(LOG.toByteArray(), StandardCharsets.UTF_8).substring(mark);
        }
    }

    private static int mark() {
        synchronized (LOG) {
            return LOG.size();
        }
    }

    @Test
    void sqlShowLogsTheLogicalStatementAndEachUnitAsShardingSphereDoes() throws Exception {
        int mark = mark();
        try (Connection c = ops.connect(OpsProxy.SHARDED, "app", "extended")) {
            OpsProxy.query(c, "SELECT * FROM t_order WHERE user_id = 1");
            try (PreparedStatement p = c.prepareStatement("SELECT status FROM t_order WHERE user_id = ? AND order_id = ?")) {
                p.setInt(1, 1);
                p.setInt(2, 2);
                p.executeQuery().close();
            }
        }
        String log = logSince(mark);
        assertTrue(log.contains(" ShardingSphere-SQL - Logic SQL: SELECT * FROM t_order WHERE user_id = 1\n"), log);
        assertTrue(log.contains(" ShardingSphere-SQL - Actual SQL: ds_1 ::: SELECT * FROM t_order_0 WHERE user_id = 1\n"), log);
        assertTrue(log.contains(" ShardingSphere-SQL - Actual SQL: ds_1 ::: SELECT * FROM t_order_1 WHERE user_id = 1\n"), log);
        assertTrue(log.contains(" ShardingSphere-SQL - Logic SQL: SELECT status FROM t_order WHERE user_id = $1 AND order_id = $2\n"), log);
        assertTrue(log.contains(" ShardingSphere-SQL - Actual SQL: ds_1 ::: SELECT status FROM t_order_0 WHERE user_id = $1"
                + " AND order_id = $2 ::: [1, 2]\n"), log);

        mark = mark();
        try (Connection c = ops.connect(OpsProxy.POOLED, "app", "simple")) {
            OpsProxy.query(c, "SELECT 42");
        }
        log = logSince(mark);
        assertTrue(log.contains(" ShardingSphere-SQL - Logic SQL: SELECT 42\n"), log);
        assertTrue(log.contains(" ShardingSphere-SQL - Actual SQL: ds_0 ::: SELECT 42\n"), log);
    }

    @Test
    void aSlowRequestIsOneWarningWithItsTimesAndRoute() throws Exception {
        int mark = mark();
        try (Connection c = ops.connect(OpsProxy.SHARDED, "app", "extended")) {
            OpsProxy.query(c, "SELECT pg_sleep(1.2)");
            OpsProxy.query(c, "SELECT 'fast'");
        }
        try (Connection c = ops.connect(OpsProxy.POOLED, "app", "extended")) {
            OpsProxy.query(c, "SELECT pg_sleep(1.2)");
        }
        String log = logSince(mark);
        List<String> slow = log.lines().filter(line -> line.contains(" slow-query - ")).toList();
        assertTrue(slow.stream().anyMatch(line -> line.matches(".* WARN slow-query - slow query: \\d+\\.\\d{3} ms on sharding_db as"
                + " app: route \\d+\\.\\d{3} ms, backend \\d+\\.\\d{3} ms \\(to the first rows of a streamed result\\);"
                + " units: ds_\\d ::: SELECT pg_sleep\\(1\\.2\\)")), log);
        assertTrue(slow.stream().anyMatch(line -> line.matches(".* WARN slow-query - slow query: \\d+\\.\\d{3} ms on pool_db as app:"
                + " units: ds_0 ::: SELECT pg_sleep\\(1\\.2\\)")), log);
        assertFalse(slow.stream().anyMatch(line -> line.contains("'fast'")), log);
    }

    @Test
    void aRefusedLoginIsOneLineWithItsReason() throws Exception {
        int mark = mark();
        SQLException refused = assertThrows(SQLException.class, () -> DriverManager.getConnection("jdbc:postgresql://127.0.0.1:"
                + ops.proxy.port() + "/" + OpsProxy.POOLED, "app", "wrong"));
        assertEquals("28P01", refused.getSQLState());
        String log = logSince(mark);
        assertTrue(log.contains("login refused: password authentication failed for user \"app\" (28P01)\n"), log);
        assertFalse(log.contains("\tat "), "no stack trace: " + log);
    }

    /** Writes to both streams. */
    private static final class TeeStream extends java.io.OutputStream {
        private final java.io.OutputStream first;
        private final ByteArrayOutputStream second;

        TeeStream(java.io.OutputStream first, ByteArrayOutputStream second) {
            this.first = first;
            this.second = second;
        }

        @Override
        public void write(int b) throws java.io.IOException {
            first.write(b);
            synchronized (second) {
                second.write(b);
            }
        }

        @Override
        public void write(byte[] b, int off, int len) throws java.io.IOException {
            first.write(b, off, len);
            synchronized (second) {
                second.write(b, off, len);
            }
        }
    }
}
