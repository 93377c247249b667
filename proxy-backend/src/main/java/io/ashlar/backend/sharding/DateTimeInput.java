package io.ashlar.backend.sharding;

import io.ashlar.route.UnreadableValue;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;

/**
 * Reads a date, time or timestamp a client bound as text, as PostgreSQL's {@code date_in},
 * {@code time_in}, {@code timestamp_in} and {@code timestamptz_in} read the ISO 8601 spellings
 * every driver sends: {@code 2024-01-05}, {@code 2024-01-05 10:00:00.123456},
 * {@code 2024-01-05T10:00:00+01}, {@code 2024-01-05 +01:00} (pgjdbc's {@code setDate}),
 * {@code 10:00}, with white space around. PostgreSQL's rules followed: a date reads past a time
 * and zone and drops them; a timestamp without time zone drops a zone; seconds of 60 and
 * {@code 24:00:00} spill into the next minute or day; more than six fraction digits round to
 * microseconds.
 *
 * <p>Anything else PostgreSQL reads by DateStyle, by the session's TimeZone or by the clock
 * ({@code 01/05/2024}, {@code Jan 5 2024}, {@code 2024-01-05 10:00 Europe/Paris}, a timestamp with
 * time zone without an offset, {@code now}, {@code infinity}, BC dates) is an
 * {@link UnreadableValue}: Ashlar does not route by a reading it cannot be sure PostgreSQL shares.
 *
 * @see <a href="https://www.postgresql.org/docs/current/datatype-datetime.html#DATATYPE-DATETIME-INPUT">8.5.1. Date/Time Input</a>
 */
final class DateTimeInput {

    private static final long MICROS_PER_SECOND = 1_000_000L;
    private static final long MICROS_PER_DAY = 86_400L * MICROS_PER_SECOND;
    /** PostgreSQL's MAX_TZDISP_HOUR: a zone displacement beyond 15:59:59 is out of range. */
    private static final int MAX_ZONE_HOURS = 15;
    private static final int NO_ZONE = Integer.MIN_VALUE;
    private static final int FAILED = -1;

    private final byte[] raw;
    private int position;

    private DateTimeInput(byte[] raw) {
        this.raw = raw;
    }

    /**
     * @param type {@link ParameterReader#DATE}, {@code TIME}, {@code TIMESTAMP} or {@code TIMESTAMPTZ}
     * @return a LocalDate, LocalTime, LocalDateTime or an OffsetDateTime at UTC (the instant); or an UnreadableValue
     */
    static Object read(int type, byte[] raw) {
        return new DateTimeInput(raw).parse(type);
    }

    private Object parse(int type) {
        String typeName = switch (type) {
            case ParameterReader.DATE -> "date";
            case ParameterReader.TIME -> "time";
            case ParameterReader.TIMESTAMP -> "timestamp";
            default -> "timestamp with time zone";
        };
        skipSpaces();
        long days = 0;
        boolean hasDate = type != ParameterReader.TIME;
        if (hasDate) {
            days = date();
            if (days == Long.MIN_VALUE) {
                return ParameterReader.invalidText(raw, typeName);
            }
        }
        long micros = 0;
        boolean hasTime = false;
        boolean timeFollows = !hasDate;
        if (hasDate && position < raw.length && raw[position] == 'T') {
            position++;
            timeFollows = true;
        } else {
            skipSpaces();
        }
        if (position < raw.length && isDigit(raw[position])) {
            micros = time();
            if (micros < 0) {
                return micros == FAILED - 1 ? ambiguousFraction(typeName) : ParameterReader.invalidText(raw, typeName);
            }
            hasTime = true;
        } else if (timeFollows) {
            return ParameterReader.invalidText(raw, typeName);
        }
        skipSpaces();
        int zone = NO_ZONE;
        if (position < raw.length) {
            zone = zone();
            if (zone == NO_ZONE) {
                return ParameterReader.invalidText(raw, typeName);
            }
            skipSpaces();
        }
        if (position != raw.length) {
            return ParameterReader.invalidText(raw, typeName);
        }
        return switch (type) {
            case ParameterReader.DATE -> LocalDate.ofEpochDay(days);
            case ParameterReader.TIME -> micros >= MICROS_PER_DAY ? new UnreadableValue("22P02", "is \"" + text()
                    + "\", the end of the day 24:00:00, which no java.time value holds") : LocalTime.ofNanoOfDay(micros * 1000);
            case ParameterReader.TIMESTAMP -> timestamp(days, micros);
            default -> {
                if (zone == NO_ZONE) {
                    yield new UnreadableValue("0A000", "is \"" + text() + "\", a timestamp with time zone without an offset, which PostgreSQL reads"
                            + " in the session's TimeZone; write the offset (+00, -05:30)");
                }
                yield timestamp(days, hasTime ? micros : 0).minusSeconds(zone).atOffset(ZoneOffset.UTC);
            }
        };
    }

    private static LocalDateTime timestamp(long days, long micros) {
        return LocalDate.ofEpochDay(days).atStartOfDay().plusSeconds(micros / MICROS_PER_SECOND).plusNanos(micros % MICROS_PER_SECOND * 1000);
    }

