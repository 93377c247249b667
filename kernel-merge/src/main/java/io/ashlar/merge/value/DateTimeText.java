package io.ashlar.merge.value;

import java.nio.charset.StandardCharsets;

/**
 * Dates and times as the backends print them with {@code DateStyle = ISO}
 * (<a href="https://www.postgresql.org/docs/current/datatype-datetime.html#DATATYPE-DATETIME-OUTPUT">Date/Time Output</a>),
 * read into numbers that order as PostgreSQL orders the values: {@code 2024-01-15},
 * {@code 0044-03-15 BC}, {@code 12:34:56.789}, {@code 12:34:56+05:30},
 * {@code 2024-01-15 12:34:56.5-08}, {@code 10000-01-01 00:00:00}, {@code infinity},
 * {@code -infinity}.
 */
public final class DateTimeText {

    /** Value of {@code infinity}: above every date or timestamp. */
    public static final long INFINITY = Long.MAX_VALUE;
    /** Value of {@code -infinity}: below every date or timestamp. */
    public static final long MINUS_INFINITY = Long.MIN_VALUE;

    public static final long MICROS_PER_SECOND = 1_000_000L;
    public static final long MICROS_PER_DAY = 86_400L * MICROS_PER_SECOND;

    private DateTimeText() {
    }

    /** Days since 1970-01-01 (proleptic Gregorian, BC years astronomical), or ±infinity. */
    public static long parseDate(byte[] text) {
        long infinity = infinity(text);
        if (infinity != 0) {
            return infinity;
        }
        int end = bcEnd(text);
        return parseDays(text, 0, end, end != text.length);
    }

    /** Microseconds since 1970-01-01 00:00:00 of a timestamp without time zone, or ±infinity. */
    public static long parseTimestamp(byte[] text) {
        return parseTimestamp(text, false);
    }

    /** Microseconds since the UTC epoch of a timestamp with time zone, or ±infinity. */
    public static long parseTimestampTz(byte[] text) {
        return parseTimestamp(text, true);
    }

    /** Microseconds since midnight of a time without time zone. */
    public static long parseTime(byte[] text) {
        int clockEnd = clockEnd(text, 0, text.length);
        if (clockEnd != text.length) {
            throw invalid("time", text);
        }
        return parseClock(text, 0, clockEnd);
    }

    /**
     * A time with time zone as PostgreSQL orders it ({@code timetz_cmp_internal}): writes the
     * UTC-equivalent microseconds to {@code slots[offset]} and the zone in seconds west of UTC
     * to {@code slots[offset + 1]}, the tie-breaker.
     */
    public static void parseTimeTz(byte[] text, long[] slots, int offset) {
        int clockEnd = clockEnd(text, 0, text.length);
        long local = parseClock(text, 0, clockEnd);
        long zoneEast = parseZone(text, clockEnd, text.length);
        slots[offset] = local - zoneEast * MICROS_PER_SECOND;
        slots[offset + 1] = -zoneEast;
    }

    /** Microseconds from a date's day count, saturating at ±infinity (for date vs timestamp). */
    public static long daysToMicros(long days) {
        if (days == INFINITY || days > Long.MAX_VALUE / MICROS_PER_DAY) {
            return INFINITY;
        }
        if (days == MINUS_INFINITY || days < Long.MIN_VALUE / MICROS_PER_DAY) {
            return MINUS_INFINITY;
        }
        return days * MICROS_PER_DAY;
    }

    private static long parseTimestamp(byte[] text, boolean withZone) {
        long infinity = infinity(text);
        if (infinity != 0) {
            return infinity;
        }
        int end = bcEnd(text);
        int space = indexOf(text, (byte) ' ', 0, end);
        if (space < 0) {
            throw invalid("timestamp", text);
        }
        long days = parseDays(text, 0, space, end != text.length);
        int clockEnd = clockEnd(text, space + 1, end);
        long micros = days * MICROS_PER_DAY + parseClock(text, space + 1, clockEnd);
        if (withZone) {
            micros -= parseZone(text, clockEnd, end) * MICROS_PER_SECOND;
        } else if (clockEnd != end) {
            throw invalid("timestamp", text);
        }
        return micros;
    }

