package io.ashlar.protocol;

import io.netty.buffer.ByteBuf;
import java.util.Arrays;
import java.util.Objects;

/**
 * One row of a result. The static encoders are the hot path: they write the values straight
 * into the output buffer with no message object and no copy; the record exists for tests and
 * traces.
 *
 * @param values column values; a {@code null} entry is SQL NULL (length -1 on the wire)
 * @see <a href="https://www.postgresql.org/docs/current/protocol-message-formats.html#PROTOCOL-MESSAGE-FORMATS-DATAROW">DataRow</a>
 */
public record DataRow(byte[][] values) implements BackendMessage {

    public static final byte TYPE = 'D';

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

    /** Writes a DataRow of the first {@code count} values, so that a caller can reuse one array for rows. */
    public static void encode(ByteBuf out, byte[][] values, int count) {
        int length = 4 + 2 + 4 * count;
        for (int i = 0; i < count; i++) {
            byte[] each = values[i];
            if (each != null) {
                length += each.length;
            }
        }
        out.ensureWritable(1 + length);
        out.writeByte(TYPE);
        out.writeInt(length);
        out.writeShort(count);
        for (int i = 0; i < count; i++) {
            byte[] each = values[i];
            if (each == null) {
                out.writeInt(-1);
            } else {
                out.writeInt(each.length);
                out.writeBytes(each);
            }
        }
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
