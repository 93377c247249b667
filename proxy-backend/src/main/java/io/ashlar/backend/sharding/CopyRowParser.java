package io.ashlar.backend.sharding;

import java.sql.SQLException;

/**
 * Splits the data of a {@code COPY ... FROM STDIN} in text or CSV format into lines as PostgreSQL's
 * {@code CopyReadLineText} does, whatever the size of the CopyData messages it arrives in: a line ends at a newline
 * that a backslash does not escape (text) or that no quote encloses (CSV); the first line ending fixes the newline
 * style ({@code \n}, {@code \r\n} or {@code \r}) and another style later is an error; {@code \.} followed by a line
 * end ends the data (in CSV only alone at the start of a line), and whatever follows it is ignored.
 *
 * <p>The bytes of a line are handed over exactly as they came, line end included, so that a shard whose COPY has the
 * same options reads the same row. Bytes that do not yet decide anything (a {@code \r} whose next byte may be
 * {@code \n}, a backslash whose next byte may be {@code .}) wait for the next message; a line split across messages
 * is gathered in one reused buffer, so a line that arrives whole is never copied here.
 *
 * <p>Line numbers are PostgreSQL's: the header is line 1, and in CSV a newline inside quotes counts too, so that
 * {@code COPY t, line N} in an error names the line PostgreSQL would name. One instance per COPY, one thread.
 *
 * @see <a href="https://www.postgresql.org/docs/current/sql-copy.html#id-1.9.3.55.9.2">COPY: Text Format</a>
 * @see <a href="https://www.postgresql.org/docs/current/sql-copy.html#id-1.9.3.55.9.3">COPY: CSV Format</a>
 */
final class CopyRowParser {

    /** Receives the lines, in order. The bytes are valid only during the call. */
    interface Lines {

        /** The header line (only with {@code HEADER}): {@code [start, end)}, line end included. */
        void header(byte[] buffer, int start, int end) throws SQLException;

        /**
         * One line of data: its content is {@code [start, contentEnd)}, its line end {@code [contentEnd, end)} (empty
         * for a last line that the data ends without one, or that {@code \.} ends).
         *
         * @param line the line's number (of its last physical line, for a CSV row with quoted newlines)
         */
        void row(byte[] buffer, int start, int contentEnd, int end, long line) throws SQLException;
    }

    /** The longest line accepted: PostgreSQL's MaxAllocSize (1 GB) bounds a line too. */
    static final int MAX_LINE = (1 << 30) - 1;

    private static final int EOL_UNKNOWN = 0;
    private static final int EOL_NL = 1;
    private static final int EOL_CR = 2;
    private static final int EOL_CRNL = 3;

    private final boolean csv;
    private final int quote;
    private final int escape;
    private final String table;
    private final Lines lines;
    private boolean headerPending;
    private byte[] pending = new byte[0];
    private int pendingLength;
    private int scanned;
    private int eol = EOL_UNKNOWN;
    private boolean inQuote;
    private boolean lastWasEscape;
    private boolean firstChar = true;
    private long line = 1;
    private boolean ended;
    private int rowStart;
    private int position;

    /**
     * @param table the logical table, for the context of errors ({@code COPY t_order, line 3})
     */
    CopyRowParser(CopyOptions options, String table, Lines lines) {
        this.csv = options.isCsv();
        this.quote = options.quote() & 0xff;
        // As in PostgreSQL: an escape equal to the quote is no escape here, a doubled quote just toggles twice.
        this.escape = options.escape() == options.quote() ? -1 : options.escape() & 0xff;
        this.table = table;
        this.lines = lines;
        this.headerPending = options.header();
    }

    /** Whether the end-of-data marker {@code \.} was seen (or {@link #finish()} called): further data is ignored. */
    boolean ended() {
        return ended;
    }

    /** The number of the line being read (after the end: one past the last line). */
    long line() {
        return line;
    }

    /** Reads one CopyData message's bytes, handing over every line they complete. */
    void feed(byte[] data, int offset, int length) throws SQLException {
        if (ended || length == 0) {
            return;
        }
        if (pendingLength == 0) {
            scan(data, offset, offset, offset + length, false);
            keep(data, offset + length);
        } else {
            append(data, offset, length);
            scan(pending, 0, scanned, pendingLength, false);
            keep(pending, pendingLength);
        }
    }

    /** The data is complete (CopyDone): hands over a last line that has no line end. */
    void finish() throws SQLException {
        if (ended) {
            return;
        }
        scan(pending, 0, scanned, pendingLength, true);
        if (!ended && rowStart < pendingLength) {
            if (csv && inQuote) {
                throw error("unterminated CSV quoted field", "");
            }
            emit(pending, pendingLength, pendingLength);
        }
        ended = true;
        pendingLength = 0;
    }

