package io.ashlar.bootstrap.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
 * A sharded database's {@code pg_prepared_statements} and {@code pg_cursors} list what the client made, as PostgreSQL's does: its SQL
 * PREPAREs and the statements it named with Parse, under its names and in its text. The view used to be the backend
 * connection's: the proxy's own statements (named {@code ashlar_N}, over actual tables), prepared for whichever
 * sessions had used that connection, and none of the client's SQL PREPAREs. Applications that look a statement up
 * there before preparing it (PHP's idiom) prepared it again and failed with 42P05. {@code pg_cursors} listed none of
 * the cursors the proxy serves.
 */
final class SessionViewsTest {

    private static ProxiedPostgres server;

    @BeforeAll
    static void start() throws Exception {
        server = ProxiedPostgres.startSharded();
        try (Connection c = server.proxy(""); Statement s = c.createStatement()) {
            s.execute("INSERT INTO t_og (id, name) VALUES (0, 'a'), (1, 'b'), (2, 'c'), (3, 'd')");
        }
    }

    @AfterAll
    static void stop() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void preparedStatementsAreTheClientsOwn() throws Exception {
        try (Connection a = server.proxy(""); Connection b = server.proxy("");
                Statement s = a.createStatement()) {
            s.execute("PREPARE by_id (int) AS SELECT name FROM t_og WHERE id = $1");
            try (PreparedStatement named = a.prepareStatement("SELECT name FROM t_og WHERE id = ?")) {
                named.unwrap(org.postgresql.PGStatement.class).setPrepareThreshold(1); // pgjdbc names it (S_1) at once
                for (int id = 0; id < 2; id++) {
                    named.setInt(1, id);
                    try (ResultSet rs = named.executeQuery()) {
                        assertTrue(rs.next());
                    }
                }
                List<String> rows = rows(a, "SELECT name, statement, from_sql, parameter_types::text"
                        + " FROM pg_prepared_statements WHERE statement LIKE '%t_og%' ORDER BY from_sql, name");
                assertEquals(List.of(
                        "S_1|SELECT name FROM t_og WHERE id = $1|f|{integer}",
                        "by_id|PREPARE by_id (int) AS SELECT name FROM t_og WHERE id = $1|t|{integer}"), rows);
                // Qualified, aliased, filtered, and joined with itself: the rest of the statement runs as written.
                assertEquals(List.of("by_id|t"), rows(a, "SELECT p.name, p.prepare_time <= now() FROM pg_catalog.pg_prepared_statements p"
                        + " JOIN pg_prepared_statements q USING (name) WHERE p.from_sql"));
                // Another client's session lists none of them, nor anything the proxy prepared for either.
                assertEquals(List.of(), rows(b, "SELECT name FROM pg_prepared_statements"));
            }
            try (ResultSet rs = s.executeQuery("EXECUTE by_id(3)")) {
                assertTrue(rs.next());
                assertEquals("d", rs.getString(1));
            }
            s.execute("DEALLOCATE by_id");
            assertFalse(rows(a, "SELECT name FROM pg_prepared_statements").contains("by_id"));
        }
    }

    /** pg_cursors lists the cursors the proxy serves, which the backends do not know. */
    @Test
    void cursorsAreTheClientsOwn() throws Exception {
        try (Connection a = server.proxy(""); Connection b = server.proxy(""); Statement s = a.createStatement()) {
            a.setAutoCommit(false);
            s.execute("DECLARE c1 SCROLL CURSOR WITH HOLD FOR SELECT name FROM t_og ORDER BY id");
            s.execute("DECLARE c2 BINARY NO SCROLL CURSOR FOR SELECT id FROM t_og");
            assertEquals(List.of(
                    "c1|DECLARE c1 SCROLL CURSOR WITH HOLD FOR SELECT name FROM t_og ORDER BY id|t|f|t|t",
                    "c2|DECLARE c2 BINARY NO SCROLL CURSOR FOR SELECT id FROM t_og|f|t|f|t"),
                    rows(a, "SELECT name, statement, is_holdable, is_binary, is_scrollable, creation_time <= clock_timestamp() FROM pg_cursors ORDER BY name"));
            assertEquals(List.of(), rows(b, "SELECT name FROM pg_cursors"));
            a.commit();
            // The transaction's own cursor went with it; the one WITH HOLD stays until closed.
            assertEquals(List.of("c1"), rows(a, "SELECT name FROM pg_cursors"));
            s.execute("CLOSE c1");
            assertEquals(List.of(), rows(a, "SELECT name FROM pg_cursors"));
        }
    }

    /** Each row's columns joined by |, as text. */
    private static List<String> rows(Connection c, String sql) throws SQLException {
        List<String> result = new ArrayList<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            int columns = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                StringBuilder row = new StringBuilder();
                for (int i = 1; i <= columns; i++) {
                    row.append(i > 1 ? "|" : "").append(rs.getString(i));
                }
                result.add(row.toString());
            }
        }
        return result;
    }
}
