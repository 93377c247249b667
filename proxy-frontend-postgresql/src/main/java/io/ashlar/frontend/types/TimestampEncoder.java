package io.ashlar.frontend.types;

import io.ashlar.merge.value.DateTimeText;
import io.ashlar.merge.value.TypeOids;
import io.netty.buffer.ByteBuf;

/**
 * {@code timestamp} and {@code timestamptz}: {@code timestamp_send} writes Int64 microseconds
 * since 2000-01-01 00:00:00 (UTC for timestamptz); {@code infinity} and {@code -infinity} are
 * {@code DT_NOEND} (Int64 max) and {@code DT_NOBEGIN} (Int64 min). The text is DateStyle ISO,
 * {@code 2024-01-31 12:34:56.789}, and for timestamptz the session time zone's offset follows the
 * time ({@code +01}, {@code +05:30}, {@code +00:19:32}), which is subtracted to get back to UTC.
 * Years before 1 AD end in {@code " BC"}. See
 * <a href="https://www.postgresql.org/docs/current/datatype-datetime.html">Date/Time Types</a>.
 */
final class TimestampEncoder implements ValueEncoder {

    static final TimestampEncoder WITHOUT_TIME_ZONE = new TimestampEncoder(false);
    static final TimestampEncoder WITH_TIME_ZONE = new TimestampEncoder(true);

    private final boolean withTimeZone;
    private final String typeName;

    private TimestampEncoder(boolean withTimeZone) {
        this.withTimeZone = withTimeZone;
        this.typeName = withTimeZone ? "timestamp with time zone" : "timestamp without time zone";
    }

    @Override
    public int typeOid() {
        return withTimeZone ? TypeOids.TIMESTAMPTZ : TypeOids.TIMESTAMP;
    }

    @Override
    public void write(byte[] text, int offset, int length, ByteBuf out) {
        out.writeLong(DateTimeText.postgresMicros(text, offset, offset + length, withTimeZone, typeName));
    }

    @Override
    public void writeWithLength(byte[] text, int offset, int length, ByteBuf out) {
        out.writeInt(Long.BYTES);
        write(text, offset, length, out);
    }
}
