package io.ashlar.frontend.types;

/**
 * The pieces of PostgreSQL's ISO date/time output ({@code EncodeDateOnly}, {@code EncodeDateTime},
 * {@code EncodeTimeOnly} under DateStyle ISO) and the arithmetic of
 * {@code src/backend/utils/adt/datetime.c}: dates in the proleptic Gregorian calendar counted
 * from 2000-01-01, times in microseconds. See
 * <a href="https://www.postgresql.org/docs/current/datatype-datetime.html#DATATYPE-DATETIME-OUTPUT">
 * Date/Time Output</a>.
 */
final class DateTimeText {

    static final long USECS_PER_SEC = 1_000_000L;
    static final long USECS_PER_MINUTE = 60 * USECS_PER_SEC;
    static final long USECS_PER_HOUR = 60 * USECS_PER_MINUTE;
    static final long USECS_PER_DAY = 24 * USECS_PER_HOUR;

    private static final int POSTGRES_EPOCH_JDATE = 2_451_545;
    private static final int MAX_FRACTION_DIGITS = 6;
    private static final int[] FRACTION_SCALE = {1_000_000, 100_000, 10_000, 1_000, 100, 10, 1};
    private static final int BC_SUFFIX_LENGTH = 3;

    private DateTimeText() {
    }

    /** PostgreSQL's {@code date2j}: the Julian day number of an astronomical-year date. */
    static long date2j(long year, int month, int day) {
        long y = year;
        int m = month;
        if (m > 2) {
            m += 1;
            y += 4800;
        } else {
            m += 13;
            y += 4799;
        }
        long century = y / 100;
        long result = y * 365 - 32167;
        result += y / 4 - century + century / 4;
        result += 7834L * m / 256 + day;
        return result;
    }

    /** Whether the text ends in the " BC" that marks a year before 1 AD. */
    static boolean endsWithBc(byte[] text, int from, int to) {
        return to - from > BC_SUFFIX_LENGTH && text[to - 3] == ' ' && text[to - 2] == 'B' && text[to - 1] == 'C';
    }

    /** Where the text ends once a " BC" suffix, if any, is cut off. */
    static int endWithoutBc(byte[] text, int from, int to) {
        return endsWithBc(text, from, to) ? to - BC_SUFFIX_LENGTH : to;
    }

    /**
     * Days since 2000-01-01 of {@code Y...Y-MM-DD} filling {@code text[from, to)}: a year of four
     * or more digits, counted backwards from 1 BC when {@code bc}.
     */
    static long parseDate(byte[] text, int from, int to, boolean bc, String typeName) {
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
        return date2j(year, month, day) - POSTGRES_EPOCH_JDATE;
    }

    /**
     * Microseconds of {@code H...H:MM:SS[.f...]} filling {@code text[from, to)}: any number of hour
     * digits (intervals print hundreds of hours) and at most six fractional digits.
     */
    static long parseClock(byte[] text, int from, int to, String typeName) {
        int hoursEnd = AsciiText.indexOf(text, (byte) ':', from, to);
        if (to - hoursEnd < 6 || text[hoursEnd + 3] != ':') {
            throw AsciiText.malformed(typeName, text, from, to);
        }
        long hours = AsciiText.parseUnsigned(text, from, hoursEnd, typeName);
        int minutes = AsciiText.twoDigits(text, hoursEnd + 1, to, typeName);
        int seconds = AsciiText.twoDigits(text, hoursEnd + 4, to, typeName);
        long result = hours * USECS_PER_HOUR + minutes * USECS_PER_MINUTE + seconds * USECS_PER_SEC;
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

    /**
     * Seconds east of UTC of an {@code EncodeTimezone} offset {@code ±HH[:MM[:SS]]} filling
     * {@code text[from, to)}.
     */
    static int parseOffset(byte[] text, int from, int to, String typeName) {
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
