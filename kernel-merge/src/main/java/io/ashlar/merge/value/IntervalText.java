package io.ashlar.merge.value;

import java.nio.charset.StandardCharsets;

/**
 * {@code interval} as the backends print it with {@code IntervalStyle = postgres}, the default
 * (<a href="https://www.postgresql.org/docs/current/datatype-datetime.html#DATATYPE-INTERVAL-OUTPUT">Interval Output</a>):
 * {@code 1 year 2 mons 3 days 04:05:06.789}, {@code -1 days +02:00:00}, {@code 00:00:00},
 * {@code infinity}.
 *
 * <p>PostgreSQL orders intervals by one 128-bit span in microseconds, counting a month as 30
 * days and a day as 24 hours ({@code interval_cmp_value}), so {@code 1 mon = 30 days}. This
 * class computes that span into two longs: the signed high and the unsigned low half.
 */
public final class IntervalText {

    private static final long MICROS_PER_MONTH = 30 * DateTimeText.MICROS_PER_DAY;

    private IntervalText() {
    }

    /** Writes the span's high half to {@code slots[offset]} and low half to {@code slots[offset + 1]}. */
    public static void parseSpan(byte[] text, long[] slots, int offset) {
        if (text.length > 0 && text[0] == 'i') {
            slots[offset] = Long.MAX_VALUE;
            slots[offset + 1] = -1L;
            return;
        }
        if (text.length > 1 && text[0] == '-' && text[1] == 'i') {
            slots[offset] = Long.MIN_VALUE;
            slots[offset + 1] = 0;
            return;
        }
        long high = 0;
        long low = 0;
        int position = 0;
        int length = text.length;
        while (position < length) {
            while (position < length && text[position] == ' ') {
                position++;
            }
            if (position == length) {
                break;
            }
            int tokenEnd = position;
            while (tokenEnd < length && text[tokenEnd] != ' ') {
                tokenEnd++;
            }
            if (indexOf(text, (byte) ':', position, tokenEnd) >= 0) {
                long micros = parseClock(text, position, tokenEnd);
                long sign = micros >> 63;
                long sumLow = low + micros;
                high += sign + (Long.compareUnsigned(sumLow, low) < 0 ? 1 : 0);
                low = sumLow;
                position = tokenEnd;
                continue;
            }
            long quantity = IntegerText.parse(text, position, tokenEnd);
            int unitStart = tokenEnd + 1;
            int unitEnd = unitStart;
            while (unitEnd < length && text[unitEnd] != ' ') {
                unitEnd++;
            }
            if (unitStart >= length) {
                throw invalid(text);
            }
            long factor = switch (text[unitStart]) {
                case 'y' -> 12 * MICROS_PER_MONTH;
                case 'm' -> MICROS_PER_MONTH;
                case 'd' -> DateTimeText.MICROS_PER_DAY;
                default -> throw invalid(text);
            };
            long productLow = quantity * factor;
            long productHigh = Math.multiplyHigh(quantity, factor);
            long sumLow = low + productLow;
            high += productHigh + (Long.compareUnsigned(sumLow, low) < 0 ? 1 : 0);
            low = sumLow;
            position = unitEnd;
        }
        slots[offset] = high;
        slots[offset + 1] = low;
    }

    /** {@code [+-]H+:MM:SS[.ffffff]} to signed microseconds. */
    private static long parseClock(byte[] text, int from, int to) {
        int position = from;
        boolean negative = false;
        if (text[position] == '+' || text[position] == '-') {
            negative = text[position] == '-';
            position++;
        }
        int firstColon = indexOf(text, (byte) ':', position, to);
        if (firstColon < 0 || to - firstColon < 6 || text[firstColon + 3] != ':') {
            throw invalid(text);
        }
        long hours = IntegerText.parse(text, position, firstColon);
        long minutes = IntegerText.parse(text, firstColon + 1, firstColon + 3);
        long seconds = IntegerText.parse(text, firstColon + 4, firstColon + 6);
        long micros = 0;
        int fraction = firstColon + 6;
        if (fraction < to) {
            if (text[fraction] != '.' || to - fraction - 1 > 6 || to - fraction - 1 < 1) {
                throw invalid(text);
            }
            micros = IntegerText.parse(text, fraction + 1, to);
            for (int i = to - fraction - 1; i < 6; i++) {
                micros *= 10;
            }
        }
        long result = ((hours * 60 + minutes) * 60 + seconds) * DateTimeText.MICROS_PER_SECOND + micros;
        return negative ? -result : result;
    }

    private static int indexOf(byte[] text, byte wanted, int from, int to) {
        for (int i = from; i < to; i++) {
            if (text[i] == wanted) {
                return i;
            }
        }
        return -1;
    }

    private static IllegalArgumentException invalid(byte[] text) {
        return new IllegalArgumentException("unexpected interval text \"" + new String(text, StandardCharsets.UTF_8)
                + "\"; the backends must run with IntervalStyle postgres");
    }
}
