package io.ashlar.bootstrap.sharding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyManager;
import org.postgresql.util.PSQLException;

/**
 * Issue 3's {@code COPY ... FROM STDIN into a sharded table: rows are split by shard key}: pgjdbc's CopyManager sends
 * 10,000 rows of t_order through the proxy (data source {@code user_id % 2}, table {@code order_id % 2}), and the same
 * data straight into the reference database. The shards, read directly, must then hold exactly the reference's rows,
 * each on the node the rules name; a COPY that fails on any row must leave no row on any shard.
 */
final class ShardedCopyTest {

    private static final int ROWS = 10_000;

    private static final String COLUMNS = "order_id, user_id, status, amount, discount, weight, rate, note, created_at";

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

    /** Runs a COPY FROM STDIN through the proxy and into the reference; both must copy {@code expected} rows. */
    private static void copyBoth(String sql, String data, long expected) throws SQLException, IOException {
        try (Connection proxy = databases.proxy(""); Connection reference = databases.reference("")) {
            assertEquals(expected, copy(reference, sql, data), "rows copied into the reference");
            assertEquals(expected, copy(proxy, sql, data), "rows copied through the proxy");
            try (Statement statement = proxy.createStatement(); ResultSet rs = statement.executeQuery("SELECT count(*) FROM t_order")) {
                assertTrue(rs.next());
                assertEquals(expected, rs.getLong(1), "count(*) through the proxy");
            }
        }
        databases.assertContents("t_order");
    }

    private static long copy(Connection connection, String sql, String data) throws SQLException, IOException {
        return connection.unwrap(PGConnection.class).getCopyAPI().copyIn(sql, new StringReader(data));
    }

    private static String text(int rows) {
        return text(rows, -1, -1);
    }

    /**
     * Rows in text format in the order of {@link #COLUMNS}: escapes, NULLs, tabs and newlines inside values.
     *
     * @param badAmount   the row whose amount is not a number, or -1
     * @param badUserId   the row whose user_id is negative (no data source takes it), or -1
     */
    private static String text(int rows, int badAmount, int badUserId) {
        StringBuilder result = new StringBuilder(rows * 80);
        for (int i = 0; i < rows; i++) {
            long orderId = 3L * i + 1;
            result.append(orderId).append('\t').append(i == badUserId ? -5 : i % 97).append('\t').append(status(i)).append('\t')
                    .append(i == badAmount ? "twelve" : i % 1000 + "." + i % 100).append('\t')
                    .append(i % 10 == 0 ? "\\N" : "0.0" + i % 7).append('\t')
                    .append(i % 8).append(".5\t").append(i % 4).append(".25\t")
                    .append(i % 3 == 0 ? "\\N" : "note " + i + (i % 5 == 0 ? " with\\ttab\\nand newline \\\\ backslash" : "")).append('\t')
                    .append("2024-0").append(1 + i % 9).append("-1").append(i % 10).append(" 0").append(i % 10).append(":3").append(i % 6)
                    .append(":00\n");
        }
        return result.toString();
    }

    /** The same rows in CSV with a header: quotes, doubled quotes, commas and newlines inside quoted values. */
    private static String csv(int rows) {
        StringBuilder result = new StringBuilder(rows * 80).append(COLUMNS.replace(" ", "")).append("\r\n");
        for (int i = 0; i < rows; i++) {
            long orderId = 3L * i + 1;
            result.append(orderId).append(',').append(i % 97).append(",\"").append(status(i)).append("\",")
                    .append(i % 1000).append('.').append(i % 100).append(',')
                    .append(i % 10 == 0 ? "" : "0.0" + i % 7).append(',')
                    .append(i % 8).append(".5,").append(i % 4).append(".25,")
                    .append(i % 3 == 0 ? "" : i % 5 == 0 ? "\"note " + i + ", \"\"quoted\"\"\r\nsecond line\"" : "note " + i).append(',')
                    .append("2024-0").append(1 + i % 9).append("-1").append(i % 10).append(" 0").append(i % 10).append(":3").append(i % 6)
                    .append(":00\r\n");
        }
        return result.toString();
    }

