package io.ashlar.merge.value;

/**
 * Dates and times as the backends print them with {@code DateStyle = ISO}
 * ({@code EncodeDateOnly}, {@code EncodeDateTime}, {@code EncodeTimeOnly}; see
 * <a href="https://www.postgresql.org/docs/current/datatype-datetime.html#DATATYPE-DATETIME-OUTPUT">Date/Time Output</a>):
 * {@code 2024-01-15}, {@code 0044-03-15 BC}, {@code 10000-01-01}, {@code 12:34:56.789},
 * {@code 12:34:56+05:30}, {@code 2024-01-15 12:34:56.5-08}, {@code infinity}, {@code -infinity}.
 *
 * <p>Read in two ways from the same pieces: counted from PostgreSQL's epoch, 2000-01-01, as its
 * binary format counts ({@link #postgresDays}, {@link #postgresMicros}: the frontend's binary
 * results), and from 1970-01-01 for the merge's ordering ({@link #parseDate}, {@link #parseTimestamp});
 * dates in the proleptic Gregorian calendar, BC years astronomical, times in microseconds. The
 * infinities are {@link #INFINITY} and {@link #MINUS_INFINITY} either way, which are also
 * PostgreSQL's own {@code DT_NOEND} and {@code DT_NOBEGIN}. Text no output function prints fails
 * with {@link AsciiText#malformed}.
 */
public final class DateTimeText {

    /** Value of {@code infinity}: above every date or timestamp. */
    public static final long INFINITY = Long.MAX_VALUE;
    /** Value of {@code -infinity}: below every date or timestamp. */
    public static final long MINUS_INFINITY = Long.MIN_VALUE;

    public static final long MICROS_PER_SECOND = 1_000_000L;
    public static final long MICROS_PER_MINUTE = 60 * MICROS_PER_SECOND;
    public static final long MICROS_PER_HOUR = 60 * MICROS_PER_MINUTE;
    public static final long MICROS_PER_DAY = 24 * MICROS_PER_HOUR;
    /** 2000-01-01, PostgreSQL's epoch, in days since 1970-01-01. */
    public static final long POSTGRES_EPOCH_DAYS = 10_957;

    private static final long POSTGRES_EPOCH_MICROS = POSTGRES_EPOCH_DAYS * MICROS_PER_DAY;
    private static final int MAX_FRACTION_DIGITS = 6;
    private static final int[] FRACTION_SCALE = {1_000_000, 100_000, 10_000, 1_000, 100, 10, 1};
    private static final int BC_SUFFIX_LENGTH = 3;
    /** {@code YYYY-MM-DD}: the shortest date part, a year has at least four digits. */
    private static final int DATE_LENGTH = 10;

    private DateTimeText() {
    }

    // ------------------------------------------------------------------ whole values, from 1970

    /** Days since 1970-01-01, or ±infinity. */
    public static long parseDate(byte[] text) {
        long days = postgresDays(text, 0, text.length, "date");
        return days == INFINITY || days == MINUS_INFINITY ? days : days + POSTGRES_EPOCH_DAYS;
    }

    /** Microseconds since 1970-01-01 00:00:00 of a timestamp without time zone, or ±infinity. */
    public static long parseTimestamp(byte[] text) {
        return fromUnixEpoch(postgresMicros(text, 0, text.length, false, "timestamp without time zone"));
    }

    /** Microseconds since the UTC epoch of a timestamp with time zone, or ±infinity. */
    public static long parseTimestampTz(byte[] text) {
        return fromUnixEpoch(postgresMicros(text, 0, text.length, true, "timestamp with time zone"));
    }

    private static long fromUnixEpoch(long micros) {
        return micros == INFINITY || micros == MINUS_INFINITY ? micros : micros + POSTGRES_EPOCH_MICROS;
    }

    /** Microseconds since midnight of a time without time zone. */
    public static long parseTime(byte[] text) {
        return parseClock(text, 0, text.length, "time");
    }

