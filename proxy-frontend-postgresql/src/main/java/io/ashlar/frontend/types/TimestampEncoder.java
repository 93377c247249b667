package io.ashlar.frontend.types;

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

    /** {@code YYYY-MM-DD}: the shortest date part, a year has at least four digits. */
    private static final int DATE_LENGTH = 10;

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
        out.writeLong(toMicros(text, offset, offset + length));
    }

    @Override
    public void writeWithLength(byte[] text, int offset, int length, ByteBuf out) {
        out.writeInt(Long.BYTES);
        write(text, offset, length, out);
    }

    private long toMicros(byte[] text, int offset, int end) {
        if (end > offset && (text[offset] == 'i' || text[offset] == '-')) {
            return infinity(text, offset, end);
        }
        boolean bc = DateTimeText.endsWithBc(text, offset, end);
        int valueEnd = DateTimeText.endWithoutBc(text, offset, end);
        int dateEnd = AsciiText.indexOf(text, (byte) ' ', offset, valueEnd);
        if (dateEnd - offset < DATE_LENGTH || dateEnd == valueEnd) {
            throw AsciiText.malformed(typeName, text, offset, end);
        }
        long days = DateTimeText.parseDate(text, offset, dateEnd, bc, typeName);
        int clockEnd = valueEnd;
        long offsetMicros = 0;
        if (withTimeZone) {
            clockEnd = offsetStart(text, dateEnd + 1, valueEnd);
            offsetMicros = DateTimeText.parseOffset(text, clockEnd, valueEnd, typeName) * DateTimeText.USECS_PER_SEC;
        }
        long clock = DateTimeText.parseClock(text, dateEnd + 1, clockEnd, typeName);
        return days * DateTimeText.USECS_PER_DAY + clock - offsetMicros;
    }

    private int offsetStart(byte[] text, int from, int to) {
        for (int i = from; i < to; i++) {
            if (text[i] == '+' || text[i] == '-') {
                return i;
            }
        }
        throw AsciiText.malformed(typeName, text, from, to);
    }

    private long infinity(byte[] text, int offset, int end) {
        if (AsciiText.equalsAscii(text, offset, end, "infinity")) {
            return Long.MAX_VALUE;
        }
        if (AsciiText.equalsAscii(text, offset, end, "-infinity")) {
            return Long.MIN_VALUE;
        }
        throw AsciiText.malformed(typeName, text, offset, end);
    }
}
