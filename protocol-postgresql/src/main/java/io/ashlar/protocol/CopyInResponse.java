package io.ashlar.protocol;

import io.netty.buffer.ByteBuf;
import java.util.Arrays;
import java.util.Objects;

/**
 * The server is ready to receive COPY data from the client (COPY ... FROM STDIN).
 *
 * @param overallFormat 0 text (columns must all be 0), 1 binary
 * @param columnFormats one per column
 * @see <a href="https://www.postgresql.org/docs/current/protocol-message-formats.html#PROTOCOL-MESSAGE-FORMATS-COPYINRESPONSE">CopyInResponse</a>
 */
public record CopyInResponse(byte overallFormat, short[] columnFormats) implements BackendMessage {

    public static final byte TYPE = 'G';

    public CopyInResponse {
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

    public static CopyInResponse decode(ByteBuf in) {
        int end = Wire.readHeader(in, 'G') + in.readerIndex();
        byte overall = in.readByte();
        int count = in.readUnsignedShort();
        if (count * 2L != end - in.readerIndex()) {
            throw new IllegalArgumentException("invalid message format");
        }
        short[] formats = new short[count];
        for (int i = 0; i < count; i++) {
            formats[i] = in.readShort();
        }
        return new CopyInResponse(overall, formats);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof CopyInResponse that && overallFormat == that.overallFormat
                && Arrays.equals(columnFormats, that.columnFormats);
    }

    @Override
    public int hashCode() {
        return 31 * overallFormat + Arrays.hashCode(columnFormats);
    }

    @Override
    public String toString() {
        return "CopyInResponse[overallFormat=" + overallFormat + ", columnFormats=" + Arrays.toString(columnFormats) + "]";
    }
}
