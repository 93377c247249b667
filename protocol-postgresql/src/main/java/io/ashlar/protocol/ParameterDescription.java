package io.ashlar.protocol;

import io.netty.buffer.ByteBuf;
import java.util.Arrays;
import java.util.Objects;

/**
 * Extended protocol: the parameter types of a described statement.
 *
 * @param parameterTypeOids one type OID per parameter
 * @see <a href="https://www.postgresql.org/docs/current/protocol-message-formats.html#PROTOCOL-MESSAGE-FORMATS-PARAMETERDESCRIPTION">ParameterDescription</a>
 */
public record ParameterDescription(int[] parameterTypeOids) implements BackendMessage {

    public static final byte TYPE = 't';

    public ParameterDescription {
        Objects.requireNonNull(parameterTypeOids, "parameterTypeOids");
    }

    @Override
    public void encode(ByteBuf out) {
        encode(out, parameterTypeOids);
    }

    /** Writes a ParameterDescription without a message object. */
    public static void encode(ByteBuf out, int[] parameterTypeOids) {
        out.writeByte(TYPE);
        out.writeInt(4 + 2 + 4 * parameterTypeOids.length);
        out.writeShort(parameterTypeOids.length);
        for (int each : parameterTypeOids) {
            out.writeInt(each);
        }
    }

    public static ParameterDescription decode(ByteBuf in) {
        int end = Wire.readHeader(in, 't') + in.readerIndex();
        int count = in.readUnsignedShort();
        if (count * 4L != end - in.readerIndex()) {
            throw new IllegalArgumentException("invalid message format");
        }
        int[] oids = new int[count];
        for (int i = 0; i < count; i++) {
            oids[i] = in.readInt();
        }
        return new ParameterDescription(oids);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof ParameterDescription that && Arrays.equals(parameterTypeOids, that.parameterTypeOids);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(parameterTypeOids);
    }

    @Override
    public String toString() {
        return "ParameterDescription" + Arrays.toString(parameterTypeOids);
    }
}