    private static String copyOut(Connection connection, String sql) throws SQLException, IOException {
        java.io.StringWriter out = new java.io.StringWriter();
        connection.unwrap(PGConnection.class).getCopyAPI().copyOut(sql, out);
        return out.toString();
    }

    /**
     * Issue 3's {@code COPY (SELECT ...) TO STDOUT over a sharded table streams the merged result}:
     * byte for byte what PostgreSQL writes, for an ordered query, a grouped one, and a whole table
     * in CSV with a header (compared as sorted lines: COPY of a table has no order).
     */
    @Test
    void copyToStdoutOfShardedRowsIsWhatPostgreSqlWrites() throws Exception {
        copyBoth("COPY t_order (" + COLUMNS + ") FROM STDIN", text(500), 500);
        try (Connection proxy = databases.proxy(""); Connection reference = databases.reference("")) {
            for (String sql : new String[] {
                    "COPY (SELECT * FROM t_order ORDER BY order_id) TO STDOUT",
                    "COPY (SELECT user_id, count(*), sum(amount) FROM t_order GROUP BY user_id ORDER BY user_id) TO STDOUT (FORMAT csv)",
                    "COPY (SELECT order_id, note FROM t_order WHERE user_id IN (1, 2, 3) ORDER BY order_id DESC LIMIT 20) TO STDOUT"}) {
                assertEquals(copyOut(reference, sql), copyOut(proxy, sql), sql);
            }
            String whole = "COPY t_order (order_id, user_id, note) TO STDOUT (FORMAT csv, HEADER)";
            String[] expected = copyOut(reference, whole).split("\n");
            String[] actual = copyOut(proxy, whole).split("\n");
            assertEquals(expected[0], actual[0], "the header comes first");
            java.util.Arrays.sort(expected, 1, expected.length);
            java.util.Arrays.sort(actual, 1, actual.length);
            assertEquals(java.util.Arrays.asList(expected), java.util.Arrays.asList(actual), whole);
        }
    }

    private static String status(int i) {
        return switch (i % 3) {
            case 0 -> "NEW";
            case 1 -> "PAID";
            default -> "SHIPPED";
        };
    }

    @Test
    void textRowsAreSplitByShardKey() throws Exception {
        copyBoth("COPY t_order (" + COLUMNS + ") FROM STDIN", text(ROWS), ROWS);
    }

    @Test
    void csvRowsWithHeaderAreSplitByShardKey() throws Exception {
        copyBoth("COPY t_order FROM STDIN WITH (FORMAT csv, HEADER true)", csv(ROWS), ROWS);
    }

    @Test
    void legacyCsvSyntax() throws Exception {
        copyBoth("COPY t_order (" + COLUMNS + ") FROM STDIN WITH CSV HEADER", csv(500), 500);
    }

    @Test
    void badValueFailsTheWholeCopy() throws Exception {
        String data = text(ROWS, 6000, -1);
        String sql = "COPY t_order (" + COLUMNS + ") FROM STDIN";
        try (Connection proxy = databases.proxy(""); Connection reference = databases.reference("")) {
            PSQLException direct = assertThrows(PSQLException.class, () -> copy(reference, sql, data));
            PSQLException proxied = assertThrows(PSQLException.class, () -> copy(proxy, sql, data));
            assertEquals("22P02", direct.getSQLState());
            assertEquals(direct.getSQLState(), proxied.getSQLState(), proxied.getMessage());
            assertEquals(0, count(proxy), "rows left after a failed COPY");
        }
        databases.assertContents("t_order");
    }

    @Test
    void unroutableRowFailsTheWholeCopy() throws Exception {
        // INLINE ds_${user_id % 2} names no data source for a negative user_id.
        String data = text(ROWS, -1, 7000);
        try (Connection proxy = databases.proxy("")) {
            PSQLException e = assertThrows(PSQLException.class, () -> copy(proxy, "COPY t_order (" + COLUMNS + ") FROM STDIN", data));
            assertEquals("22023", e.getSQLState(), e.getMessage());
            assertEquals("COPY t_order, line 7001", e.getServerErrorMessage().getWhere());
            assertEquals(0, count(proxy), "rows left after a failed COPY");
        }
        databases.assertContents("t_order");
    }