    private static long infinity(byte[] text) {
        if (text.length > 0 && text[0] == 'i') {
            return INFINITY;
        }
        if (text.length > 1 && text[0] == '-' && text[1] == 'i') {
            return MINUS_INFINITY;
        }
        return 0;
    }

    /** The end of the value without a trailing {@code " BC"}. */
    private static int bcEnd(byte[] text) {
        int length = text.length;
        if (length > 3 && text[length - 1] == 'C' && text[length - 2] == 'B' && text[length - 3] == ' ') {
            return length - 3;
        }
        return length;
    }

    private static long parseDays(byte[] text, int from, int to, boolean beforeChrist) {
        int firstDash = indexOf(text, (byte) '-', from + 1, to);
        if (firstDash < 0 || to - firstDash != 6 || text[firstDash + 3] != '-') {
            throw invalid("date", text);
        }
        long year = digits(text, from, firstDash);
        int month = (int) digits(text, firstDash + 1, firstDash + 3);
        int day = (int) digits(text, firstDash + 4, to);
        return daysFromCivil(beforeChrist ? 1 - year : year, month, day);
    }

    /** Days from 1970-01-01 to a proleptic Gregorian date, astronomical year numbering. */
    public static long daysFromCivil(long year, int month, int day) {
        long y = month <= 2 ? year - 1 : year;
        long era = Math.floorDiv(y, 400);
        long yearOfEra = y - era * 400;
        long dayOfYear = (153L * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1;
        long dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear;
        return era * 146_097 + dayOfEra - 719_468;
    }

    private static int clockEnd(byte[] text, int from, int to) {
        int position = from;
        while (position < to) {
            byte each = text[position];
            if ((each >= '0' && each <= '9') || each == ':' || each == '.') {
                position++;
            } else {
                break;
            }
        }
        return position;
    }

    /** {@code HH:MM:SS[.ffffff]} to microseconds. */
    private static long parseClock(byte[] text, int from, int to) {
        if (to - from < 8 || text[from + 2] != ':' || text[from + 5] != ':') {
            throw invalid("time", text);
        }
        long hours = digits(text, from, from + 2);
        long minutes = digits(text, from + 3, from + 5);
        long seconds = digits(text, from + 6, from + 8);
        long micros = 0;
        if (to > from + 8) {
            if (text[from + 8] != '.' || to - from - 9 > 6 || to - from - 9 < 1) {
                throw invalid("time", text);
            }
            int fractionDigits = to - from - 9;
            micros = digits(text, from + 9, to);
            for (int i = fractionDigits; i < 6; i++) {
                micros *= 10;
            }
        }
        return ((hours * 60 + minutes) * 60 + seconds) * MICROS_PER_SECOND + micros;
    }

    /** {@code +HH[:MM[:SS]]} to seconds east of UTC. */
    private static long parseZone(byte[] text, int from, int to) {
        if (to - from < 3 || (text[from] != '+' && text[from] != '-')) {
            throw invalid("time zone", text);
        }
        long seconds = digits(text, from + 1, from + 3) * 3600;
        if (to - from >= 6) {
            seconds += digits(text, from + 4, from + 6) * 60;
        }
        if (to - from >= 9) {
            seconds += digits(text, from + 7, from + 9);
        }
        return text[from] == '-' ? -seconds : seconds;
    }

    private static long digits(byte[] text, int from, int to) {
        if (from >= to) {
            throw invalid("date/time", text);
        }
        long result = 0;
        for (int i = from; i < to; i++) {
            int digit = text[i] - '0';
            if (digit < 0 || digit > 9) {
                throw invalid("date/time", text);
            }
            result = result * 10 + digit;
        }
        return result;
    }

    private static int indexOf(byte[] text, byte wanted, int from, int to) {
        for (int i = from; i < to; i++) {
            if (text[i] == wanted) {
                return i;
            }
        }
        return -1;
    }

    private static IllegalArgumentException invalid(String what, byte[] text) {
        return new IllegalArgumentException("unexpected " + what + " text \"" + new String(text, StandardCharsets.UTF_8)
                + "\"; the backends must run with DateStyle ISO");
    }
}
