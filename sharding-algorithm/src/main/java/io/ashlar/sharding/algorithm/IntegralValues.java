package io.ashlar.sharding.algorithm;

import io.ashlar.sharding.ShardingAlgorithmException;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;

/**
 * Turns a sharding value into an integer for the numeric algorithms. Accepted: Integer, Long,
 * Short, Byte, BigInteger, a BigDecimal / Double / Float without fraction, and a String holding
 * a decimal integer (a simple-protocol literal or text parameter the router could not type).
 * Anything else fails with a message naming the algorithm, the column and the value.
 */
final class IntegralValues {

    private static final BigInteger LONG_MIN = BigInteger.valueOf(Long.MIN_VALUE);

    private static final BigInteger LONG_MAX = BigInteger.valueOf(Long.MAX_VALUE);

    private IntegralValues() {
    }

    /** Whether the value is a boxed Java integer that {@link Number#longValue()} represents exactly. */
    static boolean isLongValued(Object value) {
        return value instanceof Integer || value instanceof Long || value instanceof Short || value instanceof Byte;
    }

    /** The value as a long; fails if it is not an integer or does not fit. */
    static long toLong(Object value, String owner, String column) {
        if (isLongValued(value)) {
            return ((Number) value).longValue();
        }
        BigInteger result = toBigInteger(value, owner, column);
        if (result.bitLength() >= 64) {
            throw unusable(owner, column, value, "an integer between " + Long.MIN_VALUE + " and " + Long.MAX_VALUE);
        }
        return result.longValue();
    }

    /** The value as a BigInteger; fails if it is not an integer. */
    static BigInteger toBigInteger(Object value, String owner, String column) {
        if (isLongValued(value)) {
            return BigInteger.valueOf(((Number) value).longValue());
        }
        if (value instanceof BigInteger result) {
            return result;
        }
        BigDecimal decimal = toBigDecimal(value, owner, column);
        if (decimal.signum() != 0 && decimal.stripTrailingZeros().scale() > 0) {
            throw unusable(owner, column, value, "an integer");
        }
        return decimal.toBigInteger();
    }

    /**
     * A range endpoint as the nearest integer inside the range: a lower end is rounded up, an
     * upper end down, so {@code id > 2.5} starts at 3. Infinite or huge values clamp to the long
     * range.
     */
    static long toLongBound(Object value, boolean lower, String owner, String column) {
        if (isLongValued(value)) {
            return ((Number) value).longValue();
        }
        BigInteger result = toBigIntegerBound(value, lower, owner, column);
        return result.compareTo(LONG_MIN) < 0 ? Long.MIN_VALUE : result.compareTo(LONG_MAX) > 0 ? Long.MAX_VALUE : result.longValue();
    }

    /** Like {@link #toLongBound} without clamping. */
    static BigInteger toBigIntegerBound(Object value, boolean lower, String owner, String column) {
        if (isLongValued(value)) {
            return BigInteger.valueOf(((Number) value).longValue());
        }
        if (value instanceof BigInteger result) {
            return result;
        }
        if (value instanceof Double || value instanceof Float) {
            double number = ((Number) value).doubleValue();
            if (Double.isInfinite(number)) {
                return number > 0 ? LONG_MAX : LONG_MIN;
            }
        }
        return toBigDecimal(value, owner, column).setScale(0, lower ? RoundingMode.CEILING : RoundingMode.FLOOR).toBigInteger();
    }

    private static BigDecimal toBigDecimal(Object value, String owner, String column) {
        if (value instanceof BigDecimal result) {
            return result;
        }
        if (value instanceof Double || value instanceof Float) {
            double number = ((Number) value).doubleValue();
            if (Double.isNaN(number) || Double.isInfinite(number)) {
                throw unusable(owner, column, value, "an integer");
            }
            return new BigDecimal(number);
        }
        if (value instanceof String text) {
            String trimmed = text.strip();
            if (isDecimalNumber(trimmed)) {
                return new BigDecimal(trimmed);
            }
        }
        throw unusable(owner, column, value, "an integer");
    }

    /** An optional sign, digits, and optionally a point and more digits; nothing else. */
    private static boolean isDecimalNumber(String text) {
        int i = 0;
        int length = text.length();
        if (i < length && (text.charAt(i) == '-' || text.charAt(i) == '+')) {
            i++;
        }
        int digits = 0;
        while (i < length && Character.isDigit(text.charAt(i)) && text.charAt(i) < 128) {
            i++;
            digits++;
        }
        if (i < length && text.charAt(i) == '.') {
            i++;
            while (i < length && Character.isDigit(text.charAt(i)) && text.charAt(i) < 128) {
                i++;
                digits++;
            }
        }
        return digits > 0 && i == length;
    }

    /** {@code <owner> cannot use value 'x' (type) of column 'c': expected <expected>}. */
    static ShardingAlgorithmException unusable(String owner, String column, Object value, String expected) {
        return new ShardingAlgorithmException(owner + " cannot use value '" + value + "' (" + value.getClass().getName() + ") of column '" + column + "': expected " + expected);
    }
}
