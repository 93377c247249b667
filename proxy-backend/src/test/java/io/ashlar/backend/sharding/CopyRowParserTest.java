package io.ashlar.backend.sharding;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import io.ashlar.backend.execute.BackendError;

/**
 * Lines of COPY data as PostgreSQL's {@code CopyReadLineText} finds them. Every case is also fed in two messages split
 * at every byte, and one byte per message: the lines must not depend on where CopyData messages end.
 */
class CopyRowParserTest {

    private static final String TEXT = "COPY t FROM STDIN";
    private static final String CSV = "COPY t FROM STDIN WITH (FORMAT csv)";

    /** Parses {@code data} whole, split in two at every position and byte by byte; all must agree. */
    private static String lines(String sql, String data) throws SQLException {
        CopyOptions options = CopyOptionsTest.options(sql);
        byte[] bytes = data.getBytes(StandardCharsets.UTF_8);
        String whole = run(options, bytes, bytes.length);
        for (int split = 0; split <= bytes.length; split++) {
            assertEquals(whole, run(options, bytes, split, bytes.length), "split at " + split);
        }
        assertEquals(whole, run(options, bytes, 1), "one byte per message");
        return whole;
    }

    /** Feeds the bytes in messages of {@code size} bytes. */
    private static String run(CopyOptions options, byte[] bytes, int size) {
        List<Integer> cuts = new ArrayList<>();
        for (int at = 0; at < bytes.length; at += Math.max(1, size)) {
            cuts.add(at);
        }
        cuts.add(bytes.length);
        return feed(options, bytes, cuts);
    }

    private static String run(CopyOptions options, byte[] bytes, int split, int length) {
        return feed(options, bytes, List.of(0, split, length));
    }

    private static String feed(CopyOptions options, byte[] bytes, List<Integer> cuts) {
        StringBuilder out = new StringBuilder();
        CopyRowParser parser = new CopyRowParser(options, "t", new CopyRowParser.Lines() {
            @Override
            public void header(byte[] buffer, int start, int end) {
                out.append("header ").append(show(buffer, start, end)).append('\n');
            }

            @Override
            public void row(byte[] buffer, int start, int contentEnd, int end, long line) {
                out.append(line).append(": ").append(show(buffer, start, contentEnd)).append(" | ").append(show(buffer, contentEnd, end)).append('\n');
            }
        });
        try {
            for (int i = 0; i + 1 < cuts.size(); i++) {
                // A message of its own array, so that nothing can read past its end.
                byte[] message = java.util.Arrays.copyOfRange(bytes, cuts.get(i), cuts.get(i + 1));
                parser.feed(message, 0, message.length);
            }
            parser.finish();
            out.append("end");
        } catch (SQLException e) {
            out.append("error ").append(e.getSQLState()).append(' ').append(((BackendError) e).fields().message())
                    .append(" (").append(((BackendError) e).fields().field('W')).append(')');
        }
        return out.toString();
    }

    private static String show(byte[] buffer, int start, int end) {
        return new String(buffer, start, end - start, StandardCharsets.UTF_8).replace("\r", "\\r").replace("\n", "\\n").replace("\t", "\\t");
    }

    @Test
    void textLinesInEachNewlineStyle() throws SQLException {
        assertEquals("1: 1\\ta | \\n\n2: 2\\tb | \\n\nend", lines(TEXT, "1\ta\n2\tb\n"));
        assertEquals("1: 1\\ta | \\r\\n\n2: 2\\tb | \\r\\n\nend", lines(TEXT, "1\ta\r\n2\tb\r\n"));
        assertEquals("1: 1\\ta | \\r\n2: 2\\tb | \\r\nend", lines(TEXT, "1\ta\r2\tb\r"));
    }

    @Test
    void lastLineWithoutNewline() throws SQLException {
        assertEquals("1: 1 | \\n\n2: 2 | \nend", lines(TEXT, "1\n2"));
        assertEquals("1: 1 | \\r\\n\n2: 2 | \nend", lines(TEXT, "1\r\n2"));
        assertEquals("end", lines(TEXT, ""));
        assertEquals("1:  | \\n\n2:  | \\n\nend", lines(TEXT, "\n\n"));
    }

    @Test
    void backslashMakesTheNextByteData() throws SQLException {
        assertEquals("1: 1\\ta\\\\nb | \\n\n2: 2 | \\n\nend", lines(TEXT, "1\ta\\\nb\n2\n"));
        assertEquals("1: 1\\\\r | \\r\nend", lines(TEXT, "1\\\r\r"));
        assertEquals("1: 1\\\\ | \\n\n2: 2 | \\n\nend", lines(TEXT, "1\\\\\n2\n"));
        assertEquals("1: 1\\N\\t\\\\. | \\n\nend", lines(TEXT, "1\\N\t\\\\.\n"));
        assertEquals("1: 1\\ | \nend", lines(TEXT, "1\\"));
    }