    /**
     * A time with time zone as PostgreSQL orders it ({@code timetz_cmp_internal}): writes the
     * UTC-equivalent microseconds to {@code slots[offset]} and the zone in seconds west of UTC
     * to {@code slots[offset + 1]}, the tie-breaker.
     */
    public static void parseTimeTz(byte[] text, long[] slots, int offset) {
        int zone = zoneStart(text, 0, text.length, "time with time zone");
        long local = parseClock(text, 0, zone, "time with time zone");
        long zoneEast = parseOffset(text, zone, text.length, "time with time zone");
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

    /** Days from 1970-01-01 to a proleptic Gregorian date, astronomical year numbering. */
    public static long daysFromCivil(long year, int month, int day) {
        long y = month <= 2 ? year - 1 : year;
        long era = Math.floorDiv(y, 400);
        long yearOfEra = y - era * 400;
        long dayOfYear = (153L * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1;
        long dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear;
        return era * 146_097 + dayOfEra - 719_468;
    }

    // ------------------------------------------------------------------ from PostgreSQL's epoch

    /** Days since 2000-01-01 of a date filling {@code text[from, to)}, or ±infinity. */
    public static long postgresDays(byte[] text, int from, int to, String typeName) {
        if (to > from && (text[from] == 'i' || text[from] == '-')) {
            return infinity(text, from, to, typeName);
        }
        boolean bc = endsWithBc(text, from, to);
        return parseDays(text, from, bc ? to - BC_SUFFIX_LENGTH : to, bc, typeName);
    }

    /**
     * Microseconds since 2000-01-01 00:00:00 (UTC for a timestamp with time zone) of a timestamp
     * filling {@code text[from, to)}, or ±infinity: the date, a space, the time, and with
     * {@code withZone} the session time zone's offset ({@code +01}, {@code +05:30},
     * {@code +00:19:32}), which is subtracted to get back to UTC.
     */
    public static long postgresMicros(byte[] text, int from, int to, boolean withZone, String typeName) {
        if (to > from && (text[from] == 'i' || text[from] == '-')) {
            return infinity(text, from, to, typeName);
        }
        boolean bc = endsWithBc(text, from, to);
        int valueEnd = bc ? to - BC_SUFFIX_LENGTH : to;
        int dateEnd = AsciiText.indexOf(text, (byte) ' ', from, valueEnd);
        if (dateEnd - from < DATE_LENGTH || dateEnd == valueEnd) {
            throw AsciiText.malformed(typeName, text, from, to);
        }
        long days = parseDays(text, from, dateEnd, bc, typeName);
        int clockEnd = valueEnd;
        long offsetMicros = 0;
        if (withZone) {
            clockEnd = zoneStart(text, dateEnd + 1, valueEnd, typeName);
            offsetMicros = parseOffset(text, clockEnd, valueEnd, typeName) * MICROS_PER_SECOND;
        }
        long clock = parseClock(text, dateEnd + 1, clockEnd, typeName);
        return days * MICROS_PER_DAY + clock - offsetMicros;
    }

    private static long infinity(byte[] text, int from, int to, String typeName) {
        if (AsciiText.equalsAscii(text, from, to, "infinity")) {
            return INFINITY;
        }
        if (AsciiText.equalsAscii(text, from, to, "-infinity")) {
            return MINUS_INFINITY;
        }
        throw AsciiText.malformed(typeName, text, from, to);
    }

    /** Whether the text ends in the " BC" that marks a year before 1 AD. */
    private static boolean endsWithBc(byte[] text, int from, int to) {
        return to - from > BC_SUFFIX_LENGTH && text[to - 3] == ' ' && text[to - 2] == 'B' && text[to - 1] == 'C';
    }

    /**
     * Days since 2000-01-01 of {@code Y...Y-MM-DD} filling {@code text[from, to)}: a year of four
     * or more digits, counted backwards from 1 BC when {@code bc}.
     */
    private static long parseDays(byte[] text, int from, int to, boolean bc, String typeName) {
        int yearEnd = AsciiText.indexOf(text, (byte) '-', from, to);
        if (to - yearEnd != 6 || text[yearEnd + 3] != '-') {
            throw AsciiText.malformed(typeName, text, from, to);
        }
        long year = AsciiText.parseUnsigned(text, from, yearEnd, typeName);
        int month = AsciiText.twoDigits(text, yearEnd + 1, to, typeName);
        int day = AsciiText.twoDigits(text, yearEnd + 4, to, typeName);
        if (bc) {
            year = 1 - year;
        }
        return daysFromCivil(year, month, day) - POSTGRES_EPOCH_DAYS;
    }

    /**
     * Microseconds of {@code H...H:MM:SS[.f...]} filling {@code text[from, to)}: any number of hour
     * digits (intervals print hundreds of hours; a time prints {@code 24:00:00}) and at most six
     * fractional digits.
     */
    public static long parseClock(byte[] text, int from, int to, String typeName) {
        int hoursEnd = AsciiText.indexOf(text, (byte) ':', from, to);
        if (to - hoursEnd < 6 || text[hoursEnd + 3] != ':') {
            throw AsciiText.malformed(typeName, text, from, to);
        }
        long hours = AsciiText.parseUnsigned(text, from, hoursEnd, typeName);
        int minutes = AsciiText.twoDigits(text, hoursEnd + 1, to, typeName);
        int seconds = AsciiText.twoDigits(text, hoursEnd + 4, to, typeName);
        long result = hours * MICROS_PER_HOUR + minutes * MICROS_PER_MINUTE + seconds * MICROS_PER_SECOND;
        int p = hoursEnd + 6;
        if (p == to) {
            return result;
        }
        int fractionDigits = to - p - 1;
        if (text[p] != '.' || fractionDigits < 1 || fractionDigits > MAX_FRACTION_DIGITS) {
            throw AsciiText.malformed(typeName, text, from, to);
        }
        return result + AsciiText.parseUnsigned(text, p + 1, to, typeName) * FRACTION_SCALE[fractionDigits];
    }

    /** Where the zone offset of a time with a zone in {@code text[from, to)} starts: at its sign. */
    public static int zoneStart(byte[] text, int from, int to, String typeName) {
        for (int i = from; i < to; i++) {
            if (text[i] == '+' || text[i] == '-') {
                return i;
            }
        }
        throw AsciiText.malformed(typeName, text, from, to);
    }

    /**
     * Seconds east of UTC of an {@code EncodeTimezone} offset {@code ±HH[:MM[:SS]]} filling
     * {@code text[from, to)}.
     */
    public static int parseOffset(byte[] text, int from, int to, String typeName) {
        int length = to - from;
        if (length != 3 && length != 6 && length != 9 || text[from] != '+' && text[from] != '-') {
            throw AsciiText.malformed(typeName, text, from, to);
        }
        int result = AsciiText.twoDigits(text, from + 1, to, typeName) * 3600;
        if (length >= 6) {
            if (text[from + 3] != ':') {
                throw AsciiText.malformed(typeName, text, from, to);
            }
            result += AsciiText.twoDigits(text, from + 4, to, typeName) * 60;
        }
        if (length == 9) {
            if (text[from + 6] != ':') {
                throw AsciiText.malformed(typeName, text, from, to);
            }
            result += AsciiText.twoDigits(text, from + 7, to, typeName);
        }
        return text[from] == '-' ? -result : result;
    }
}