    private void scan(byte[] buffer, int start, int from, int to, boolean eof) throws SQLException {
        rowStart = start;
        int i = from;
        while (i < to) {
            int c = buffer[i] & 0xff;
            if (!eof && !decidable(buffer, i, to, c)) {
                break;
            }
            if (csv) {
                if (inQuote && c == escape) {
                    lastWasEscape = !lastWasEscape;
                }
                if (c == quote && !lastWasEscape) {
                    inQuote = !inQuote;
                }
                if (c != escape) {
                    lastWasEscape = false;
                }
                if (inQuote && c == (eol == EOL_NL ? '\n' : '\r')) {
                    line++;
                }
            }
            if (c == '\r' && !(csv && inQuote)) {
                int end;
                if (eol == EOL_UNKNOWN || eol == EOL_CRNL) {
                    if (i + 1 < to && buffer[i + 1] == '\n') {
                        eol = EOL_CRNL;
                        end = i + 2;
                    } else if (eol == EOL_CRNL) {
                        throw carriageReturn();
                    } else {
                        eol = EOL_CR;
                        end = i + 1;
                    }
                } else if (eol == EOL_NL) {
                    throw carriageReturn();
                } else {
                    end = i + 1;
                }
                emit(buffer, i, end);
                i = end;
                continue;
            }
            if (c == '\n' && !(csv && inQuote)) {
                if (eol == EOL_CR || eol == EOL_CRNL) {
                    throw csv ? error("unquoted newline found in data", "Use quoted CSV field to represent newline.")
                            : error("literal newline found in data", "Use \"\\n\" to represent newline.");
                }
                eol = EOL_NL;
                emit(buffer, i, i + 1);
                i++;
                continue;
            }
            if (c == '\\' && (!csv || firstChar) && i + 1 < to) {
                if (buffer[i + 1] == '.') {
                    if (endMarker(buffer, i + 2, to)) {
                        if (i > rowStart) {
                            // Text format before PostgreSQL 18: what precedes \. on its line is a last row.
                            emit(buffer, i, i);
                        }
                        ended = true;
                        rowStart = to;
                        position = to;
                        return;
                    }
                } else if (!csv) {
                    // In text format a backslash makes the next byte data, even a newline.
                    firstChar = false;
                    i += 2;
                    continue;
                }
            }
            firstChar = false;
            i++;
        }
        position = i;
    }

    /** Whether the bytes that decide what byte {@code i} means are all here. */
    private boolean decidable(byte[] buffer, int i, int to, int c) {
        if (c == '\r') {
            return i + 1 < to;
        }
        if (c == '\\' && (!csv || firstChar)) {
            if (i + 1 >= to) {
                return false;
            }
            if (buffer[i + 1] == '.') {
                return i + 2 < to && (buffer[i + 2] != '\r' || i + 3 < to);
            }
        }
        return true;
    }

    /**
     * Whether {@code \.} whose next byte is at {@code p} ends the data: it must be followed by the end of the data or
     * by a line end of the data's newline style. In text format anything else is an error; in CSV it is data.
     */
    private boolean endMarker(byte[] buffer, int p, int to) throws SQLException {
        if (p >= to) {
            return true;
        }
        int style;
        if (buffer[p] == '\n') {
            style = EOL_NL;
        } else if (buffer[p] == '\r') {
            style = p + 1 < to && buffer[p + 1] == '\n' ? EOL_CRNL : EOL_CR;
        } else {
            if (csv) {
                return false;
            }
            throw error("end-of-copy marker corrupt", "");
        }
        if (eol != EOL_UNKNOWN && eol != style) {
            throw error("end-of-copy marker does not match previous newline style", "");
        }
        return true;
    }

    private void emit(byte[] buffer, int contentEnd, int end) throws SQLException {
        if (headerPending) {
            headerPending = false;
            lines.header(buffer, rowStart, end);
        } else {
            lines.row(buffer, rowStart, contentEnd, end, line);
        }
        line++;
        rowStart = end;
        firstChar = true;
        inQuote = false;
        lastWasEscape = false;
    }

    /** Keeps the unfinished line {@code [rowStart, to)} of {@code buffer} for the next message. */
    private void keep(byte[] buffer, int to) throws SQLException {
        if (ended) {
            pendingLength = 0;
            scanned = 0;
            return;
        }
        int length = to - rowStart;
        if (length > MAX_LINE) {
            throw CopyErrors.atLine("54000", "COPY line is too long (more than " + MAX_LINE + " bytes)", "", where());
        }
        if (buffer == pending) {
            System.arraycopy(pending, rowStart, pending, 0, length);
        } else {
            ensureCapacity(length);
            System.arraycopy(buffer, rowStart, pending, 0, length);
        }
        pendingLength = length;
        scanned = position - rowStart;
    }

    private void append(byte[] data, int offset, int length) {
        ensureCapacity(pendingLength + length);
        System.arraycopy(data, offset, pending, pendingLength, length);
        pendingLength += length;
    }

    private void ensureCapacity(int capacity) {
        if (pending.length < capacity) {
            int grown = Math.max(capacity, Math.max(8192, pending.length * 2));
            byte[] bigger = new byte[grown < 0 ? capacity : grown];
            System.arraycopy(pending, 0, bigger, 0, pendingLength);
            pending = bigger;
        }
    }

    private SQLException carriageReturn() {
        return csv ? error("unquoted carriage return found in data", "Use quoted CSV field to represent carriage return.")
                : error("literal carriage return found in data", "Use \"\\r\" to represent carriage return.");
    }

    private SQLException error(String message, String hint) {
        return CopyErrors.atLine("22P04", message, hint, where());
    }

    private String where() {
        return "COPY " + table + ", line " + line;
    }
}