    @Test
    void endOfDataMarker() throws SQLException {
        assertEquals("1: 1 | \\n\nend", lines(TEXT, "1\n\\.\n2\n"));
        assertEquals("1: 1 | \\r\\n\nend", lines(TEXT, "1\r\n\\.\r\nignored\r\n"));
        assertEquals("1: 1 | \\r\nend", lines(TEXT, "1\r\\.\r"));
        assertEquals("1: 1 | \\n\nend", lines(TEXT, "1\n\\."));
        assertEquals("end", lines(TEXT, "\\.\n"));
        // Text format before PostgreSQL 18: what precedes \. on its line is a last row.
        assertEquals("1: 1 | \\n\n2: 2 | \nend", lines(TEXT, "1\n2\\.\n3\n"));
    }

    @Test
    void badEndOfDataMarker() throws SQLException {
        assertEquals("1: 1 | \\n\nerror 22P04 end-of-copy marker corrupt (COPY t, line 2)", lines(TEXT, "1\n\\.x\n"));
        assertEquals("1: 1 | \\n\nerror 22P04 end-of-copy marker does not match previous newline style (COPY t, line 2)",
                lines(TEXT, "1\n\\.\r\n"));
    }

    @Test
    void mixedNewlineStyles() throws SQLException {
        assertEquals("1: 1 | \\n\nerror 22P04 literal carriage return found in data (COPY t, line 2)", lines(TEXT, "1\n2\r\n"));
        assertEquals("1: 1 | \\r\\n\nerror 22P04 literal newline found in data (COPY t, line 2)", lines(TEXT, "1\r\n2\n"));
        assertEquals("1: 1 | \\r\\n\nerror 22P04 literal carriage return found in data (COPY t, line 2)", lines(TEXT, "1\r\n2\r3"));
        assertEquals("1: 1 | \\r\nerror 22P04 literal newline found in data (COPY t, line 2)", lines(TEXT, "1\r2\n"));
        assertEquals("1: 1 | \\n\nerror 22P04 unquoted carriage return found in data (COPY t, line 2)", lines(CSV, "1\n2\r\n"));
    }

    @Test
    void csvQuotedNewlinesStayInTheRow() throws SQLException {
        assertEquals("1: 1,\"a\\nb\" | \\n\n2: 2,c | \\n\nend", lines(CSV, "1,\"a\nb\"\n2,c\n"));
        assertEquals("2: 1,\"a\\r\\nb\" | \\r\\n\n3: 2,c | \\r\\n\nend", lines(CSV, "1,\"a\r\nb\"\r\n2,c\r\n"));
        assertEquals("1: 1,\"a\"\"\\nb\" | \\n\nend", lines(CSV, "1,\"a\"\"\nb\"\n"));
        assertEquals("1: 1,\"\" | \\n\n2: \"\"\"\" | \\n\nend", lines(CSV, "1,\"\"\n\"\"\"\"\n"));
    }

    @Test
    void csvEscapeOtherThanQuote() throws SQLException {
        String sql = "COPY t FROM STDIN WITH (FORMAT csv, ESCAPE '\\')";
        assertEquals("1: 1,\"a\\\"\\nb\" | \\n\nend", lines(sql, "1,\"a\\\"\nb\"\n"));
        assertEquals("1: 1,\"a\\\\\" | \\n\n2: 2 | \\n\nend", lines(sql, "1,\"a\\\\\"\n2\n"));
        // Outside quotes the escape is an ordinary byte.
        assertEquals("1: a\\ | \\n\n2: b | \\n\nend", lines(sql, "a\\\nb\n"));
    }

    @Test
    void csvEndOfDataMarkerOnlyAloneAtTheStartOfALine() throws SQLException {
        assertEquals("1: 1 | \\n\nend", lines(CSV, "1\n\\.\n2\n"));
        assertEquals("1: \\.x | \\n\n2: a\\.,\\. | \\n\nend", lines(CSV, "\\.x\na\\.,\\.\n"));
        assertEquals("1: 1,\"\\n\\.\\n\" | \\n\nend", lines(CSV, "1,\"\n\\.\n\"\n"));
    }

    @Test
    void csvUnterminatedQuote() throws SQLException {
        assertEquals("1: 1 | \\n\nerror 22P04 unterminated CSV quoted field (COPY t, line 3)", lines(CSV, "1\n2,\"abc\n"));
    }

    @Test
    void headerIsTheFirstLineOnly() throws SQLException {
        String sql = "COPY t FROM STDIN WITH (FORMAT csv, HEADER)";
        assertEquals("header id,\"na\\nme\"\\n\n2: 1,a | \\n\n4: id,\"na\\nme\" | \\n\nend", lines(sql, "id,\"na\nme\"\n1,a\nid,\"na\nme\"\n"));
        assertEquals("header a\\tb\\r\\n\n2: 1\\t2 | \\r\\n\nend", lines("COPY t FROM STDIN WITH (HEADER)", "a\tb\r\n1\t2\r\n"));
        assertEquals("header a,b\nend", lines(sql, "a,b"));
    }

    @Test
    void otherDelimitersAndQuotes() throws SQLException {
        String sql = "COPY t FROM STDIN WITH (FORMAT csv, DELIMITER '|', QUOTE '''')";
        assertEquals("1: 1|'a\\n\"b'|x | \\n\nend", lines(sql, "1|'a\n\"b'|x\n"));
    }

    @Test
    void multiByteCharactersPassUnchanged() throws SQLException {
        assertEquals("1: 1\\tжёлтый | \\n\n2: 2\\t日本 | \\n\nend", lines(TEXT, "1\tжёлтый\n2\t日本\n"));
    }
}