    /**
     * A sharding value that is no number in a number column ('x' for user_id) fails the COPY as PostgreSQL's own COPY
     * does: 22P02 naming the type, the line, the column and the value (it was 22023 with the algorithm's reason, and
     * 0A000 "whose strategies ... do not pick one data node" before that).
     */
    @Test
    void shardingValueThatIsNoNumberFailsTheCopyAsOnPostgresql() throws Exception {
        String rows = text(3);
        String[] lines = rows.split("\n", -1);
        String[] fields = lines[1].split("\t", -1);
        fields[1] = "x";
        lines[1] = String.join("\t", fields);
        String data = String.join("\n", lines);
        String sql = "COPY t_order (" + COLUMNS + ") FROM STDIN";
        try (Connection proxy = databases.proxy(""); Connection reference = databases.reference("")) {
            PSQLException direct = assertThrows(PSQLException.class, () -> copy(reference, sql, data));
            PSQLException proxied = assertThrows(PSQLException.class, () -> copy(proxy, sql, data));
            assertEquals("22P02", direct.getSQLState(), direct.getMessage());
            assertEquals(direct.getSQLState(), proxied.getSQLState(), proxied.getMessage());
            assertEquals(direct.getServerErrorMessage().getMessage(), proxied.getServerErrorMessage().getMessage());
            assertEquals(direct.getServerErrorMessage().getWhere(), proxied.getServerErrorMessage().getWhere());
            assertEquals(0, count(proxy), "rows left after a failed COPY");
        }
        databases.assertContents("t_order");
    }

    /**
     * A column list without a sharding column that has no key generator (t_order_item.order_id, NOT NULL): the COPY
     * starts, the client's data is read, and each row fails as on PostgreSQL, 23502; no row makes none fail. It was
     * refused (0A000) before CopyInResponse, so that a client sending its data after the statement had it read as
     * statements.
     */
    @Test
    void columnListWithoutShardingColumnFailsTheRowsAsOnPostgresql() throws Exception {
        databases.truncate("t_order_item");
        String sql = "COPY t_order_item (order_item_id, user_id, product_id) FROM STDIN";
        String data = "7\t2\t3\n8\t5\t6\n";
        try (Connection proxy = databases.proxy(""); Connection reference = databases.reference("")) {
            PSQLException direct = assertThrows(PSQLException.class, () -> copy(reference, sql, data));
            PSQLException proxied = assertThrows(PSQLException.class, () -> copy(proxy, sql, data));
            assertEquals("23502", direct.getSQLState(), direct.getMessage());
            assertEquals(direct.getSQLState(), proxied.getSQLState(), proxied.getMessage());
            assertEquals(direct.getServerErrorMessage().getMessage(), proxied.getServerErrorMessage().getMessage());
            assertEquals(0, copy(reference, sql, ""), "no rows on PostgreSQL");
            assertEquals(0, copy(proxy, sql, ""), "no rows through the proxy");
            try (Statement statement = proxy.createStatement(); ResultSet rs = statement.executeQuery("SELECT count(*) FROM t_order_item")) {
                assertTrue(rs.next());
                assertEquals(0, rs.getLong(1), "rows after the failed COPY");
            }
        }
        databases.assertContents("t_order_item");
    }

    /**
     * psql running a script: the data lines after a COPY FROM stdin whose column list leaves out the sharding column
     * are COPY data, never statements, and the script goes on after the error as it does on PostgreSQL.
     */
    @Test
    void psqlScriptCopyWithoutShardingColumnReadsItsDataAsData(@TempDir Path directory) throws Exception {
        databases.truncate("t_order_item");
        Path psql = Path.of("/usr/bin/psql");
        assertTrue(Files.isExecutable(psql), psql + " is needed by this test: install the PostgreSQL client (apt-get install postgresql-client)");
        Path script = directory.resolve("copy.sql");
        // Read as a statement, the data line would insert a row.
        Files.writeString(script, """
                COPY t_order_item (order_item_id, user_id, product_id) FROM stdin;
                7\t2\t3
                INSERT INTO t_order_item (order_item_id, order_id, user_id) VALUES (1, 1, 1);
                \\.
                SELECT 'after the copy' AS marker, count(*) AS items FROM t_order_item;
                """);
        String[] reference = psql(psql, script, directory, "reference", databases.backendPort(), "postgres", "", ShardedDatabases.REFERENCE);
        String[] proxied = psql(psql, script, directory, "proxy", databases.proxyPort(), "root", "root", ShardedDatabases.LOGICAL_DATABASE);
        assertEquals(reference[0], proxied[0], "psql's output through the proxy (actual) and on PostgreSQL (expected)");
        assertTrue(reference[1].contains("ERROR:  null value in column \"order_id\""), reference[1]);
        assertEquals(errorLines(reference[1]), errorLines(proxied[1]), "psql's errors through the proxy and on PostgreSQL");
        databases.assertContents("t_order_item");
    }

