package io.ashlar.backend.sharding;

import java.math.BigDecimal;
import java.nio.charset.Charset;
import java.util.Arrays;

/**
 * Reads the sharding values out of one line of COPY data, as PostgreSQL's {@code CopyReadAttributesText} and
 * {@code CopyReadAttributesCSV} read fields: text fields end at an unescaped delimiter and lose their backslash
 * escapes ({@code \t}, {@code \n}, {@code \101}, {@code \x41}, {@code \\}, ...); CSV fields may be quoted, with the
 * quote doubled or escaped inside. A field whose raw bytes are the NULL marker is NULL (in CSV only unquoted, unless
 * {@code FORCE_NULL}; never with {@code FORCE_NOT_NULL}).
 *
 * <p>Only the fields up to the last sharding column are scanned, and only the sharding columns are decoded. A value
 * becomes what the sharding algorithms take, the same as an INSERT literal: an integer is an Integer, Long or
 * BigInteger by size ({@link RouteValues#integer}), a decimal a BigDecimal, anything else the String; so a row lands
 * where INSERT would put it. Integers of up to 18 digits are read straight from the bytes, without a String.
 *
 * @see <a href="https://www.postgresql.org/docs/current/sql-copy.html#id-1.9.3.55.9.2">COPY: Text Format</a>
 * @see <a href="https://www.postgresql.org/docs/current/sql-copy.html#id-1.9.3.55.9.3">COPY: CSV Format</a>
 */
final class CopyFieldReader {

    /** {@link #read}: every sharding value was read. */
    static final int READ = 0;

    /** {@link #read}: the line ends before a sharding column (the shard will say which column is missing). */
    static final int SHORT = 1;

    /** {@link #read}: a sharding column holds the {@code DEFAULT} marker, whose value only the shard knows. */
    static final int DEFAULT = 2;

    private static final Object DEFAULT_VALUE = new Object();

    private final boolean csv;
    private final byte delimiter;
    private final int quote;
    private final int escape;
    private final byte[] nullMarker;
    private final boolean hasDefault;
    private final byte[] defaultMarker;
    private final Charset charset;
    private final int[] columnAt;
    private final boolean[] forceNull;
    private final boolean[] forceNotNull;
    private byte[] scratch = new byte[64];
    private int scratchLength;
    private boolean sawQuote;

    /**
     * @param positions    the field position of each sharding column (by column id); negative for one the line does
     *                     not hold (the COPY's column list leaves it out), whose value {@link #read} leaves as it is
     * @param forceNull    by column id: whether {@code FORCE_NULL} names the column
     * @param forceNotNull by column id: whether {@code FORCE_NOT_NULL} names the column
     */
    CopyFieldReader(CopyOptions options, int[] positions, boolean[] forceNull, boolean[] forceNotNull) {
        this.csv = options.isCsv();
        this.delimiter = options.delimiter();
        this.quote = options.quote() & 0xff;
        this.escape = options.escape() & 0xff;
        this.nullMarker = options.nullMarker();
        this.hasDefault = options.hasDefault();
        this.defaultMarker = options.defaultMarker();
        this.charset = options.charset();
        this.forceNull = forceNull.clone();
        this.forceNotNull = forceNotNull.clone();
        int last = -1;
        for (int each : positions) {
            last = Math.max(last, each);
        }
        this.columnAt = new int[last + 1];
        Arrays.fill(columnAt, -1);
        for (int column = 0; column < positions.length; column++) {
            if (positions[column] >= 0) {
                columnAt[positions[column]] = column;
            }
        }
    }

    /**
     * Reads the sharding values of the line whose content is {@code [start, end)} into {@code values}, by column id
     * ({@code null} for SQL NULL).
     *
     * @return {@link #READ}, {@link #SHORT} or {@link #DEFAULT}
     */
    int read(byte[] line, int start, int end, Object[] values) {
        int last = columnAt.length - 1;
        int p = start;
        for (int field = 0; ; field++) {
            int column = field <= last ? columnAt[field] : -1;
            int fieldStart = p;
            p = csv ? csvField(line, p, end, column >= 0) : textField(line, p, end, column >= 0);
            if (column >= 0) {
                Object value = value(line, fieldStart, p, column);
                if (value == DEFAULT_VALUE) {
                    return DEFAULT;
                }
                values[column] = value;
            }
            if (field >= last) {
                return READ;
            }
            if (p >= end) {
                return SHORT;
            }
            p++;
        }
    }

    /** Scans a text field from {@code p}; returns where it ends (its delimiter, or {@code end}). */
    private int textField(byte[] line, int p, int end, boolean decode) {
        scratchLength = 0;
        sawQuote = false;
        while (p < end) {
            int c = line[p] & 0xff;
            if (c == (delimiter & 0xff)) {
                return p;
            }
            p++;
            if (c == '\\') {
                if (p >= end) {
                    return p;
                }
                c = line[p++] & 0xff;
                switch (c) {
                    case '0', '1', '2', '3', '4', '5', '6', '7' -> {
                        int value = c - '0';
                        for (int digits = 1; digits < 3 && p < end && line[p] >= '0' && line[p] <= '7'; digits++) {
                            value = (value << 3) + (line[p++] - '0');
                        }
                        c = value & 0xff;
                    }
                    case 'x' -> {
                        int digit = p < end ? Character.digit(line[p], 16) : -1;
                        if (digit >= 0) {
                            int value = digit;
                            p++;
                            digit = p < end ? Character.digit(line[p], 16) : -1;
                            if (digit >= 0) {
                                value = (value << 4) + digit;
                                p++;
                            }
                            c = value;
                        }
                    }
                    case 'b' -> c = '\b';
                    case 'f' -> c = '\f';
                    case 'n' -> c = '\n';
                    case 'r' -> c = '\r';
                    case 't' -> c = '\t';
                    case 'v' -> c = 0x0b;
                    default -> {
                        // Any other escaped byte stands for itself (the delimiter, a backslash, ...).
                    }
                }
            }
            if (decode) {
                put(c);
            }
        }
        return p;
    }

