package io.ashlar.frontend.types;

import io.ashlar.merge.value.FloatText;
import io.ashlar.merge.value.TypeOids;
import io.netty.buffer.ByteBuf;

/**
 * {@code float8}: {@code float8send} writes the IEEE 754 bits big-endian. Exact only if the
 * backend printed shortest round-trip digits ({@code extra_float_digits} &gt; 0). A NaN's payload
 * and sign cannot be seen in the text; the canonical quiet NaN is sent, as for {@code 'NaN'}. See
 * <a href="https://www.postgresql.org/docs/current/datatype-numeric.html#DATATYPE-FLOAT">
 * Floating-Point Types</a>.
 */
final class Float8Encoder implements ValueEncoder {

    static final Float8Encoder INSTANCE = new Float8Encoder();

    private Float8Encoder() {
    }

    @Override
    public int typeOid() {
        return TypeOids.FLOAT8;
    }

    @Override
    public void write(byte[] text, int offset, int length, ByteBuf out) {
        out.writeLong(Double.doubleToRawLongBits(FloatText.parseDouble(text, offset, length)));
    }

    @Override
    public void writeWithLength(byte[] text, int offset, int length, ByteBuf out) {
        out.writeInt(Long.BYTES);
        write(text, offset, length, out);
    }
}
