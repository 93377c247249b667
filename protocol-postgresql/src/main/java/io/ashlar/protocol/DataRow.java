package io.ashlar.protocol;

import io.netty.buffer.ByteBuf;
import java.util.Arrays;
import java.util.Objects;

/**
 * One row of a result. The static {@link #encode(ByteBuf, Values, ValueWriter[])} is the hot path:
 * it writes a row's values straight into the output buffer with no message object and no copy,
 * converting the columns a client asked for in binary on the way; the record and the array
 * encoder go through the same code, for tests, traces and benchmarks.
 *
 * @param values column values; a {@code null} entry is SQL NULL (length -1 on the wire)
 * @see <a href="https://www.postgresql.org/docs/current/protocol-message-formats.html#PROTOCOL-MESSAGE-FORMATS-DATAROW">DataRow</a>
 */
public record DataRow(byte[][] values) implements BackendMessage {

    public static final byte TYPE = 'D';

    /** The values of one row as the encoder reads them: a view, which may be reused from row to row. */
    public interface Values {
        int columnCount();

        /** The value's bytes as the backend sent them, {@code null} for SQL NULL. */
        byte[] value(int column);
    }

    /**
     * A row that still is the DataRow a backend sent (one shard's answer on its way to the client):
     * with no column converted, its body goes out as it came, in one copy.
     */
    public interface Frame extends Values {
        /** The DataRow's body as the backend sent it: Int16 column count, then each value's Int32 length and bytes. */
        byte[] frameBody();
    }

    /** Writes one column's value in another format than the backend's (binary), with its length. */
    public interface ValueWriter {
        /** Appends an Int32 byte count and the value of {@code text[offset, offset + length)}. */
        void writeWithLength(byte[] text, int offset, int length, ByteBuf out);
    }

    public DataRow {
        Objects.requireNonNull(values, "values");
    }

    @Override
    public void encode(ByteBuf out) {
        encode(out, values, values.length);
    }

    /** Writes a DataRow of all the values. */
    public static void encode(ByteBuf out, byte[][] values) {
        encode(out, values, values.length);
    }

    /** Writes a DataRow of the first {@code count} values. */
    public static void encode(ByteBuf out, byte[][] values, int count) {
        encode(out, new Values() {
            @Override
            public int columnCount() {
                return count;
            }

            @Override
            public byte[] value(int column) {
                return values[column];
            }
        }, null);
    }

    /**
     * Writes a DataRow of the row's values; a column whose writer is not null goes out through it
     * (the client asked for it in binary). A writer that fails (text the backend could not have
     * produced) leaves the row half written: the caller resets the buffer's writer index.
     *
     * @param writers per column, null entries (or null for all) for values sent as they are
     */
    public static void encode(ByteBuf out, Values row, ValueWriter[] writers) {
        if (writers == null && row instanceof Frame frame) {
            byte[] body = frame.frameBody();
            out.writeByte(TYPE);
            out.writeInt(4 + body.length);
            out.writeBytes(body);
            return;
        }
        int count = row.columnCount();
        int start = Wire.begin(out, TYPE);
        out.writeShort(count);
        for (int i = 0; i < count; i++) {
            byte[] value = row.value(i);
            if (value == null) {
                out.writeInt(-1);
            } else if (writers == null || writers[i] == null) {
                out.writeInt(value.length);
                out.writeBytes(value);
            } else {
                writers[i].writeWithLength(value, 0, value.length, out);
            }
        }
        Wire.end(out, start);
    }

    public static DataRow decode(ByteBuf in) {
        int end = Wire.readHeader(in, 'D') + in.readerIndex();
        int count = in.readUnsignedShort();
        if (count * 4L > end - in.readerIndex()) {
            throw new IllegalArgumentException("insufficient data left in message");
        }
        byte[][] values = new byte[count][];
        for (int i = 0; i < count; i++) {
            int length = in.readInt();
            if (length != -1) {
                values[i] = Wire.readBytes(in, length);
            }
        }
        Wire.expectEnd(in, end);
        return new DataRow(values);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof DataRow that && Arrays.deepEquals(values, that.values);
    }

    @Override
    public int hashCode() {
        return Arrays.deepHashCode(values);
    }

    @Override
    public String toString() {
        return "DataRow" + Wire.describeValues(values);
    }
}
