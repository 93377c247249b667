package io.ashlar.backend.sharding;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ashlar.backend.config.DataSourceConfig;
import io.ashlar.backend.datasource.BackendConnection;
import io.ashlar.backend.datasource.BackendDataSource;
import io.ashlar.backend.execute.BufferedResult;
import io.ashlar.backend.execute.ColumnDescription;
import io.ashlar.backend.execute.ErrorFields;
import io.ashlar.backend.execute.QueryResult;
import io.ashlar.backend.execute.RowValues;
import io.ashlar.backend.execute.StatementFailure;
import io.ashlar.parser.StatementAnalyzer;
import io.ashlar.parser.statement.AnalyzedStatement;
import io.ashlar.parser.statement.CopyStatement;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyOut;
import io.ashlar.backend.execute.BackendError;

/**
 * {@link MergedCopyOut} against PostgreSQL's own COPY TO: each case runs {@code COPY ... TO STDOUT} directly on
 * embedded PostgreSQL, and the same COPY through {@link MergedCopyOut} over the rows of its equivalent SELECT as the
 * backend sent them; the CopyData messages must be equal byte for byte, and the row counts too.
 */
class MergedCopyOutTest {

    /** Values that every escaping and quoting rule of COPY TO touches. */
    private static final String[] SAMPLES = {
        "plain", "tab\there", "line\nbreak", "cr\rreturn", "back\\slash", "quote\"inside", "comma,inside", null, "",
        "ünïcödé", "euro €", "\\.", "bell\u0007 and \b\f\u000b", "semi;colon", "|pipe|", "N", "\\N", "NULL", "'single'",
        "!bang!", "\u0001soh", " spaced ", "\"", "trailing\\",
    };

    private static EmbeddedPostgres postgres;
    private static Connection direct;
    private static BackendDataSource dataSource;
    private static BackendConnection backend;
    private static int majorVersion;

    @BeforeAll
    static void start() throws Exception {
        postgres = EmbeddedPostgres.builder().start();
        direct = postgres.getPostgresDatabase().getConnection();
        DatabaseMetaData meta = direct.getMetaData();
        majorVersion = meta.getDatabaseMajorVersion();
        try (Statement statement = direct.createStatement()) {
            statement.execute("CREATE TABLE samples (id INT PRIMARY KEY, a TEXT, b TEXT, n NUMERIC(10,2), arr TEXT[],"
                    + " doubled INT GENERATED ALWAYS AS (id * 2) STORED)");
        }
        try (PreparedStatement insert = direct.prepareStatement("INSERT INTO samples (id, a, b, n, arr) VALUES (?, ?, ?, ?, ?)")) {
            for (int i = 0; i < SAMPLES.length; i++) {
                insert.setInt(1, i);
                insert.setString(2, SAMPLES[i]);
                insert.setString(3, SAMPLES[SAMPLES.length - 1 - i]);
                insert.setBigDecimal(4, i % 3 == 0 ? null : new java.math.BigDecimal(i + ".5"));
                insert.setArray(5, direct.createArrayOf("text", new Object[] {SAMPLES[i], "x y", null}));
                insert.executeUpdate();
            }
        }
        String url = "jdbc:postgresql://localhost:" + postgres.getPort() + "/postgres";
        dataSource = BackendDataSource.open(DataSourceConfig.of("ds", url, "postgres", ""));
        backend = dataSource.borrow();
    }

    @AfterAll
    static void stop() throws Exception {
        if (backend != null) {
            backend.release();
        }
        if (dataSource != null) {
            dataSource.close();
        }
        if (direct != null) {
            direct.close();
        }
        postgres.close();
    }

    @Test
    void textFormatWithDefaults() throws Exception {
        same("COPY (SELECT id, a, b, n, arr FROM samples ORDER BY id) TO STDOUT");
    }

