package io.ashlar.protocol;

import io.netty.buffer.ByteBuf;
import java.util.Arrays;
import java.util.Objects;

/**
 * A chunk of COPY data, in either direction.
 *
 * @param data the bytes, not copied
 * @see <a href="https://www.postgresql.org/docs/current/protocol-message-formats.html#PROTOCOL-MESSAGE-FORMATS-COPYDATA">CopyData</a>
 */
public record CopyData(byte[] data) implements FrontendMessage, BackendMessage {

    public static final byte TYPE = 'd';

    public CopyData {
        Objects.requireNonNull(data, "data");
    }

    @Override
    public void encode(ByteBuf out, java.nio.charset.Charset text) {
        encode(out); // bytes only: no text of an encoding
    }

    @Override
    public void encode(ByteBuf out) {
        encode(out, data, 0, data.length);
    }

    /** Writes a CopyData from part of an array, without a message object. */
    public static void encode(ByteBuf out, byte[] data, int offset, int length) {
        out.writeByte(TYPE);
        out.writeInt(4 + length);
        out.writeBytes(data, offset, length);
    }

    static FrontendMessage decodeBody(FrameReader body) {
        return body.finish(new CopyData(body.readRemaining()));
    }

    public static CopyData decode(ByteBuf in) {
        int length = Wire.readHeader(in, 'd');
        return new CopyData(Wire.readBytes(in, length));
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof CopyData that && Arrays.equals(data, that.data);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(data);
    }

    @Override
    public String toString() {
        return "CopyData[" + data.length + " bytes]";
    }
}
