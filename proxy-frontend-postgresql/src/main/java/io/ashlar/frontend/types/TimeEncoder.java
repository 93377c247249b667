package io.ashlar.frontend.types;

import io.ashlar.merge.value.DateTimeText;
import io.ashlar.merge.value.TypeOids;
import io.netty.buffer.ByteBuf;

/**
 * {@code time} (without time zone): {@code time_send} writes Int64 microseconds since midnight,
 * from text {@code HH:MM:SS[.ffffff]} ({@code 24:00:00} included). See
 * <a href="https://www.postgresql.org/docs/current/datatype-datetime.html">Date/Time Types</a>.
 */
final class TimeEncoder implements ValueEncoder {

    static final TimeEncoder INSTANCE = new TimeEncoder();

    private TimeEncoder() {
    }

    @Override
    public int typeOid() {
        return TypeOids.TIME;
    }

    @Override
    public void write(byte[] text, int offset, int length, ByteBuf out) {
        out.writeLong(DateTimeText.parseClock(text, offset, offset + length, "time"));
    }

    @Override
    public void writeWithLength(byte[] text, int offset, int length, ByteBuf out) {
        out.writeInt(Long.BYTES);
        write(text, offset, length, out);
    }
}