    @Test
    void textFormatWithOwnDelimiterAndNull() throws Exception {
        same("COPY (SELECT id, a, b FROM samples ORDER BY id) TO STDOUT (DELIMITER '|', NULL '')");
        same("COPY (SELECT id, a, b FROM samples ORDER BY id) TO STDOUT WITH DELIMITER AS ';' NULL AS 'NULL'");
    }

    @Test
    void textFormatWithControlCharacterDelimiter() throws Exception {
        same("COPY (SELECT id, a, b FROM samples ORDER BY id) TO STDOUT (DELIMITER E'\\x01')");
        same("COPY (SELECT id, a, b FROM samples ORDER BY id) TO STDOUT (DELIMITER E'\\x0b')");
    }

    @Test
    void textFormatWithHeader() throws Exception {
        String sql = "COPY (SELECT id, a AS \"tab\tname\", b AS \"back\\slash\" FROM samples ORDER BY id) TO STDOUT (HEADER)";
        if (majorVersion >= 15) {
            same(sql);
        } else {
            List<String> lines = ours(sql);
            assertEquals("id\ttab\\tname\tback\\\\slash\n", lines.get(0));
            assertEquals(SAMPLES.length + 1, lines.size());
        }
    }

    @Test
    void csvWithDefaults() throws Exception {
        same("COPY (SELECT id, a, b, n, arr FROM samples ORDER BY id) TO STDOUT (FORMAT csv)");
    }

    @Test
    void csvWithHeaderNeedingQuotes() throws Exception {
        same("COPY (SELECT id, a AS \"a,comma\", b AS \"quo\"\"te\", n AS plain FROM samples ORDER BY id) TO STDOUT (FORMAT csv, HEADER)");
        same("COPY (SELECT id, a, b FROM samples ORDER BY id) TO STDOUT WITH CSV HEADER");
    }

    @Test
    void csvWithOwnQuoteEscapeDelimiterAndNull() throws Exception {
        same("COPY (SELECT id, a, b FROM samples ORDER BY id) TO STDOUT (FORMAT csv, DELIMITER ';', QUOTE '|', ESCAPE '!', NULL 'NULL')");
        same("COPY (SELECT id, a, b FROM samples ORDER BY id) TO STDOUT (FORMAT csv, QUOTE '''', NULL 'N')");
        same("COPY (SELECT id, a, b FROM samples ORDER BY id) TO STDOUT (FORMAT csv, DELIMITER E'\\t', ESCAPE '\\')");
    }

    @Test
    void csvForceQuote() throws Exception {
        same("COPY (SELECT id, a, b, n FROM samples ORDER BY id) TO STDOUT (FORMAT csv, FORCE_QUOTE (a, n))");
        same("COPY (SELECT id, a, b, n FROM samples ORDER BY id) TO STDOUT (FORMAT csv, FORCE_QUOTE *)");
        same("COPY (SELECT id, a, b FROM samples ORDER BY id) TO STDOUT WITH CSV HEADER FORCE QUOTE b, id");
    }

    @Test
    void csvSingleColumnQuotesEndOfDataMarker() throws Exception {
        same("COPY (SELECT a FROM samples ORDER BY id) TO STDOUT (FORMAT csv)");
        same("COPY (SELECT b FROM samples ORDER BY id) TO STDOUT (FORMAT csv, NULL '\\N')");
    }

    @Test
    void otherEncodingIsConverted() throws Exception {
        same("COPY (SELECT id, a FROM samples WHERE id <> 10 ORDER BY id) TO STDOUT (ENCODING 'LATIN1')");
        same("COPY (SELECT id, a FROM samples WHERE id <> 10 ORDER BY id) TO STDOUT (FORMAT csv, ENCODING 'latin1')");
    }