    /** Scans a CSV field from {@code p}; returns where it ends (its delimiter, or {@code end}). */
    private int csvField(byte[] line, int p, int end, boolean decode) {
        scratchLength = 0;
        sawQuote = false;
        while (true) {
            // Outside quotes.
            while (true) {
                if (p >= end) {
                    return p;
                }
                int c = line[p] & 0xff;
                if (c == (delimiter & 0xff)) {
                    return p;
                }
                p++;
                if (c == quote) {
                    sawQuote = true;
                    break;
                }
                if (decode) {
                    put(c);
                }
            }
            // Inside quotes: an unterminated quote is the shard's error to report; the field ends with the line.
            while (true) {
                if (p >= end) {
                    return p;
                }
                int c = line[p++] & 0xff;
                if (c == escape && p < end && ((line[p] & 0xff) == escape || (line[p] & 0xff) == quote)) {
                    if (decode) {
                        put(line[p] & 0xff);
                    }
                    p++;
                    continue;
                }
                if (c == quote) {
                    break;
                }
                if (decode) {
                    put(c);
                }
            }
        }
    }

    private void put(int c) {
        if (scratchLength == scratch.length) {
            scratch = Arrays.copyOf(scratch, scratch.length * 2);
        }
        scratch[scratchLength++] = (byte) c;
    }

    /** The value of the field whose raw bytes are {@code [from, to)} and whose decoded bytes are in the scratch buffer. */
    private Object value(byte[] line, int from, int to, int column) {
        boolean isNull = !sawQuote && equals(line, from, to, nullMarker);
        if (csv) {
            if (isNull && forceNotNull[column]) {
                return convert(nullMarker, 0, nullMarker.length);
            }
            if (!isNull && forceNull[column] && equals(scratch, 0, scratchLength, nullMarker)) {
                return null;
            }
        }
        if (isNull) {
            return null;
        }
        if (hasDefault && !sawQuote && equals(line, from, to, defaultMarker)) {
            return DEFAULT_VALUE;
        }
        return convert(scratch, 0, scratchLength);
    }

    private static boolean equals(byte[] bytes, int from, int to, byte[] marker) {
        return Arrays.equals(bytes, from, to, marker, 0, marker.length);
    }

    /** The sharding value of decoded field bytes, typed as an INSERT literal of the same text would be. */
    private Object convert(byte[] bytes, int from, int to) {
        int i = from;
        int j = to;
        while (i < j && isSpace(bytes[i])) {
            i++;
        }
        while (j > i && isSpace(bytes[j - 1])) {
            j--;
        }
        int k = i;
        boolean negative = false;
        if (k < j && (bytes[k] == '+' || bytes[k] == '-')) {
            negative = bytes[k] == '-';
            k++;
        }
        if (k < j && j - k <= 18) {
            long value = 0;
            boolean digits = true;
            for (int m = k; m < j; m++) {
                int c = bytes[m];
                if (c < '0' || c > '9') {
                    digits = false;
                    break;
                }
                value = value * 10 + (c - '0');
            }
            if (digits) {
                value = negative ? -value : value;
                return value == (int) value ? (Object) (int) value : (Object) value;
            }
        }
        String text = new String(bytes, from, to - from, charset);
        String trimmed = text.strip();
        Comparable<?> integer = RouteValues.integer(trimmed);
        if (integer != null) {
            return integer;
        }
        return isDecimal(trimmed) ? new BigDecimal(trimmed) : text;
    }

    /** PostgreSQL's {@code isspace} in number input: space, tab, newline, vertical tab, form feed, carriage return. */
    private static boolean isSpace(byte b) {
        return b == ' ' || (b >= '\t' && b <= '\r');
    }

    /** {@code [+-] (digits [. digits] | . digits) [(e|E) [+-] digits]}: what both PostgreSQL and BigDecimal read. */
    static boolean isDecimal(String text) {
        int n = text.length();
        int i = 0;
        if (i < n && (text.charAt(i) == '+' || text.charAt(i) == '-')) {
            i++;
        }
        int digits = 0;
        while (i < n && isDigit(text.charAt(i))) {
            i++;
            digits++;
        }
        if (i < n && text.charAt(i) == '.') {
            i++;
            while (i < n && isDigit(text.charAt(i))) {
                i++;
                digits++;
            }
        }
        if (digits == 0) {
            return false;
        }
        if (i < n && (text.charAt(i) == 'e' || text.charAt(i) == 'E')) {
            i++;
            if (i < n && (text.charAt(i) == '+' || text.charAt(i) == '-')) {
                i++;
            }
            int exponent = 0;
            while (i < n && isDigit(text.charAt(i)) && exponent < 9) {
                i++;
                exponent++;
            }
            if (exponent == 0) {
                return false;
            }
        }
        return i == n;
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }
}
