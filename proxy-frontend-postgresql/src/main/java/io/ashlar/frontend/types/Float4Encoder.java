package io.ashlar.frontend.types;

import io.ashlar.merge.value.FloatText;
import io.ashlar.merge.value.TypeOids;
import io.netty.buffer.ByteBuf;

/**
 * {@code float4}: {@code float4send} writes the IEEE 754 single-precision bits big-endian. Exact
 * only if the backend printed shortest round-trip digits ({@code extra_float_digits} &gt; 0). See
 * <a href="https://www.postgresql.org/docs/current/datatype-numeric.html#DATATYPE-FLOAT">
 * Floating-Point Types</a>.
 */
final class Float4Encoder implements ValueEncoder {

    static final Float4Encoder INSTANCE = new Float4Encoder();

    private Float4Encoder() {
    }

    @Override
    public int typeOid() {
        return TypeOids.FLOAT4;
    }

    @Override
    public void write(byte[] text, int offset, int length, ByteBuf out) {
        out.writeInt(Float.floatToRawIntBits(FloatText.parseFloat(text, offset, length)));
    }

    @Override
    public void writeWithLength(byte[] text, int offset, int length, ByteBuf out) {
        out.writeInt(Float.BYTES);
        write(text, offset, length, out);
    }
}