    @Test
    void tableAndColumnListBecomeSelects() throws Exception {
        assertEquals("SELECT * FROM public.\"Samples\"", select("COPY public.\"Samples\" TO STDOUT"));
        assertEquals("SELECT \"A\", b FROM t", select("COPY t (\"A\", b) TO STDOUT (FORMAT csv)"));
        assertEquals("SELECT a FROM t ORDER BY 1", select("COPY (SELECT a FROM t ORDER BY 1) TO STDOUT"));
        assertThrows(IllegalArgumentException.class, () -> select("COPY t FROM STDIN"));
        sameSorted("COPY samples (a, id, arr) TO STDOUT (FORMAT csv, HEADER)");
    }

    @Test
    void binaryFormatIsRefused() {
        SQLException e = assertThrows(SQLException.class, () -> ours("COPY (SELECT id FROM samples) TO STDOUT (FORMAT binary)"));
        assertEquals("0A000", e.getSQLState());
        e = assertThrows(SQLException.class, () -> ours("COPY BINARY samples TO STDOUT"));
        assertEquals("0A000", e.getSQLState());
    }

    @Test
    void optionsOfCopyFromAreRefusedAsPostgresRefusesThem() throws Exception {
        sameError("COPY (SELECT id, a FROM samples) TO STDOUT (FORMAT csv, FORCE_NOT_NULL (a))");
        sameError("COPY (SELECT id, a FROM samples) TO STDOUT (FORMAT csv, FORCE_NULL (a))");
        sameError("COPY (SELECT id, a FROM samples) TO STDOUT (FORCE_QUOTE (a))");
        sameError("COPY (SELECT id, a FROM samples) TO STDOUT (FORMAT csv, FORCE_QUOTE (nosuch))");
        sameError("COPY samples (id) TO STDOUT (FORMAT csv, FORCE_QUOTE (a))");
    }

    @Test
    void failureWhileReadingEndsTheCopyWithTheShardsError() throws Exception {
        BufferedResult rows = run("SELECT id, a FROM samples ORDER BY id LIMIT 2");
        BufferedResult failed = new BufferedResult();
        backend.executeSimple("SELECT 1 / 0", failed);
        assertNotNull(failed.error());
        QueryResult failing = new FailingAfterRows(rows, new StatementFailure(ErrorFields.from(failed.error())));
        String sql = "COPY (SELECT id, a FROM samples ORDER BY id) TO STDOUT";
        MergedCopyOut copy = MergedCopyOut.open(sql, copyOf(sql), failing, io.ashlar.backend.execute.ClientEncoding.UTF8);
        assertArrayEquals("0\tplain\n".getBytes(StandardCharsets.UTF_8), copy.readFromCopy());
        assertArrayEquals("1\ttab\\there\n".getBytes(StandardCharsets.UTF_8), copy.readFromCopy());
        BackendError e = assertThrows(BackendError.class, copy::readFromCopy);
        assertEquals("22012", e.getSQLState());
        assertEquals("division by zero", e.fields().message());
        assertFalse(copy.isActive());
        assertNull(copy.readFromCopy());
        assertEquals(2, copy.getHandledRowCount());
    }

    // ------------------------------------------------------------------ helpers

    /** The COPY through MergedCopyOut gives PostgreSQL's messages, byte for byte, and its row count. */
    private static void same(String sql) throws Exception {
        List<byte[]> expectedBytes = new ArrayList<>();
        long expectedRows = theirsCopy(sql, expectedBytes);
        List<String> expected = new ArrayList<>();
        for (byte[] each : expectedBytes) {
            expected.add(new String(each, StandardCharsets.ISO_8859_1));
        }
        List<byte[]> actual = new ArrayList<>();
        long actualRows = oursBytes(sql, actual);
        List<String> actualText = new ArrayList<>();
        for (byte[] each : actual) {
            actualText.add(new String(each, StandardCharsets.ISO_8859_1));
        }
        assertEquals(expected, actualText, sql);
        assertEquals(expectedBytes.size(), actual.size(), sql);
        for (int i = 0; i < actual.size(); i++) {
            assertArrayEquals(expectedBytes.get(i), actual.get(i), sql + ", line " + i);
        }
        assertEquals(expectedRows, actualRows, sql);
    }