    /** Runs psql on a script: its output and its errors. */
    private static String[] psql(Path psql, Path script, Path directory, String name, int port, String user, String password, String database)
            throws IOException, InterruptedException {
        ProcessBuilder builder = new ProcessBuilder(psql.toString(), "-X", "-A", "-h", "127.0.0.1", "-p", String.valueOf(port), "-U", user,
                "-d", database, "-f", script.toString());
        builder.environment().keySet().removeIf(key -> key.startsWith("PG"));
        builder.environment().put("PGPASSWORD", password);
        builder.environment().put("PGCONNECT_TIMEOUT", "10");
        builder.environment().put("LC_ALL", "C.UTF-8");
        Path out = directory.resolve(name + ".out");
        Path err = directory.resolve(name + ".err");
        builder.redirectOutput(out.toFile());
        builder.redirectError(err.toFile());
        Process process = builder.start();
        if (!process.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor();
            throw new AssertionError("psql did not finish in 60 s: " + Files.readString(out) + Files.readString(err));
        }
        return new String[] {Files.readString(out), Files.readString(err)};
    }

    /** psql's error lines ({@code psql:FILE:LINE: ERROR: ...}), without PostgreSQL's DETAIL and CONTEXT. */
    private static List<String> errorLines(String stderr) {
        List<String> result = new java.util.ArrayList<>();
        for (String each : stderr.split("\n")) {
            if (each.startsWith("psql:")) {
                result.add(each);
            }
        }
        return result;
    }

    /**
     * A column list without the generated key column (t_order.order_id, sharding column of the table strategy): as an
     * INSERT that leaves it out, each row gets a key from the key generator and lands where that key puts it, in text
     * and in CSV with a header.
     */
    @Test
    void columnListWithoutGeneratedKeyColumnGetsKeysAsInsertDoes() throws Exception {
        StringBuilder text = new StringBuilder();
        StringBuilder csv = new StringBuilder("user_id,status\r\n");
        for (int i = 0; i < 200; i++) {
            text.append(i % 7).append("\tnew ").append(i).append('\n');
            csv.append(i % 5).append(",\"paid, ").append(i).append("\"\r\n");
        }
        try (Connection proxy = databases.proxy("")) {
            assertEquals(200, copy(proxy, "COPY t_order (user_id, status) FROM STDIN", text.toString()));
            assertEquals(200, copy(proxy, "COPY t_order (user_id, status) FROM STDIN (FORMAT csv, HEADER true)", csv.toString()));
            try (Statement statement = proxy.createStatement()) {
                try (ResultSet rs = statement.executeQuery("SELECT count(*), count(DISTINCT order_id), count(*) FILTER (WHERE status LIKE 'paid, %')"
                        + " FROM t_order")) {
                    assertTrue(rs.next());
                    assertEquals(400, rs.getLong(1));
                    assertEquals(400, rs.getLong(2), "each row its own key");
                    assertEquals(200, rs.getLong(3), "the CSV rows");
                }
                // The reference gets the rows with the keys the proxy generated: the shards must hold each where the rules put it.
                try (Connection reference = databases.reference(""); Statement direct = reference.createStatement();
                     ResultSet rs = statement.executeQuery("SELECT order_id, user_id, status FROM t_order")) {
                    while (rs.next()) {
                        direct.execute("INSERT INTO t_order (order_id, user_id, status) VALUES (" + rs.getLong(1) + ", " + rs.getInt(2) + ", '"
                                + rs.getString(3) + "')");
                    }
                }
            }
        }
        databases.assertContents("t_order");
    }

