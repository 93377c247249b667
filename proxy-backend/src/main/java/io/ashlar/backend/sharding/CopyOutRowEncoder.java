package io.ashlar.backend.sharding;

import io.ashlar.backend.execute.RowValues;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Turns rows of text values into the lines of a {@code COPY ... TO STDOUT} in text or CSV format, byte for byte as
 * PostgreSQL writes them ({@code CopyAttributeOutText} and {@code CopyAttributeOutCSV} in {@code copyto.c}): text
 * format backslash-escapes backslash, the delimiter and the control characters {@code \b \f \n \r \t \v}; CSV quotes a
 * value that holds the delimiter, the quote, CR or LF, that equals the NULL string, that is {@code \.} alone in a
 * one-column row, or whose column is in {@code FORCE_QUOTE}, and precedes quote and escape characters inside quotes
 * with the escape character. NULL is the NULL string, unquoted. Every line ends with {@code \n}, as the protocol wants
 * whatever the platform.
 *
 * <p>Values arrive in the session's client_encoding (its connections carry it); when the COPY's encoding is another
 * one they are converted to it. One instance serves one COPY on one thread: it reuses a buffer and returns a fresh array per line.
 *
 * @see <a href="https://www.postgresql.org/docs/current/sql-copy.html#id-1.9.3.55.9.2">COPY: Text Format</a>
 * @see <a href="https://www.postgresql.org/docs/current/sql-copy.html#id-1.9.3.55.9.3">COPY: CSV Format</a>
 */
final class CopyOutRowEncoder {

    private final boolean csv;
    private final byte delimiter;
    private final byte quote;
    private final byte escape;
    private final byte[] nullMarker;
    private final boolean[] forceQuote;
    private final boolean singleColumn;
    private final Charset charset;
    /** The charset the values arrive in. */
    private final Charset rows;
    private final boolean transcode;
    private byte[] buffer = new byte[256];
    private int length;

    /**
     * @param options    the COPY's options, text or CSV
     * @param forceQuote per column, whether {@code FORCE_QUOTE} names it (CSV only; all false otherwise)
     */
    CopyOutRowEncoder(CopyOptions options, boolean[] forceQuote) {
        this(options, forceQuote, StandardCharsets.UTF_8);
    }

    /** @param rows the charset the rows' values are in (the session's client_encoding, which its connections carry) */
    CopyOutRowEncoder(CopyOptions options, boolean[] forceQuote, Charset rows) {
        this.csv = options.isCsv();
        this.delimiter = options.delimiter();
        this.quote = options.quote();
        this.escape = options.escape();
        this.nullMarker = options.nullMarker();
        this.forceQuote = forceQuote.clone();
        this.singleColumn = forceQuote.length == 1;
        this.charset = options.charset();
        this.rows = rows;
        this.transcode = !rows.equals(charset);
    }

    /** The header line: the column names, written as values are (CSV quoting them only where needed). */
    byte[] header(String[] names) {
        length = 0;
        for (int i = 0; i < names.length; i++) {
            if (i > 0) {
                put(delimiter);
            }
            byte[] name = names[i].getBytes(charset);
            if (csv) {
                csvValue(name, false);
            } else {
                textValue(name);
            }
        }
        return line();
    }

    /** One row's line; {@code columns} values of {@code row} are written. */
    byte[] row(RowValues row, int columns) {
        length = 0;
        for (int i = 0; i < columns; i++) {
            if (i > 0) {
                put(delimiter);
            }
            byte[] value = row.value(i);
            if (value == null) {
                put(nullMarker, 0, nullMarker.length);
                continue;
            }
            if (transcode) {
                value = new String(value, rows).getBytes(charset);
            }
            if (csv) {
                csvValue(value, forceQuote[i]);
            } else {
                textValue(value);
            }
        }
        return line();
    }

    private byte[] line() {
        put((byte) '\n');
        return Arrays.copyOf(buffer, length);
    }

    private void textValue(byte[] value) {
        ensure(value.length * 2);
        byte[] out = buffer;
        int at = length;
        for (byte b : value) {
            if ((b & 0xff) < 0x20) {
                byte letter = switch (b) {
                    case '\b' -> (byte) 'b';
                    case '\f' -> (byte) 'f';
                    case '\n' -> (byte) 'n';
                    case '\r' -> (byte) 'r';
                    case '\t' -> (byte) 't';
                    case 0x0b -> (byte) 'v';
                    default -> 0;
                };
                if (letter != 0) {
                    out[at++] = '\\';
                    out[at++] = letter;
                    continue;
                }
                if (b == delimiter) {
                    out[at++] = '\\';
                }
                out[at++] = b;
            } else {
                if (b == '\\' || b == delimiter) {
                    out[at++] = '\\';
                }
                out[at++] = b;
            }
        }
        length = at;
    }

    private void csvValue(byte[] value, boolean forced) {
        boolean quoted = forced || Arrays.equals(value, nullMarker);
        if (!quoted) {
            if (singleColumn && value.length == 2 && value[0] == '\\' && value[1] == '.') {
                quoted = true;
            } else {
                for (byte b : value) {
                    if (b == delimiter || b == quote || b == '\n' || b == '\r') {
                        quoted = true;
                        break;
                    }
                }
            }
        }
        if (!quoted) {
            put(value, 0, value.length);
            return;
        }
        ensure(value.length * 2 + 2);
        byte[] out = buffer;
        int at = length;
        out[at++] = quote;
        for (byte b : value) {
            if (b == quote || b == escape) {
                out[at++] = escape;
            }
            out[at++] = b;
        }
        out[at++] = quote;
        length = at;
    }

    private void put(byte b) {
        ensure(1);
        buffer[length++] = b;
    }

    private void put(byte[] bytes, int offset, int count) {
        ensure(count);
        System.arraycopy(bytes, offset, buffer, length, count);
        length += count;
    }

    private void ensure(int more) {
        int needed = length + more;
        if (needed > buffer.length) {
            buffer = Arrays.copyOf(buffer, Math.max(needed, buffer.length * 2));
        }
    }
}