    /** As {@link #same} for a COPY of a table, whose row order is not fixed: the header first, then lines sorted. */
    private static void sameSorted(String sql) throws Exception {
        List<String> expected = new ArrayList<>();
        theirs(sql, expected);
        List<String> actual = ours(sql);
        assertEquals(expected.get(0), actual.get(0));
        List<String> sortedExpected = new ArrayList<>(expected.subList(1, expected.size()));
        List<String> sortedActual = new ArrayList<>(actual.subList(1, actual.size()));
        sortedExpected.sort(null);
        sortedActual.sort(null);
        assertEquals(sortedExpected, sortedActual, sql);
    }

    private static void sameError(String sql) throws Exception {
        SQLException theirs = assertThrows(SQLException.class, () -> theirs(sql, new ArrayList<>()));
        SQLException ours = assertThrows(SQLException.class, () -> ours(sql));
        assertEquals(theirs.getSQLState(), ours.getSQLState(), sql + ": " + theirs.getMessage() + " / " + ours.getMessage());
    }

    private static long theirs(String sql, List<String> lines) throws SQLException {
        List<byte[]> bytes = new ArrayList<>();
        long result = theirsCopy(sql, bytes);
        for (byte[] each : bytes) {
            lines.add(new String(each, StandardCharsets.ISO_8859_1));
        }
        return result;
    }

    private static long theirsCopy(String sql, List<byte[]> lines) throws SQLException {
        CopyOut copy = direct.unwrap(PGConnection.class).getCopyAPI().copyOut(sql);
        for (byte[] line = copy.readFromCopy(); line != null; line = copy.readFromCopy()) {
            lines.add(line);
        }
        return copy.getHandledRowCount();
    }

    private static List<String> ours(String sql) throws Exception {
        List<byte[]> bytes = new ArrayList<>();
        oursBytes(sql, bytes);
        List<String> result = new ArrayList<>();
        for (byte[] each : bytes) {
            result.add(new String(each, StandardCharsets.ISO_8859_1));
        }
        return result;
    }

    private static long oursBytes(String sql, List<byte[]> lines) throws Exception {
        AnalyzedStatement statement = StatementAnalyzer.analyze(sql);
        BufferedResult result = run(MergedCopyOut.equivalentSelect(statement));
        MergedCopyOut copy = MergedCopyOut.open(sql, (CopyStatement) statement.body(), result, io.ashlar.backend.execute.ClientEncoding.UTF8);
        assertEquals(result.columns().length, copy.getFieldCount());
        for (byte[] line = copy.readFromCopy(); line != null; line = copy.readFromCopy()) {
            lines.add(line);
        }
        assertFalse(copy.isActive());
        return copy.getHandledRowCount();
    }

    private static BufferedResult run(String select) throws SQLException {
        BufferedResult result = new BufferedResult();
        backend.executeSimple(select, result);
        if (result.error() != null) {
            throw result.error();
        }
        return result;
    }

    private static CopyStatement copyOf(String sql) {
        return (CopyStatement) StatementAnalyzer.analyze(sql).body();
    }

    private static String select(String sql) {
        return MergedCopyOut.equivalentSelect(StatementAnalyzer.analyze(sql));
    }

    /** A merged result whose shard fails after the rows it gave (as a shard's cursor does mid-stream). */
    private record FailingAfterRows(BufferedResult rows, StatementFailure failure) implements QueryResult {
        @Override
        public boolean hasRows() {
            return true;
        }

        @Override
        public ColumnDescription[] columns() {
            return rows.columns();
        }

        @Override
        public boolean next() throws StatementFailure {
            if (rows.next()) {
                return true;
            }
            throw failure;
        }

        @Override
        public RowValues row() {
            return rows.row();
        }

        @Override
        public String tag() {
            return "";
        }

        @Override
        public boolean isEmptyQuery() {
            return false;
        }

        @Override
        public List<ErrorFields> notices() {
            return List.of();
        }
    }
}
