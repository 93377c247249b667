package io.ashlar.frontend.types;

import io.ashlar.merge.value.AsciiText;
import io.ashlar.merge.value.TypeOids;
import io.netty.buffer.ByteBuf;

/**
 * {@code uuid}: 32 hex digits, grouped by hyphens in the text form, to 16 bytes in order
 * ({@code uuid_send}). See <a href="https://www.postgresql.org/docs/current/datatype-uuid.html">UUID
 * Type</a>.
 */
final class UuidEncoder implements ValueEncoder {

    static final UuidEncoder INSTANCE = new UuidEncoder();

    private static final int HEX_DIGITS = 32;

    private UuidEncoder() {
    }

    @Override
    public int typeOid() {
        return TypeOids.UUID;
    }

    @Override
    public void write(byte[] text, int offset, int length, ByteBuf out) {
        int end = offset + length;
        long high = 0;
        long low = 0;
        int digits = 0;
        for (int p = offset; p < end; p++) {
            byte b = text[p];
            if (b == '-') {
                continue;
            }
            int d = AsciiText.hexDigit(b);
            if (d < 0 || digits == HEX_DIGITS) {
                throw AsciiText.malformed("uuid", text, offset, end);
            }
            if (digits < HEX_DIGITS / 2) {
                high = high << 4 | d;
            } else {
                low = low << 4 | d;
            }
            digits++;
        }
        if (digits != HEX_DIGITS) {
            throw AsciiText.malformed("uuid", text, offset, end);
        }
        out.writeLong(high);
        out.writeLong(low);
    }
}
