package io.ashlar.frontend.types;

import io.ashlar.merge.value.AsciiText;
import io.ashlar.merge.value.DateTimeText;
import io.ashlar.merge.value.TypeOids;
import io.netty.buffer.ByteBuf;

/**
 * {@code interval}: {@code interval_send} writes Int64 microseconds, Int32 days, Int32 months.
 * The text is IntervalStyle {@code postgres} ({@code EncodeInterval}): optional
 * {@code N year[s]}, {@code N mon[s]}, {@code N day[s]} parts, each signed on its own, then an
 * optional {@code [+-]H:MM:SS[.ffffff]} whose sign covers the whole time part, for example
 * {@code 1 year 2 mons 3 days 04:05:06.789} or {@code -1 days +02:00:00}. PostgreSQL 17's
 * {@code infinity} and {@code -infinity} are every field at its maximum or minimum. See
 * <a href="https://www.postgresql.org/docs/current/datatype-datetime.html#DATATYPE-INTERVAL-OUTPUT">
 * Interval Output</a>.
 */
final class IntervalEncoder implements ValueEncoder {

    static final IntervalEncoder INSTANCE = new IntervalEncoder();

    private static final String TYPE_NAME = "interval";
    private static final int MONTHS_PER_YEAR = 12;
    private static final int BINARY_LENGTH = 16;

    private IntervalEncoder() {
    }

    @Override
    public int typeOid() {
        return TypeOids.INTERVAL;
    }

    @Override
    public void writeWithLength(byte[] text, int offset, int length, ByteBuf out) {
        out.writeInt(BINARY_LENGTH);
        write(text, offset, length, out);
    }

    @Override
    public void write(byte[] text, int offset, int length, ByteBuf out) {
        int end = offset + length;
        if (AsciiText.equalsAscii(text, offset, end, "infinity")) {
            writeInterval(out, Long.MAX_VALUE, Integer.MAX_VALUE, Integer.MAX_VALUE);
            return;
        }
        if (AsciiText.equalsAscii(text, offset, end, "-infinity")) {
            writeInterval(out, Long.MIN_VALUE, Integer.MIN_VALUE, Integer.MIN_VALUE);
            return;
        }
        long months = 0;
        long days = 0;
        long micros = 0;
        int p = offset;
        while (p < end) {
            int numberEnd = AsciiText.indexOf(text, (byte) ' ', p, end);
            if (AsciiText.indexOf(text, (byte) ':', p, numberEnd) < numberEnd) {
                if (numberEnd != end) {
                    throw AsciiText.malformed(TYPE_NAME, text, offset, end);
                }
                micros = clock(text, p, end);
                break;
            }
            long number = AsciiText.parseLong(text, p, numberEnd, TYPE_NAME);
            int unitStart = numberEnd + 1;
            int unitEnd = AsciiText.indexOf(text, (byte) ' ', unitStart, end);
            if (isUnit(text, unitStart, unitEnd, "year")) {
                months += number * MONTHS_PER_YEAR;
            } else if (isUnit(text, unitStart, unitEnd, "mon")) {
                months += number;
            } else if (isUnit(text, unitStart, unitEnd, "day")) {
                days += number;
            } else {
                throw AsciiText.malformed(TYPE_NAME, text, offset, end);
            }
            p = unitEnd + 1;
        }
        if (months != (int) months || days != (int) days) {
            throw AsciiText.malformed(TYPE_NAME, text, offset, end);
        }
        writeInterval(out, micros, (int) days, (int) months);
    }

    private static void writeInterval(ByteBuf out, long micros, int days, int months) {
        out.writeLong(micros);
        out.writeInt(days);
        out.writeInt(months);
    }

    /** The signed time part; its sign applies to hours, minutes and seconds together. */
    private static long clock(byte[] text, int from, int to) {
        boolean negative = text[from] == '-';
        int start = negative || text[from] == '+' ? from + 1 : from;
        long result = DateTimeText.parseClock(text, start, to, TYPE_NAME);
        return negative ? -result : result;
    }

    /** {@code unit} or its plural with an {@code s}: {@code EncodeInterval} writes both. */
    private static boolean isUnit(byte[] text, int from, int to, String unit) {
        int singularEnd = to - 1;
        return AsciiText.equalsAscii(text, from, to, unit)
                || singularEnd > from && text[singularEnd] == 's'
                && AsciiText.equalsAscii(text, from, singularEnd, unit);
    }
}