    /** {@code YYYY-MM-DD} (a year of four to seven digits) as days since 1970-01-01; Long.MIN_VALUE when it is not one. */
    private long date() {
        int yearDigits = digits(7);
        if (yearDigits < 4) {
            return Long.MIN_VALUE;
        }
        long year = value(position - yearDigits, position);
        if (!expect('-')) {
            return Long.MIN_VALUE;
        }
        int monthDigits = digits(2);
        if (monthDigits == 0) {
            return Long.MIN_VALUE;
        }
        int month = (int) value(position - monthDigits, position);
        if (!expect('-')) {
            return Long.MIN_VALUE;
        }
        int dayDigits = digits(2);
        if (dayDigits == 0 || position < raw.length && isDigit(raw[position])) {
            return Long.MIN_VALUE;
        }
        int day = (int) value(position - dayDigits, position);
        if (year == 0 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) {
            return Long.MIN_VALUE;
        }
        return LocalDate.of((int) year, month, day).toEpochDay();
    }

    private static int daysInMonth(long year, int month) {
        return switch (month) {
            case 2 -> year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28;
            case 4, 6, 9, 11 -> 30;
            default -> 31;
        };
    }

    /**
     * {@code H[H]:MM[:SS[.fraction]]} as microseconds since midnight (up to a day, for {@code 24:00:00} and second
     * 60); {@link #FAILED} when it is not one, {@code FAILED - 1} for a fraction exactly halfway between two
     * microseconds, which PostgreSQL rounds through a double.
     */
    private long time() {
        int hourDigits = digits(2);
        long hour = value(position - hourDigits, position);
        if (!expect(':')) {
            return FAILED;
        }
        int minuteDigits = digits(2);
        if (minuteDigits != 2) {
            return FAILED;
        }
        long minute = value(position - 2, position);
        long second = 0;
        long fraction = 0;
        if (position < raw.length && raw[position] == ':') {
            position++;
            int secondDigits = digits(2);
            if (secondDigits != 2) {
                return FAILED;
            }
            second = value(position - 2, position);
            if (position < raw.length && raw[position] == '.') {
                position++;
                int from = position;
                int fractionDigits = digits(Integer.MAX_VALUE);
                if (fractionDigits == 0) {
                    return FAILED;
                }
                fraction = fraction(from, position);
                if (fraction < 0) {
                    return fraction;
                }
            }
        }
        if (minute > 59 || second > 60 || second == 60 && fraction > 0 || hour > 24
                || hour == 24 && (minute > 0 || second > 0 || fraction > 0)) {
            return FAILED;
        }
        return ((hour * 60 + minute) * 60 + second) * MICROS_PER_SECOND + fraction;
    }

    /** Fraction digits as microseconds, rounded to the nearest; FAILED - 1 on an exact tie (and past nine digits). */
    private long fraction(int from, int to) {
        int digits = to - from;
        int kept = Math.min(digits, 6);
        long micros = value(from, from + kept);
        for (int i = kept; i < 6; i++) {
            micros *= 10;
        }
        if (digits <= 6) {
            return micros;
        }
        if (digits > 9) {
            return FAILED - 1;
        }
        long rest = value(from + 6, to);
        long half = 5;
        for (int i = 7; i < digits; i++) {
            half *= 10;
        }
        if (rest == half) {
            return FAILED - 1;
        }
        return rest > half ? micros + 1 : micros;
    }

    /**
     * {@code Z}, or {@code +HH}, {@code +HHMM}, {@code +HH:MM}, {@code +HH:MM:SS} (and {@code -}) as seconds east of UTC;
     * NO_ZONE when it is not one.
     */
    private int zone() {
        byte sign = raw[position];
        if (sign == 'Z' || sign == 'z') {
            position++;
            return 0;
        }
        if (sign != '+' && sign != '-') {
            return NO_ZONE;
        }
        position++;
        int hourDigits = digits(2);
        if (hourDigits == 0) {
            return NO_ZONE;
        }
        long hours = value(position - hourDigits, position);
        long minutes = 0;
        long seconds = 0;
        boolean colon = position < raw.length && raw[position] == ':';
        if (colon || hourDigits == 2 && position < raw.length && isDigit(raw[position])) {
            if (colon) {
                position++;
            }
            if (digits(2) != 2) {
                return NO_ZONE;
            }
            minutes = value(position - 2, position);
            if (position < raw.length && (raw[position] == ':' || !colon && isDigit(raw[position]))) {
                if (raw[position] == ':') {
                    position++;
                }
                if (digits(2) != 2) {
                    return NO_ZONE;
                }
                seconds = value(position - 2, position);
            }
        }
        if (hours > MAX_ZONE_HOURS || minutes > 59 || seconds > 59) {
            return NO_ZONE;
        }
        int result = (int) (hours * 3600 + minutes * 60 + seconds);
        return sign == '-' ? -result : result;
    }

    private UnreadableValue ambiguousFraction(String typeName) {
        return new UnreadableValue("22P02", "is \"" + text() + "\", whose fraction of a second PostgreSQL rounds to microseconds through a"
                + " double, so Ashlar cannot tell which (" + typeName + "): send at most six fraction digits");
    }

    /** Advances over up to {@code max} digits; how many. */
    private int digits(int max) {
        int start = position;
        while (position < raw.length && position - start < max && isDigit(raw[position])) {
            position++;
        }
        return position - start;
    }

    private long value(int from, int to) {
        long result = 0;
        for (int i = from; i < to; i++) {
            result = result * 10 + raw[i] - '0';
        }
        return result;
    }

    private boolean expect(char wanted) {
        if (position < raw.length && raw[position] == wanted) {
            position++;
            return true;
        }
        return false;
    }

    private void skipSpaces() {
        while (position < raw.length && ParameterReader.isSpace(raw[position])) {
            position++;
        }
    }

    private static boolean isDigit(byte b) {
        return b >= '0' && b <= '9';
    }

    private String text() {
        return new String(raw, java.nio.charset.StandardCharsets.UTF_8);
    }
}