    @Test
    void copyInsideATransactionIsRolledBackWithIt() throws Exception {
        try (Connection proxy = databases.proxy("")) {
            proxy.setAutoCommit(false);
            assertEquals(1000, copy(proxy, "COPY t_order (" + COLUMNS + ") FROM STDIN", text(1000)));
            assertEquals(1000, count(proxy), "rows seen inside the transaction");
            proxy.rollback();
            assertEquals(0, count(proxy), "rows left after ROLLBACK");
            assertEquals(1000, copy(proxy, "COPY t_order (" + COLUMNS + ") FROM STDIN", text(1000)));
            proxy.commit();
        }
        try (Connection reference = databases.reference("")) {
            copy(reference, "COPY t_order (" + COLUMNS + ") FROM STDIN", text(1000));
        }
        databases.assertContents("t_order");
    }

    /**
     * A COPY of a server-side file (BenchmarkSQL 5.0's optional tableCopies.sql loads its CSV files so): each actual
     * table would load the whole file, rows landing on nodes the rules do not name, once per node. Refused, like
     * COPY TO a file, where every node would write the same path; nothing is loaded, and the session goes on.
     */
    @Test
    void copyOfAServerSideFileIsRefused(@TempDir Path directory) throws Exception {
        Path file = directory.resolve("orders.csv");
        Files.writeString(file, "1,2,NEW,1.5,,1.0,1.0,n,2024-01-01 00:00:00\n4,3,NEW,1.5,,1.0,1.0,n,2024-01-01 00:00:00\n");
        assertTrue(file.toFile().setReadable(true, false) && directory.toFile().setExecutable(true, false));
        try (Connection proxy = databases.proxy("")) {
            proxy.setAutoCommit(true);
            try (Statement statement = proxy.createStatement()) {
                for (String sql : List.of("COPY t_order (" + COLUMNS + ") FROM '" + file + "' WITH CSV",
                        "COPY t_order FROM PROGRAM 'cat " + file + "' WITH CSV", "COPY t_order TO '" + directory.resolve("out.csv") + "'")) {
                    SQLException e = assertThrows(SQLException.class, () -> statement.execute(sql), sql);
                    assertEquals("0A000", e.getSQLState(), e.getMessage());
                    assertTrue(e.getMessage().contains("server-side file"), e.getMessage());
                }
                assertEquals(0, count(proxy));
                assertFalse(Files.exists(directory.resolve("out.csv")));
            }
            assertEquals(2, copy(proxy, "COPY t_order (" + COLUMNS + ") FROM STDIN WITH CSV", Files.readString(file)));
        }
        try (Connection reference = databases.reference("")) {
            reference.setAutoCommit(true);
            copy(reference, "COPY t_order (" + COLUMNS + ") FROM STDIN WITH CSV", Files.readString(file));
        }
        databases.assertContents("t_order");
    }

