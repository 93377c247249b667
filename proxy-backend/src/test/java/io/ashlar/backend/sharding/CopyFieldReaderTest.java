package io.ashlar.backend.sharding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** Sharding values read from one line of COPY data, as PostgreSQL reads fields and as an INSERT literal is typed. */
class CopyFieldReaderTest {

    private static final String TEXT = "COPY t FROM STDIN";
    private static final String CSV = "COPY t FROM STDIN WITH (FORMAT csv)";

    /** The values of the fields at {@code positions} (by column id); "SHORT" or "DEFAULT" when the reader says so. */
    private static Object[] read(String sql, String line, int... positions) throws SQLException {
        return read(sql, line, new boolean[positions.length], new boolean[positions.length], positions);
    }

    private static Object[] read(String sql, String line, boolean[] forceNull, boolean[] forceNotNull, int... positions)
            throws SQLException {
        CopyFieldReader reader = new CopyFieldReader(CopyOptionsTest.options(sql), positions, forceNull, forceNotNull);
        byte[] bytes = ("garbage" + line + "\ngarbage").getBytes(StandardCharsets.UTF_8);
        int start = "garbage".length();
        int end = start + line.getBytes(StandardCharsets.UTF_8).length;
        Object[] values = new Object[positions.length];
        Arrays.fill(values, "unset");
        return switch (reader.read(bytes, start, end, values)) {
            case CopyFieldReader.SHORT -> new Object[] {"SHORT"};
            case CopyFieldReader.DEFAULT -> new Object[] {"DEFAULT"};
            default -> values;
        };
    }

    private static Object one(String sql, String line, int position) throws SQLException {
        return read(sql, line, position)[0];
    }

    @Test
    void textFieldsByPosition() throws SQLException {
        assertEquals(5, one(TEXT, "5\tabc\t7", 0));
        assertEquals("abc", one(TEXT, "5\tabc\t7", 1));
        assertEquals(7, one(TEXT, "5\tabc\t7", 2));
        assertEquals(Arrays.asList(7, 5), Arrays.asList(read(TEXT, "5\tabc\t7", 2, 0)));
        assertEquals("", one(TEXT, "\t\t", 1));
    }

    /** A column the COPY's list leaves out (its key generated, or the row refused) has no field: its value is left as it was. */
    @Test
    void columnNotInTheLineIsLeftAlone() throws SQLException {
        assertEquals(Arrays.asList("unset", 7), Arrays.asList(read(TEXT, "5\tabc\t7", -1, 2)));
        assertEquals(Arrays.asList(5, "unset"), Arrays.asList(read(CSV, "5,abc,7", 0, -1)));
        assertEquals(Arrays.asList("unset"), Arrays.asList(read(TEXT, "5\tabc", -1)));
    }

    @Test
    void textEscapes() throws SQLException {
        assertEquals(51, one(TEXT, "a\\tb\t\\x35\\061", 1));
        assertEquals("a\tb", one(TEXT, "a\\tb\t\\x35\\061", 0));
        assertEquals("a\tb", one(TEXT, "a\\\tb\t7", 0));
        assertEquals(7, one(TEXT, "a\\\tb\t7", 1));
        assertEquals("\\N", one(TEXT, "\\\\N\t1", 0));
        assertEquals("x\b\f\n\r\u000b.", one(TEXT, "x\\b\\f\\n\\r\\v\\.", 0));
        assertEquals("x", one(TEXT, "\\x\t1", 0));
        assertEquals("A", one(TEXT, "\\x41\t1", 0));
        // Byte 0377 alone is no UTF-8: the value is text that routes as text, and the shard rejects the row.
        assertEquals("\ufffdz", one(TEXT, "\\377z", 0));
        assertEquals("é", one(TEXT, "\\303\\251", 0));
    }

    @Test
    void textNullIsTheRawMarker() throws SQLException {
        assertEquals(null, one(TEXT, "\\N\t5", 0));
        assertEquals(5, one(TEXT, "\\N\t5", 1));
        assertEquals(null, one("COPY t FROM STDIN (NULL '')", "\t5", 0));
        assertEquals("\\N", one("COPY t FROM STDIN (NULL '')", "\\\\N\t5", 0));
        assertEquals("N", one("COPY t FROM STDIN (NULL 'x')", "\\N\t5", 0));
    }

    @Test
    void shortLines() throws SQLException {
        assertEquals("SHORT", one(TEXT, "5", 1));
        assertEquals("SHORT", one(CSV, "\"5,6\"", 1));
        assertEquals(6, one(CSV, "5,6,7,8", 1));
    }

