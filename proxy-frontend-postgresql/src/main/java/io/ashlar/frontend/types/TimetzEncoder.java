package io.ashlar.frontend.types;

import io.netty.buffer.ByteBuf;

/**
 * {@code time with time zone}: {@code timetz_send} writes Int64 microseconds since midnight, then
 * Int32 the zone in seconds WEST of UTC (PostgreSQL's internal sign), from text
 * {@code HH:MM:SS[.ffffff]±HH[:MM[:SS]]}.
 */
final class TimetzEncoder implements ValueEncoder {

    static final TimetzEncoder INSTANCE = new TimetzEncoder();

    private TimetzEncoder() {
    }

    @Override
    public int typeOid() {
        return TypeOids.TIMETZ;
    }

    @Override
    public void write(byte[] text, int offset, int length, ByteBuf out) {
        int end = offset + length;
        int sign = -1;
        for (int i = end - 1; i > offset; i--) {
            if (text[i] == '+' || text[i] == '-') {
                sign = i;
                break;
            }
        }
        if (sign < 0) {
            throw AsciiText.malformed("time with time zone", text, offset, end);
        }
        out.writeLong(DateTimeText.parseClock(text, offset, sign, "time with time zone"));
        out.writeInt(-DateTimeText.parseOffset(text, sign, end, "time with time zone"));
    }

    @Override
    public void writeWithLength(byte[] text, int offset, int length, ByteBuf out) {
        out.writeInt(Long.BYTES + Integer.BYTES);
        write(text, offset, length, out);
    }
}