    /**
     * COPY FROM STDIN into a broadcast table gives every data source's copy every row (it was refused: "spans several
     * shards"), in text, CSV and binary (the data is forwarded unchanged, so binary needs no types); a row that fails on
     * a copy leaves no row on any, in one transaction over both data sources.
     */
    @Test
    void copyIntoABroadcastTableFillsEveryCopy() throws Exception {
        databases.truncate("t_dict");
        StringBuilder text = new StringBuilder();
        StringBuilder csv = new StringBuilder("code,label,rank\r\n");
        for (int i = 0; i < 2_000; i++) {
            text.append("c").append(i).append('\t').append(i % 3 == 0 ? "tab\\there" : "label " + i).append('\t')
                    .append(i % 10 == 0 ? "\\N" : Integer.toString(i)).append('\n');
            csv.append("k").append(i).append(",\"quoted, \"\"").append(i).append("\"\"\",").append(i % 7 == 0 ? "" : Integer.toString(-i))
                    .append("\r\n");
        }
        try (Connection proxy = databases.proxy(""); Connection reference = databases.reference("")) {
            proxy.setAutoCommit(true);
            reference.setAutoCommit(true);
            try (Statement statement = reference.createStatement()) {
                statement.execute("TRUNCATE t_dict");
            }
            for (Connection each : List.of(reference, proxy)) {
                assertEquals(2_000, copy(each, "COPY t_dict (code, label, rank) FROM STDIN", text.toString()));
                assertEquals(2_000, copy(each, "COPY t_dict FROM STDIN WITH (FORMAT csv, HEADER true)", csv.toString()));
            }
            databases.assertContents("t_dict");

            // Binary, as pg_dump -Fc and psycopg's binary copy send it: taken from the reference, loaded through the proxy.
            java.io.ByteArrayOutputStream binary = new java.io.ByteArrayOutputStream();
            reference.unwrap(PGConnection.class).getCopyAPI().copyOut("COPY t_dict TO STDOUT (FORMAT binary)", binary);
            try (Statement statement = proxy.createStatement()) {
                statement.execute("TRUNCATE t_dict"); // through the proxy: both copies, the reference keeps its rows
            }
            assertEquals(4_000, proxy.unwrap(PGConnection.class).getCopyAPI().copyIn("COPY t_dict FROM STDIN (FORMAT binary)",
                    new java.io.ByteArrayInputStream(binary.toByteArray())));
            databases.assertContents("t_dict");

            // A duplicate key fails the COPY on every copy: nothing of it stays anywhere.
            SQLException duplicate = assertThrows(SQLException.class,
                    () -> copy(proxy, "COPY t_dict (code, label, rank) FROM STDIN", "new1\tfresh\t1\nc5\tagain\t5\n"));
            assertEquals("23505", duplicate.getSQLState(), duplicate.getMessage());
            // In the client's transaction, rolled back: neither copy keeps the rows.
            proxy.setAutoCommit(false);
            assertEquals(1, copy(proxy, "COPY t_dict (code, label, rank) FROM STDIN", "new2\tfresh\t2\n"));
            proxy.rollback();
            proxy.setAutoCommit(true);
            databases.assertContents("t_dict");
            try (Statement statement = proxy.createStatement();
                    ResultSet rs = statement.executeQuery("SELECT count(*) FROM t_dict WHERE code LIKE 'new%'")) {
                assertTrue(rs.next());
                assertEquals(0, rs.getLong(1));
            }
        }
    }

    /**
     * COPY FROM STDIN in binary format into a sharded table (asyncpg's copy_records_to_table and psycopg's binary copy
     * send it; it was refused): each tuple goes to the node its sharding values, read as binary values of the columns'
     * types, name, byte for byte; with and without a column list. The data is what PostgreSQL itself writes.
     */
    @Test
    void binaryCopyIntoAShardedTableSplitsTuplesByShard() throws Exception {
        try (Connection proxy = databases.proxy(""); Connection reference = databases.reference("")) {
            proxy.setAutoCommit(true);
            reference.setAutoCommit(true);
            assertEquals(3_000, copy(reference, "COPY t_order (" + COLUMNS + ") FROM STDIN", text(3_000)));
            byte[] whole = copyOutBinary(reference, "COPY t_order TO STDOUT (FORMAT binary)");
            assertEquals(3_000, copyInBinary(proxy, "COPY t_order FROM STDIN (FORMAT binary)", whole));
            databases.assertContents("t_order");

            // A column list in another order; the sharding columns last.
            String reordered = "note, created_at, status, amount, discount, weight, rate, user_id, order_id";
            byte[] listed = copyOutBinary(reference, "COPY t_order (" + reordered + ") TO STDOUT (FORMAT binary)");
            try (Statement statement = proxy.createStatement()) {
                statement.execute("TRUNCATE t_order");
            }
            assertEquals(3_000, copyInBinary(proxy, "COPY t_order (" + reordered + ") FROM STDIN WITH (FORMAT binary)", listed));
            databases.assertContents("t_order");

            // What is not COPY's binary format gets PostgreSQL's error, and nothing is loaded.
            SQLException bad = assertThrows(SQLException.class, () -> copyInBinary(proxy, "COPY t_order FROM STDIN (FORMAT binary)",
                    "not a binary copy file at all".getBytes(java.nio.charset.StandardCharsets.US_ASCII)));
            assertEquals("22P04", bad.getSQLState(), bad.getMessage());
            assertTrue(bad.getMessage().contains("COPY file signature not recognized"), bad.getMessage());
            // A duplicate key on one shard: no row of the COPY stays on any.
            byte[] again = java.util.Arrays.copyOf(whole, whole.length);
            try (Statement statement = proxy.createStatement()) {
                statement.execute("DELETE FROM t_order WHERE order_id > 4000");
            }
            try (Statement statement = reference.createStatement()) {
                statement.execute("DELETE FROM t_order WHERE order_id > 4000");
            }
            SQLException duplicate = assertThrows(SQLException.class, () -> copyInBinary(proxy, "COPY t_order FROM STDIN (FORMAT binary)", again));
            assertEquals("23505", duplicate.getSQLState(), duplicate.getMessage());
            databases.assertContents("t_order");
        }
    }

