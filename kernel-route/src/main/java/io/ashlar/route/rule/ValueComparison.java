package io.ashlar.route.rule;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;

/**
 * Compares two sharding values the way PostgreSQL would compare the SQL values they stand for, as far as the router
 * needs it: to intersect {@code IN} lists and ranges of one column, and to prove that an UPDATE sets a sharding
 * column to the value its WHERE already fixes. Numbers compare by value whatever their Java type ({@code Integer 5}
 * equals {@code Long 5} and {@code BigDecimal 5.0}), strings by code point, dates and timestamps by time. Values of
 * kinds that PostgreSQL could not compare without a cast (a number and a string) are {@link #INCOMPARABLE}; callers
 * then keep both constraints, which only widens a route.
 */
public final class ValueComparison {

    /** Returned by {@link #compare} when the values cannot be compared. */
    public static final int INCOMPARABLE = Integer.MIN_VALUE;

    private ValueComparison() {
    }

    /**
     * Compares two non-null values.
     *
     * @return negative, zero or positive, or {@link #INCOMPARABLE}
     */
    public static int compare(Object left, Object right) {
        if (left instanceof Number a && right instanceof Number b) {
            return compareNumbers(a, b);
        }
        if (left instanceof String a && right instanceof String b) {
            return Integer.signum(a.compareTo(b));
        }
        if (left instanceof Boolean a && right instanceof Boolean b) {
            return Boolean.compare(a, b);
        }
        LocalDateTime a = dateTime(left);
        LocalDateTime b = dateTime(right);
        if (a != null && b != null && !(left instanceof OffsetDateTime) && !(right instanceof OffsetDateTime)) {
            return Integer.signum(a.compareTo(b));
        }
        if (left instanceof OffsetDateTime x && right instanceof OffsetDateTime y) {
            return Integer.signum(x.compareTo(y));
        }
        if (left.getClass() == right.getClass() && left instanceof Comparable<?>) {
            @SuppressWarnings("unchecked")
            Comparable<Object> comparable = (Comparable<Object>) left;
            return Integer.signum(comparable.compareTo(right));
        }
        return INCOMPARABLE;
    }

    /** Whether two non-null values are provably equal. */
    public static boolean same(Object left, Object right) {
        return left.equals(right) || compare(left, right) == 0;
    }

    private static int compareNumbers(Number a, Number b) {
        if (isLong(a) && isLong(b)) {
            return Long.compare(a.longValue(), b.longValue());
        }
        BigDecimal x = decimal(a);
        BigDecimal y = decimal(b);
        return x == null || y == null ? INCOMPARABLE : Integer.signum(x.compareTo(y));
    }

    private static boolean isLong(Number value) {
        return value instanceof Integer || value instanceof Long || value instanceof Short || value instanceof Byte;
    }

    private static BigDecimal decimal(Number value) {
        if (value instanceof BigDecimal result) {
            return result;
        }
        if (value instanceof BigInteger integer) {
            return new BigDecimal(integer);
        }
        if (isLong(value)) {
            return BigDecimal.valueOf(value.longValue());
        }
        double number = value.doubleValue();
        return Double.isNaN(number) || Double.isInfinite(number) ? null : new BigDecimal(number);
    }

    private static LocalDateTime dateTime(Object value) {
        if (value instanceof LocalDateTime result) {
            return result;
        }
        if (value instanceof LocalDate date) {
            return date.atStartOfDay();
        }
        return null;
    }
}
