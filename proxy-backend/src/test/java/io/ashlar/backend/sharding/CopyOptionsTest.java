package io.ashlar.backend.sharding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ashlar.parser.StatementAnalyzer;
import io.ashlar.parser.statement.AnalyzedStatement;
import io.ashlar.parser.statement.CopyStatement;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/** COPY options read from the statement text, in the three syntaxes PostgreSQL still accepts. */
class CopyOptionsTest {

    static CopyOptions options(String sql) throws SQLException {
        AnalyzedStatement statement = StatementAnalyzer.analyze(sql);
        return CopyOptions.parse(sql, (CopyStatement) statement.body(), "UTF8");
    }

    @Test
    void defaultsOfTextFormat() throws SQLException {
        assertEquals("TEXT delimiter=\\t null=\\N charset=UTF-8", options("COPY t FROM STDIN").toString());
        assertEquals("TEXT delimiter=\\t null=\\N charset=UTF-8", options("copy t (a, b) from stdin;").toString());
    }

    @Test
    void defaultsOfCsvFormat() throws SQLException {
        assertEquals("CSV delimiter=, null= quote=\" escape=\" charset=UTF-8", options("COPY t FROM STDIN WITH (FORMAT csv)").toString());
        assertEquals("CSV delimiter=, null= quote=\" escape=\" charset=UTF-8", options("COPY t FROM STDIN (FORMAT 'csv')").toString());
        assertEquals("CSV delimiter=, null= quote=\" escape=\" charset=UTF-8", options("COPY t FROM STDIN CSV").toString());
    }

    @Test
    void genericOptionList() throws SQLException {
        assertEquals("CSV delimiter=; null=NA quote=' escape=\\ header charset=UTF-8",
                options("COPY t FROM STDIN WITH (FORMAT csv, HEADER true, DELIMITER ';', NULL 'NA', QUOTE '''', ESCAPE '\\')").toString());
        assertEquals("TEXT delimiter=| null= default=\\D charset=ISO-8859-1",
                options("COPY t FROM STDIN (DELIMITER E'|', NULL '', DEFAULT '\\D', ENCODING 'latin1', FREEZE)").toString());
        assertEquals("TEXT delimiter=\\t null=\\N charset=windows-1252",
                options("COPY t FROM STDIN (DELIMITER E'\\t', ENCODING 'WIN-1252')").toString());
    }

    @Test
    void headerValues() throws SQLException {
        assertTrue(options("COPY t FROM STDIN (FORMAT csv, HEADER)").header());
        assertTrue(options("COPY t FROM STDIN (FORMAT csv, HEADER match)").header());
        assertTrue(options("COPY t FROM STDIN (FORMAT csv, HEADER 1)").header());
        assertTrue(options("COPY t FROM STDIN (HEADER on)").header());
        assertFalse(options("COPY t FROM STDIN (FORMAT csv, HEADER false)").header());
        assertFalse(options("COPY t FROM STDIN (FORMAT csv, HEADER off)").header());
    }

    @Test
    void legacyWordList() throws SQLException {
        assertEquals("CSV delimiter=; null= quote=\" escape=\" header charset=UTF-8 forceNotNull=a,b",
                options("COPY t (a, b) FROM STDIN WITH CSV HEADER DELIMITER AS ';' NULL AS '' FORCE NOT NULL a, b").toString());
        assertEquals("CSV delimiter=, null= quote=' escape=\\ charset=UTF-8 forceNull=a",
                options("COPY t FROM STDIN CSV QUOTE AS '''' ESCAPE '\\' FORCE NULL a FORCE QUOTE b").toString());
        assertEquals("TEXT delimiter=, null=\\N charset=UTF-8", options("COPY t FROM STDIN DELIMITER ','").toString());
        assertEquals("TEXT delimiter=| null=\\N charset=UTF-8", options("COPY t FROM STDIN USING DELIMITERS '|'").toString());
        assertEquals("TEXT delimiter=| null=- charset=UTF-8", options("COPY t FROM STDIN USING DELIMITERS '|' WITH NULL AS '-'").toString());
    }

    @Test
    void forcedColumnsAreMatchedIgnoringCase() throws SQLException {
        CopyOptions options = options("COPY t FROM STDIN WITH (FORMAT csv, FORCE_NULL (a, \"B\"), FORCE_NOT_NULL *)");
        assertTrue(options.forceNull("a"));
        assertTrue(options.forceNull("b"));
        assertFalse(options.forceNull("c"));
        assertTrue(options.forceNotNull("anything"));
    }

    @Test
    void whereClauseIsNotAnOption() throws SQLException {
        assertEquals("CSV delimiter=, null= quote=\" escape=\" charset=UTF-8", options("COPY t FROM STDIN (FORMAT csv) WHERE a > 1").toString());
        assertEquals("CSV delimiter=, null= quote=\" escape=\" charset=UTF-8", options("COPY t FROM STDIN CSV WHERE a > 1").toString());
    }

    @Test
    void binaryInEverySyntax() throws SQLException {
        assertEquals(CopyOptions.Format.BINARY, options("COPY BINARY t FROM STDIN").format());
        assertEquals(CopyOptions.Format.BINARY, options("COPY t FROM STDIN WITH BINARY").format());
        assertEquals(CopyOptions.Format.BINARY, options("COPY t FROM STDIN (FORMAT binary)").format());
    }

    @Test
    void clientEncodingAppliesWithoutEncodingOption() throws SQLException {
        AnalyzedStatement statement = StatementAnalyzer.analyze("COPY t FROM STDIN");
        assertEquals("ISO-8859-1", CopyOptions.parse(statement.sql(), (CopyStatement) statement.body(), "LATIN1").charset().name());
        SQLException e = assertThrows(SQLException.class,
                () -> CopyOptions.parse(statement.sql(), (CopyStatement) statement.body(), "SJIS"));
        assertEquals("0A000", e.getSQLState());
    }

    @Test
    void refusals() {
        assertEquals("0A000", assertThrows(SQLException.class, () -> options("COPY t FROM STDIN (DELIMITER ';;')")).getSQLState());
        assertEquals("0A000", assertThrows(SQLException.class, () -> options("COPY t FROM STDIN (FORMAT csv, ENCODING 'big5')")).getSQLState());
        assertEquals("22023", assertThrows(SQLException.class, () -> options("COPY t FROM STDIN (FORMAT xml)")).getSQLState());
        assertEquals("22023", assertThrows(SQLException.class, () -> options("COPY t FROM STDIN (HEADER maybe)")).getSQLState());
        assertEquals("42601", assertThrows(SQLException.class, () -> options("COPY t FROM STDIN WITH CSV BANANA")).getSQLState());
    }
}
