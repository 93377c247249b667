package io.ashlar.bootstrap.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The backend connection a transaction runs on is terminated ({@code pg_terminate_backend}) between two of its
 * statements. The transaction never ends silently: the session is in a failed transaction (25P02 until ROLLBACK),
 * or the client's connection is closed as PostgreSQL closes it; what the client sends next never runs outside the
 * transaction. (A pooled database answered the next INSERT with 57P01 and ReadyForQuery 'I', and autocommitted the
 * one after, which the client's ROLLBACK then could not undo.)
 */
final class TransactionLossTest {

    private static FaultyServers servers;

    @BeforeAll
    static void start() throws Exception {
        servers = FaultyServers.start(4, 4);
    }

    @AfterAll
    static void stop() throws Exception {
        if (servers != null) {
            servers.close();
        }
    }

    /** Terminates the backend of {@code database} on server {@code server} idle in a transaction that ran {@code marker}. */
    private static void terminate(int server, String database, String marker) throws Exception {
        long pid = -1;
        for (int i = 0; i < 200 && pid < 0; i++) {
            try (Connection c = servers.server(server).connect("postgres"); Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT pid FROM pg_stat_activity WHERE datname = '" + database
                            + "' AND query LIKE '%" + marker + "%' AND state = 'idle in transaction'")) {
                if (rs.next()) {
                    pid = rs.getLong(1);
                }
            }
            if (pid < 0) {
                Thread.sleep(50);
            }
        }
        assertTrue(pid > 0, "no backend idle in a transaction that ran " + marker);
        try (Connection c = servers.server(server).connect("postgres"); Statement s = c.createStatement()) {
            s.execute("SELECT pg_terminate_backend(" + pid + ")");
            for (int i = 0; i < 200; i++) {
                try (ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE pid = " + pid)) {
                    rs.next();
                    if (rs.getLong(1) == 0) {
                        break;
                    }
                }
                Thread.sleep(50);
            }
        }
        Thread.sleep(300); // the end of its socket reaches the proxy
    }

    private static List<Integer> rows(int server, String database, String table, int from, int to) throws SQLException {
        List<Integer> result = new ArrayList<>();
        try (Connection c = servers.server(server).connect(database); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT id FROM " + table + " WHERE id BETWEEN " + from + " AND " + to + " ORDER BY id")) {
            while (rs.next()) {
                result.add(rs.getInt(1));
            }
        }
        return result;
    }

    /** What the client saw for each statement after the loss: "ok", or its SQLSTATE. */
    private static List<String> afterLoss(Connection c, String... statements) {
        List<String> result = new ArrayList<>();
        for (String each : statements) {
            try (Statement s = c.createStatement()) {
                s.execute(each);
                result.add("ok");
            } catch (SQLException e) {
                result.add(e.getSQLState());
            }
        }
        return result;
    }

    private static void check(String database, int server, String backendDatabase, String table, int first) throws Exception {
        String marker = "loss_probe_" + first;
        List<String> seen;
        try (Connection c = servers.connect(database)) {
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                s.execute("INSERT INTO " + table + " (id, v) VALUES (" + first + ", '" + marker + "')");
            }
            terminate(server, backendDatabase, marker);
            seen = afterLoss(c, "INSERT INTO " + table + " (id, v) VALUES (" + (first + 2) + ", 'after')",
                    "INSERT INTO " + table + " (id, v) VALUES (" + (first + 4) + ", 'after')",
                    "ROLLBACK",
                    "INSERT INTO " + table + " (id, v) VALUES (" + (first + 6) + ", 'in a new transaction')", "ROLLBACK");
        }
        System.out.println("TransactionLossTest " + database + ": " + seen);
        assertTrue(!seen.get(0).equals("ok"), () -> database + ": the statement after the loss succeeded: " + seen);
        // Then: a failed transaction until ROLLBACK, or a closed connection; never a statement run on its own.
        String second = seen.get(1);
        assertTrue(second.equals("25P02") || second.startsWith("08"), () -> database + ": " + seen);
        if (second.equals("25P02")) {
            assertEquals(List.of("ok", "ok", "ok"), seen.subList(2, 5), () -> database + ": after ROLLBACK the session goes on: " + seen);
        }
        assertEquals(List.of(), rows(server, backendDatabase, table, first, first + 6),
                () -> database + ": rows of the lost transaction, or run outside it, are there; the client saw " + seen);
    }

    @Test
    void aPooledDatabaseRelayed() throws Exception {
        check(FaultyServers.POOLED, 0, "pooled", "p", 100);
    }

    @Test
    void aPooledDatabaseRunAsMethodCalls() throws Exception {
        check(FaultyServers.POOLED_JDBC, 0, "pooled", "p", 200);
    }

    @Test
    void aShardedDatabase() throws Exception {
        check(FaultyServers.SHARDED, 0, "ds_0", "t", 300);
    }
}