    @Test
    void valuesTypedAsInsertLiterals() throws SQLException {
        assertEquals(42, one(TEXT, " 42 ", 0));
        assertEquals(7, one(TEXT, "+7", 0));
        assertEquals(7, one(TEXT, "007", 0));
        assertEquals(-3, one(TEXT, "-3", 0));
        assertEquals(12345678901L, one(TEXT, "12345678901", 0));
        assertEquals(Long.MIN_VALUE, one(TEXT, "-9223372036854775808", 0));
        assertEquals(new BigInteger("123456789012345678901234"), one(TEXT, "123456789012345678901234", 0));
        assertEquals(Integer.class, one(TEXT, "2147483647", 0).getClass());
        assertEquals(Long.class, one(TEXT, "2147483648", 0).getClass());
        assertEquals(new BigDecimal("1.50"), one(TEXT, "1.50", 0));
        assertEquals(new BigDecimal("1e3"), one(TEXT, "1e3", 0));
        assertEquals(new BigDecimal(".5"), one(TEXT, ".5", 0));
        assertEquals("1.2.3", one(TEXT, "1.2.3", 0));
        assertEquals("abc", one(TEXT, "abc", 0));
        assertEquals("", one(TEXT, "", 0));
        assertEquals("-", one(TEXT, "-", 0));
        assertEquals("2024-01-02", one(TEXT, "2024-01-02", 0));
        assertEquals("жёлтый", one(TEXT, "жёлтый\t1", 0));
    }

    @Test
    void decimalText() {
        assertTrue(CopyFieldReader.isDecimal("1."));
        assertTrue(CopyFieldReader.isDecimal("-1.5E-3"));
        assertFalse(CopyFieldReader.isDecimal("."));
        assertFalse(CopyFieldReader.isDecimal("1e"));
        assertFalse(CopyFieldReader.isDecimal("NaN"));
        assertFalse(CopyFieldReader.isDecimal("1e1234567890"));
    }

    @Test
    void csvFields() throws SQLException {
        assertEquals(5, one(CSV, "\"5\",x", 0));
        assertEquals(7, one(CSV, "\"a,b\",7", 1));
        assertEquals("a,b", one(CSV, "\"a,b\",7", 0));
        assertEquals("a\"b", one(CSV, "\"a\"\"b\",7", 0));
        assertEquals("ab,c", one(CSV, "a\"b,\"c,7", 0));
        assertEquals(7, one(CSV, "a\"b,\"c,7", 1));
        assertEquals("a\nb", one(CSV, "\"a\nb\",7", 0));
        assertEquals("a\"b", one("COPY t FROM STDIN WITH (FORMAT csv, ESCAPE '\\')", "\"a\\\"b\",7", 0));
        assertEquals("a\\b", one(CSV, "\"a\\b\",7", 0));
        assertEquals(" 5 x", one(CSV, "\" 5 x\",7", 0));
        assertEquals(5, one(CSV, "\" 5 \",7", 0));
        assertEquals(5, one("COPY t FROM STDIN WITH (FORMAT csv, DELIMITER ';', QUOTE '''')", "x;'5'", 1));
    }

    @Test
    void csvNulls() throws SQLException {
        assertEquals(null, one(CSV, ",x", 0));
        assertEquals("", one(CSV, "\"\",x", 0));
        assertEquals(null, one(CSV, "x,", 1));
        assertEquals(null, one("COPY t FROM STDIN WITH (FORMAT csv, NULL 'NA')", "NA,x", 0));
        assertEquals("NA", one("COPY t FROM STDIN WITH (FORMAT csv, NULL 'NA')", "\"NA\",x", 0));
        boolean[] yes = {true};
        boolean[] no = {false};
        assertEquals("", read(CSV, ",x", no, yes, 0)[0]);
        assertEquals(null, read(CSV, "\"\",x", yes, no, 0)[0]);
        assertEquals(null, read("COPY t FROM STDIN WITH (FORMAT csv, NULL 'NA')", "\"NA\",x", yes, no, 0)[0]);
    }

    @Test
    void defaultMarker() throws SQLException {
        assertEquals("DEFAULT", one("COPY t FROM STDIN (DEFAULT '\\D')", "\\D\t1", 0));
        assertEquals(1, one("COPY t FROM STDIN (DEFAULT '\\D')", "\\D\t1", 1));
        assertEquals("DEFAULT", one("COPY t FROM STDIN (FORMAT csv, DEFAULT '-')", "-,1", 0));
        assertEquals("-", one("COPY t FROM STDIN (FORMAT csv, DEFAULT '-')", "\"-\",1", 0));
    }

    @Test
    void fieldsBeyondTheLastShardingColumnAreNotRead() throws SQLException {
        // An unterminated quote after the sharding column is the shard's to report.
        assertEquals(5, one(CSV, "5,\"abc", 0));
    }
}
