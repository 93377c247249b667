package io.ashlar.frontend.types;

import io.ashlar.merge.value.DateTimeText;
import io.ashlar.merge.value.TypeOids;
import io.netty.buffer.ByteBuf;

/**
 * {@code time with time zone}: {@code timetz_send} writes Int64 microseconds since midnight, then
 * Int32 the zone in seconds WEST of UTC (PostgreSQL's internal sign), from text
 * {@code HH:MM:SS[.ffffff]±HH[:MM[:SS]]}.
 */
final class TimetzEncoder implements ValueEncoder {

    static final TimetzEncoder INSTANCE = new TimetzEncoder();

    private static final String TYPE_NAME = "time with time zone";

    private TimetzEncoder() {
    }

    @Override
    public int typeOid() {
        return TypeOids.TIMETZ;
    }

    @Override
    public void write(byte[] text, int offset, int length, ByteBuf out) {
        int end = offset + length;
        int zone = DateTimeText.zoneStart(text, offset, end, TYPE_NAME);
        out.writeLong(DateTimeText.parseClock(text, offset, zone, TYPE_NAME));
        out.writeInt(-DateTimeText.parseOffset(text, zone, end, TYPE_NAME));
    }

    @Override
    public void writeWithLength(byte[] text, int offset, int length, ByteBuf out) {
        out.writeInt(Long.BYTES + Integer.BYTES);
        write(text, offset, length, out);
    }
}
