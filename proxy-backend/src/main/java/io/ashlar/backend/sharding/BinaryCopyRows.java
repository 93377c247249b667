package io.ashlar.backend.sharding;

import java.sql.SQLException;
import java.util.Arrays;

/**
 * Splits COPY data in PostgreSQL's binary format into its header and its tuples as the data arrives (a CopyData
 * message may end anywhere), and reads the sharding columns of each tuple as a binary parameter of the column's type
 * is read ({@link ParameterReader}), so that a row lands where an INSERT of it with binary parameters would. Tuples
 * are handed on as their bytes, unchanged; the trailer ends the data.
 *
 * <p>Format: the 11-byte signature {@code PGCOPY\n\377\r\n\0}, a 32-bit flags word, a 32-bit header extension length
 * and that many bytes; then per tuple a 16-bit field count and per field a 32-bit length (-1 for NULL) and its bytes;
 * then the 16-bit trailer -1.
 *
 * @see <a href="https://www.postgresql.org/docs/current/sql-copy.html#id-1.9.3.55.9.4">COPY: Binary Format</a>
 */
final class BinaryCopyRows {

    /** Where the header and tuples go. */
    interface Tuples {
        /** The file header (signature, flags, extension): every shard COPY starts with it. */
        void header(byte[] buffer, int start, int end) throws SQLException;

        /**
         * One tuple, {@code buffer[start, end)}.
         *
         * @param values the sharding columns' values (null for NULL), or null when the tuple has too few fields (the
         *               shard it goes to reports it)
         * @param tuple  its number, from 1, as PostgreSQL numbers them in errors ("line")
         */
        void tuple(byte[] buffer, int start, int end, Object[] values, long tuple) throws SQLException;
    }

    private static final byte[] SIGNATURE = {'P', 'G', 'C', 'O', 'P', 'Y', '\n', (byte) 0xFF, '\r', '\n', 0};
    private static final int FIXED_HEADER = SIGNATURE.length + 8;

    private final int[] positions;
    private final int[] types;
    private final int lastPosition;
    private final Tuples tuples;
    private final Object[] values;
    private byte[] buffer = new byte[16 * 1024];
    private int length;
    private final java.nio.charset.Charset text;
    private boolean headerRead;
    private boolean ended;
    private long count;

    /**
     * @param positions the field position of each sharding column
     * @param types     the type OID of each sharding column
     */
    BinaryCopyRows(int[] positions, int[] types, Tuples tuples) {
        this(positions, types, tuples, java.nio.charset.StandardCharsets.UTF_8);
    }

    /** @param text the charset of text values (the session's client_encoding: binary COPY sends text in it) */
    BinaryCopyRows(int[] positions, int[] types, Tuples tuples, java.nio.charset.Charset text) {
        this.text = text;
        this.positions = positions;
        this.types = types;
        int last = -1;
        for (int each : positions) {
            last = Math.max(last, each);
        }
        this.lastPosition = last;
        this.tuples = tuples;
        this.values = new Object[positions.length];
    }

    /** One piece of the client's data. */
    void feed(byte[] data, int offset, int size) throws SQLException {
        if (ended) {
            if (size > 0) {
                throw CopyErrors.error("22P04", "received copy data after EOF marker");
            }
            return;
        }
        if ((long) length + size > CopyRowParser.MAX_LINE) {
            // What is held is one tuple not complete yet: as long as a text line may be (PostgreSQL's 1 GB).
            throw CopyErrors.error("54000", "COPY row is too long (more than " + CopyRowParser.MAX_LINE + " bytes)");
        }
        if (length + size > buffer.length) {
            buffer = Arrays.copyOf(buffer, (int) Math.min(CopyRowParser.MAX_LINE, Math.max((long) length + size, buffer.length * 2L)));
        }
        System.arraycopy(data, offset, buffer, length, size);
        length += size;
        int used = parse();
        if (used > 0) {
            System.arraycopy(buffer, used, buffer, 0, length - used);
            length -= used;
        }
    }

    /** The client's CopyDone: what is left must be nothing (the trailer may be missing, as PostgreSQL allows). */
    void finish() throws SQLException {
        if (!headerRead && length == 0) {
            return; // no data at all: PostgreSQL copies nothing either
        }
        if (!ended && length > 0 || !headerRead) {
            throw CopyErrors.error("22P04", "unexpected EOF in COPY data");
        }
    }

    /** Hands on every complete header and tuple in the buffer; returns how many bytes they took. */
    private int parse() throws SQLException {
        int at = 0;
        if (!headerRead) {
            if (length < FIXED_HEADER) {
                return 0;
            }
            for (int i = 0; i < SIGNATURE.length; i++) {
                if (buffer[i] != SIGNATURE[i]) {
                    throw CopyErrors.error("22P04", "COPY file signature not recognized");
                }
            }
            int extension = int32(SIGNATURE.length + 4);
            if (extension < 0) {
                throw CopyErrors.error("22P04", "invalid COPY file header (wrong length)");
            }
            if (length - FIXED_HEADER < extension) {
                return 0;
            }
            at = FIXED_HEADER + extension;
            tuples.header(buffer, 0, at);
            headerRead = true;
        }
        while (length - at >= 2) {
            int fields = (short) (((buffer[at] & 0xFF) << 8) | (buffer[at + 1] & 0xFF));
            if (fields == -1) {
                ended = true;
                if (length - at > 2) {
                    throw CopyErrors.error("22P04", "received copy data after EOF marker");
                }
                return length;
            }
            if (fields < 0) {
                throw CopyErrors.error("22P04", "row field count is " + fields + ", expected " + (lastPosition + 1) + " or more");
            }
            int end = at + 2;
            Arrays.fill(values, null);
            boolean complete = true;
            for (int field = 0; field < fields; field++) {
                if (length - end < 4) {
                    complete = false;
                    break;
                }
                int size = int32(end);
                end += 4;
                if (size > 0 && length - end < size) {
                    complete = false;
                    break;
                }
                if (size < -1) {
                    throw CopyErrors.error("22P04", "invalid field size");
                }
                if (size >= 0 && field <= lastPosition) {
                    for (int i = 0; i < positions.length; i++) {
                        if (positions[i] == field) {
                            values[i] = ParameterReader.read(types[i], true, Arrays.copyOfRange(buffer, end, end + size), text);
                        }
                    }
                }
                end += Math.max(size, 0);
            }
            if (!complete) {
                break;
            }
            count++;
            tuples.tuple(buffer, at, end, fields > lastPosition ? values : null, count);
            at = end;
        }
        return at;
    }

    private int int32(int at) {
        return (buffer[at] << 24) | ((buffer[at + 1] & 0xFF) << 16) | ((buffer[at + 2] & 0xFF) << 8) | (buffer[at + 3] & 0xFF);
    }
}
