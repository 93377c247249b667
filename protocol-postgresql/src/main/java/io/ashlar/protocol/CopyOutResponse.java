package io.ashlar.protocol;

import io.netty.buffer.ByteBuf;
import java.util.Arrays;
import java.util.Objects;

/**
 * The server is about to send COPY data to the client (COPY ... TO STDOUT).
 *
 * @param overallFormat 0 text (columns must all be 0), 1 binary
 * @param columnFormats one per column
 * @see <a href="https://www.postgresql.org/docs/current/protocol-message-formats.html#PROTOCOL-MESSAGE-FORMATS-COPYOUTRESPONSE">CopyOutResponse</a>
 */
public record CopyOutResponse(byte overallFormat, short[] columnFormats) implements BackendMessage {

    public static final byte TYPE = 'H';

    public CopyOutResponse {
        Objects.requireNonNull(columnFormats, "columnFormats");
    }

    @Override
    public void encode(ByteBuf out) {
        out.writeByte(TYPE);
        out.writeInt(4 + 1 + 2 + 2 * columnFormats.length);
        out.writeByte(overallFormat);
        out.writeShort(columnFormats.length);
        for (short each : columnFormats) {
            out.writeShort(each);
        }
    }

    public static CopyOutResponse decode(ByteBuf in) {
        int end = Wire.readHeader(in, 'H') + in.readerIndex();
        byte overall = in.readByte();
        int count = in.readUnsignedShort();
        if (count * 2L != end - in.readerIndex()) {
            throw new IllegalArgumentException("invalid message format");
        }
        short[] formats = new short[count];
        for (int i = 0; i < count; i++) {
            formats[i] = in.readShort();
        }
        return new CopyOutResponse(overall, formats);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof CopyOutResponse that && overallFormat == that.overallFormat
                && Arrays.equals(columnFormats, that.columnFormats);
    }

    @Override
    public int hashCode() {
        return 31 * overallFormat + Arrays.hashCode(columnFormats);
    }

    @Override
    public String toString() {
        return "CopyOutResponse[overallFormat=" + overallFormat + ", columnFormats=" + Arrays.toString(columnFormats) + "]";
    }
}
