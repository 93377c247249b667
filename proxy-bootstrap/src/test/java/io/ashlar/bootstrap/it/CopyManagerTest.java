package io.ashlar.bootstrap.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.StringReader;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyManager;

/**
 * COPY FROM STDIN and COPY TO STDOUT through the proxy with pgjdbc's CopyManager (which always
 * uses the simple query protocol): bulk loads in text and CSV arrive whole, a dump is byte for
 * byte the server's own, and a bad row fails the COPY with the server's error while the session
 * goes on.
 *
 * @see <a href="https://www.postgresql.org/docs/current/protocol-flow.html#PROTOCOL-COPY">PostgreSQL: COPY Operations</a>
 * @see <a href="https://www.postgresql.org/docs/current/sql-copy.html">PostgreSQL: COPY</a>
 */
final class CopyManagerTest {

    private static final int ROWS = 10_000;

    private static ProxiedPostgres server;

    @BeforeAll
    static void start() throws Exception {
        server = ProxiedPostgres.start();
    }

    @AfterAll
    static void stop() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    private static void execute(Connection connection, String sql) throws SQLException {
        try (Statement s = connection.createStatement()) {
            s.execute(sql);
        }
    }

    private static String query(Connection connection, String sql) throws SQLException {
        try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            assertTrue(rs.next());
            return rs.getString(1);
        }
    }

    private static CopyManager copy(Connection connection) throws SQLException {
        return connection.unwrap(PGConnection.class).getCopyAPI();
    }

    @Test
    void copyInTextLoadsEveryRow() throws SQLException, IOException {
        StringBuilder data = new StringBuilder();
        for (int i = 1; i <= ROWS; i++) {
            data.append(i).append('\t').append("name ").append(i).append('\t')
                    .append(i % 7 == 0 ? "\\N" : "tab\\there \\\\ ü").append('\n');
        }
        try (Connection c = server.proxy("")) {
            execute(c, "CREATE TABLE copy_text (id int PRIMARY KEY, name text NOT NULL, note text)");
            assertEquals(ROWS, copy(c).copyIn("COPY copy_text FROM STDIN", new StringReader(data.toString())));
            assertEquals(ROWS + " " + (long) ROWS * (ROWS + 1) / 2 + " " + ROWS / 7,
                    query(c, "SELECT count(*) || ' ' || sum(id) || ' ' || count(*) FILTER (WHERE note IS NULL) FROM copy_text"));
            assertEquals("tab\there \\ ü", query(c, "SELECT note FROM copy_text WHERE id = 1"));
            assertEquals("name 10000", query(c, "SELECT name FROM copy_text WHERE id = 10000"));
        }
    }

    @Test
    void copyInCsvLoadsEveryRowWithQuotes() throws SQLException, IOException {
        StringBuilder data = new StringBuilder("id,name,amount\n");
        for (int i = 1; i <= ROWS; i++) {
            data.append(i).append(",\"name, \"\"").append(i).append("\"\"\",").append(i).append(".25\n");
        }
        try (Connection c = server.proxy("")) {
            execute(c, "CREATE TABLE copy_csv (id int PRIMARY KEY, name text, amount numeric(12, 2))");
            assertEquals(ROWS, copy(c).copyIn("COPY copy_csv (id, name, amount) FROM STDIN WITH (FORMAT csv, HEADER true)",
                    new StringReader(data.toString())));
            assertEquals(String.valueOf(ROWS), query(c, "SELECT count(*) FROM copy_csv"));
            assertEquals("name, \"77\"", query(c, "SELECT name FROM copy_csv WHERE id = 77"));
            assertEquals("50007500.00", query(c, "SELECT sum(amount) FROM copy_csv"));
        }
    }

    @Test
    void copyOutIsByteForByteTheServersInTextCsvAndBinary() throws SQLException, IOException {
        try (Connection direct = server.direct("")) {
            execute(direct, "CREATE TABLE copy_out (id int, name text, at timestamptz, data bytea, tags text[]);"
                    + " INSERT INTO copy_out SELECT g, 'n' || g || E'\\t\\\\', timestamptz '2024-01-01 00:00:00+00' + g * interval '1 hour',"
                    + " decode(lpad(to_hex(g), 8, '0'), 'hex'), ARRAY['a', NULL, g::text] FROM generate_series(1, " + ROWS + ") g;"
                    + " INSERT INTO copy_out VALUES (NULL, NULL, NULL, NULL, NULL)");
        }
        for (String sql : new String[] {
                "COPY copy_out TO STDOUT",
                "COPY (SELECT * FROM copy_out ORDER BY id) TO STDOUT WITH (FORMAT csv, HEADER true)",
                "COPY copy_out TO STDOUT WITH (FORMAT binary)"}) {
            byte[] expected = copyOut(server.direct(""), sql);
            byte[] actual = copyOut(server.proxy(""), sql);
            assertTrue(expected.length > ROWS * 10, sql);
            assertArrayEquals(expected, actual, sql);
        }
    }

    private static byte[] copyOut(Connection connection, String sql) throws SQLException, IOException {
        try (Connection c = connection) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            assertEquals(ROWS + 1, copy(c).copyOut(sql, out));
            return out.toByteArray();
        }
    }

    @Test
    void copyInWithBadRowFailsWith22P02AndTheSessionGoesOn() throws SQLException, IOException {
        try (Connection c = server.proxy("")) {
            execute(c, "CREATE TABLE copy_bad (id int PRIMARY KEY, name text)");
            StringBuilder data = new StringBuilder();
            for (int i = 1; i <= 1000; i++) {
                data.append(i == 500 ? "five hundred" : String.valueOf(i)).append("\tx\n");
            }
            SQLException e = assertThrows(SQLException.class,
                    () -> copy(c).copyIn("COPY copy_bad FROM STDIN", new StringReader(data.toString())));
            assertEquals("22P02", e.getSQLState(), () -> ResultDump.error(e));
            assertTrue(ResultDump.error(e).contains("where=COPY copy_bad, line 500, column id: \"five hundred\""),
                    () -> ResultDump.error(e));
            assertEquals("0", query(c, "SELECT count(*) FROM copy_bad"));
            assertEquals(3, copy(c).copyIn("COPY copy_bad FROM STDIN", new StringReader("1\ta\n2\tb\n3\tc\n")));
            assertEquals("3", query(c, "SELECT count(*) FROM copy_bad"));
        }
    }

    @Test
    void copyInsideTransactionIsRolledBackWithIt() throws SQLException, IOException {
        try (Connection c = server.proxy("")) {
            execute(c, "CREATE TABLE copy_tx (id int)");
            c.setAutoCommit(false);
            execute(c, "INSERT INTO copy_tx VALUES (0)");
            assertEquals(2, copy(c).copyIn("COPY copy_tx FROM STDIN", new StringReader("1\n2\n")));
            assertEquals("3", query(c, "SELECT count(*) FROM copy_tx"));
            c.rollback();
            assertEquals("0", query(c, "SELECT count(*) FROM copy_tx"));
            assertEquals(1, copy(c).copyIn("COPY copy_tx FROM STDIN", new StringReader("9\n")));
            c.commit();
            assertEquals("9", query(c, "SELECT string_agg(id::text, ',') FROM copy_tx"));
        }
    }
}
