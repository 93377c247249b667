package io.ashlar.frontend.types;

import io.ashlar.merge.value.TypeOids;
import io.netty.buffer.ByteBuf;

/**
 * {@code jsonb}: {@code jsonb_send} writes the format version byte 1 and then the same text that
 * {@code jsonb_out} writes. See <a href="https://www.postgresql.org/docs/current/datatype-json.html">
 * JSON Types</a>.
 */
final class JsonbEncoder implements ValueEncoder {

    static final JsonbEncoder INSTANCE = new JsonbEncoder();

    private static final int JSONB_VERSION = 1;

    private JsonbEncoder() {
    }

    @Override
    public int typeOid() {
        return TypeOids.JSONB;
    }

    @Override
    public void write(byte[] text, int offset, int length, ByteBuf out) {
        out.writeByte(JSONB_VERSION);
        out.writeBytes(text, offset, length);
    }
}