    /**
     * COPY TO STDOUT (FORMAT binary) over several shards (asyncpg's copy_from_table and psycopg's binary copy read it;
     * it was refused): one file of the shards' own tuples, the header once and one trailer: the same tuples as
     * PostgreSQL writes, in shard order. A query whose rows would need merging is still refused.
     */
    @Test
    void binaryCopyOutOfShardedRowsHasPostgresqlsTuples() throws Exception {
        copyBoth("COPY t_order (" + COLUMNS + ") FROM STDIN", text(1_500), 1_500);
        try (Connection proxy = databases.proxy(""); Connection reference = databases.reference("")) {
            for (String sql : List.of("COPY t_order TO STDOUT (FORMAT binary)",
                    "COPY t_order (order_id, note, amount) TO STDOUT WITH (FORMAT binary)",
                    "COPY (SELECT order_id, created_at, weight FROM t_order WHERE user_id IN (3, 4, 9)) TO STDOUT (FORMAT binary)",
                    "COPY (SELECT * FROM t_order WHERE order_id < 0) TO STDOUT (FORMAT binary)")) {
                byte[] expected = copyOutBinary(reference, sql);
                byte[] actual = copyOutBinary(proxy, sql);
                assertEquals(java.util.Arrays.toString(java.util.Arrays.copyOf(expected, 19)),
                        java.util.Arrays.toString(java.util.Arrays.copyOf(actual, 19)), sql + ": header");
                assertEquals(tuples(expected), tuples(actual), sql);
            }
            SQLException merged = assertThrows(SQLException.class,
                    () -> copyOutBinary(proxy, "COPY (SELECT * FROM t_order ORDER BY order_id) TO STDOUT (FORMAT binary)"));
            assertEquals("0A000", merged.getSQLState(), merged.getMessage());
        }
    }

    /** A binary COPY file's tuples, as hex, sorted; checks its trailer. */
    private static List<String> tuples(byte[] file) {
        java.nio.ByteBuffer in = java.nio.ByteBuffer.wrap(file);
        in.position(15);
        in.position(19 + in.getInt());
        List<String> result = new java.util.ArrayList<>();
        while (true) {
            int start = in.position();
            short fields = in.getShort();
            if (fields == -1) {
                assertEquals(file.length, in.position(), "nothing after the trailer");
                break;
            }
            for (int i = 0; i < fields; i++) {
                int length = in.getInt();
                in.position(in.position() + Math.max(length, 0));
            }
            result.add(java.util.HexFormat.of().formatHex(file, start, in.position()));
        }
        java.util.Collections.sort(result);
        return result;
    }

    private static byte[] copyOutBinary(Connection connection, String sql) throws SQLException, IOException {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        connection.unwrap(PGConnection.class).getCopyAPI().copyOut(sql, out);
        return out.toByteArray();
    }

    private static long copyInBinary(Connection connection, String sql, byte[] data) throws SQLException, IOException {
        return connection.unwrap(PGConnection.class).getCopyAPI().copyIn(sql, new java.io.ByteArrayInputStream(data), 1000);
    }

    private static long count(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement(); ResultSet rs = statement.executeQuery("SELECT count(*) FROM t_order")) {
            assertTrue(rs.next());
            return rs.getLong(1);
        }
    }
}
