package io.ashlar.frontend.types;

import io.ashlar.merge.value.AsciiText;
import io.ashlar.merge.value.TypeOids;
import io.netty.buffer.ByteBuf;

/**
 * {@code bool}: {@code boolout} writes {@code t} or {@code f}, {@code boolsend} one byte 1 or 0.
 * See <a href="https://www.postgresql.org/docs/current/datatype-boolean.html">Boolean Type</a>.
 */
final class BoolEncoder implements ValueEncoder {

    static final BoolEncoder INSTANCE = new BoolEncoder();

    private BoolEncoder() {
    }

    @Override
    public int typeOid() {
        return TypeOids.BOOL;
    }

    @Override
    public void write(byte[] text, int offset, int length, ByteBuf out) {
        if (length == 1 && text[offset] == 't') {
            out.writeByte(1);
        } else if (length == 1 && text[offset] == 'f') {
            out.writeByte(0);
        } else {
            throw AsciiText.malformed("boolean", text, offset, offset + length);
        }
    }
}
