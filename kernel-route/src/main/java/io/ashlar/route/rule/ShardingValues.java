package io.ashlar.route.rule;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

/**
 * The one canonical Java form of a sharding value that is a number, whatever its spelling: PostgreSQL compares
 * {@code 7}, {@code 7::int8}, {@code 7.0}, {@code '7'::bigint} and a bound int8 parameter 7 as one value, so they must
 * reach the sharding algorithm as one Java value. An algorithm such as HASH_MOD hashes the value as passed, and
 * {@code Long.hashCode(-7)} is not {@code Integer.hashCode(-7)}: without this, {@code user_id = -7::bigint} reads
 * another shard than the one {@code VALUES (-7)} wrote to.
 *
 * <p>The canonical form is ShardingSphere's for an integer literal (the smallest of Integer, Long and BigInteger that
 * holds it), so that rows stay where ShardingSphere put them.
 *
 * @see <a href="https://www.postgresql.org/docs/current/typeconv-oper.html">10.2. Operators (type conversion)</a>
 */
public final class ShardingValues {

    /** Longer number texts are left alone: no integer column holds them, and parsing them costs. */
    private static final int MAX_NUMBER_TEXT = 60;

    /** Integral decimals with more digits stay decimals: no integer type holds them, and expanding {@code 1e100000} costs. */
    private static final int MAX_INTEGER_DIGITS = 40;

    private ShardingValues() {
    }

    /**
     * The canonical form of a value: an integral number (Short, Long, BigInteger, a BigDecimal or a finite Double or
     * Float without fraction) becomes the smallest of Integer, Long and BigInteger holding it; another BigDecimal loses
     * its trailing zeros ({@code 1.50} is {@code 1.5}); another Double or Float becomes the BigDecimal of its shortest
     * decimal form. A timestamp with time zone is the same instant at UTC, whatever offset the client wrote it with
     * (PostgreSQL stores and compares the instant). Anything else (text, dates, {@code null}) is returned as it is.
     * Allocates only when the value changes form.
     */
    public static Object normalise(Object value) {
        return switch (value) {
            case null -> null;
            case Integer number -> number;
            case Long number -> number == number.intValue() ? (Object) Integer.valueOf(number.intValue()) : number;
            case Short number -> Integer.valueOf(number);
            case Byte number -> Integer.valueOf(number);
            case BigInteger number -> integer(number);
            case BigDecimal number -> decimal(number);
            case Double number -> floating(number);
            case Float number -> floating(number.doubleValue());
            case OffsetDateTime time -> time.getOffset() == ZoneOffset.UTC ? time : time.withOffsetSameInstant(ZoneOffset.UTC);
            default -> value;
        };
    }

    /**
     * The integral number a text spells ({@code '13'}, {@code ' 14.0 '}), for text compared with or stored into a
     * number column: PostgreSQL converts the text to the column's type first, so text and number are one value.
     *
     * @return the canonical number, or {@code null} when the text is not a decimal number with an integral value
     */
    public static Object integralText(String text) {
        String trimmed = text.strip();
        int length = trimmed.length();
        if (length == 0 || length > MAX_NUMBER_TEXT) {
            return null;
        }
        int digits = 0;
        boolean point = false;
        for (int i = trimmed.charAt(0) == '-' || trimmed.charAt(0) == '+' ? 1 : 0; i < length; i++) {
            char c = trimmed.charAt(i);
            if (c >= '0' && c <= '9') {
                digits++;
            } else if (c == '.' && !point) {
                point = true;
            } else {
                return null;
            }
        }
        if (digits == 0) {
            return null;
        }
        Object result = decimal(new BigDecimal(trimmed));
        return result instanceof BigDecimal ? null : result;
    }

    /** The canonical form of a value written into a row: also text that spells an integer becomes that integer. */
    public static Object normaliseStored(Object value) {
        if (value instanceof String text) {
            Object number = integralText(text);
            return number == null ? text : number;
        }
        return normalise(value);
    }

    /**
     * The canonical spelling of a UUID ({@code a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}, lower case) from any spelling
     * PostgreSQL's {@code uuid_in} accepts: optional braces, upper or lower case hex digits, a hyphen optionally after
     * any group of four digits. PostgreSQL compares UUIDs by their 16 bytes, so every spelling of one must route alike.
     *
     * @return the canonical text, or {@code null} when {@code uuid_in} would reject the text
     * @see <a href="https://www.postgresql.org/docs/current/datatype-uuid.html">8.12. UUID Type</a>
     */
    public static String uuid(String text) {
        int length = text.length();
        int i = 0;
        boolean braces = length > 0 && text.charAt(0) == '{';
        if (braces) {
            i++;
        }
        char[] result = new char[36];
        int out = 0;
        for (int b = 0; b < 16; b++) {
            if (i + 1 >= length || !isHexDigit(text.charAt(i)) || !isHexDigit(text.charAt(i + 1))) {
                return null;
            }
            if (out == 8 || out == 13 || out == 18 || out == 23) {
                result[out++] = '-';
            }
            result[out++] = Character.toLowerCase(text.charAt(i));
            result[out++] = Character.toLowerCase(text.charAt(i + 1));
            i += 2;
            if (i < length && text.charAt(i) == '-' && b % 2 == 1 && b < 15) {
                i++;
            }
        }
        if (braces) {
            if (i >= length || text.charAt(i) != '}') {
                return null;
            }
            i++;
        }
        return i == length ? new String(result) : null;
    }

    private static boolean isHexDigit(char c) {
        return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F';
    }

    private static Object integer(BigInteger value) {
        int bits = value.bitLength();
        if (bits < 32) {
            return Integer.valueOf(value.intValue());
        }
        return bits < 64 ? (Object) Long.valueOf(value.longValue()) : value;
    }

    private static Object decimal(BigDecimal value) {
        if (value.signum() == 0) {
            return Integer.valueOf(0);
        }
        BigDecimal stripped = value.scale() <= 0 ? value : value.stripTrailingZeros();
        if (stripped.scale() <= 0) {
            return stripped.precision() - stripped.scale() > MAX_INTEGER_DIGITS ? value : integer(stripped.toBigInteger());
        }
        return stripped.scale() == value.scale() ? value : stripped;
    }

    private static Object floating(double value) {
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            return value;
        }
        if (value == Math.rint(value) && Math.abs(value) < 0x1p63) {
            long integral = (long) value;
            return integral == (int) integral ? (Object) Integer.valueOf((int) integral) : (Object) Long.valueOf(integral);
        }
        return decimal(BigDecimal.valueOf(value));
    }
}
