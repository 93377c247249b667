package io.ashlar.sharding.inline;

import io.ashlar.sharding.ShardingAlgorithmException;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.math.RoundingMode;

/**
 * Arithmetic with Groovy's number semantics, which is what a ShardingSphere inline expression
 * computes ({@code org.codehaus.groovy.runtime.typehandling.NumberMath}): the result type is the
 * wider operand type in the order Integer (also Short, Byte) &lt; Long &lt; BigInteger &lt;
 * BigDecimal &lt; Double (also Float); {@code int} and {@code long} overflow wraps as in Java;
 * {@code %} is the remainder (sign of the dividend); {@code /} never divides integers but
 * yields a BigDecimal ({@code 5 / 2 == 2.5}, {@code 4 / 2 == 2}), with 10 extra digits of
 * precision when the quotient does not terminate; {@code intdiv} is integer division.
 *
 * <p>One deliberate extension: a String operand of {@code - * / %}, {@code abs} or
 * {@code intdiv} that holds a number is used as that number (Groovy would fail), because a
 * value that reached the router as untyped text is still the column's number. {@code +} with a
 * String concatenates, as in Groovy.
 */
final class GroovyMath {

    private static final int DIVISION_EXTRA_PRECISION = 10;

    private static final int DIVISION_MIN_SCALE = 10;

    private static final int INT = 0;

    private static final int LONG = 1;

    private static final int BIG_INTEGER = 2;

    private static final int BIG_DECIMAL = 3;

    private static final int DOUBLE = 4;

    private GroovyMath() {
    }

    static Object plus(Object left, Object right) {
        if (left instanceof String || right instanceof String) {
            return render(left).concat(render(right));
        }
        Number a = number(left, "+");
        Number b = number(right, "+");
        return switch (Math.max(kind(a), kind(b))) {
            case INT -> a.intValue() + b.intValue();
            case LONG -> a.longValue() + b.longValue();
            case BIG_INTEGER -> bigInteger(a).add(bigInteger(b));
            case BIG_DECIMAL -> bigDecimal(a).add(bigDecimal(b));
            default -> a.doubleValue() + b.doubleValue();
        };
    }

    static Object minus(Object left, Object right) {
        Number a = number(left, "-");
        Number b = number(right, "-");
        return switch (Math.max(kind(a), kind(b))) {
            case INT -> a.intValue() - b.intValue();
            case LONG -> a.longValue() - b.longValue();
            case BIG_INTEGER -> bigInteger(a).subtract(bigInteger(b));
            case BIG_DECIMAL -> bigDecimal(a).subtract(bigDecimal(b));
            default -> a.doubleValue() - b.doubleValue();
        };
    }

    static Object multiply(Object left, Object right) {
        Number a = number(left, "*");
        Number b = number(right, "*");
        return switch (Math.max(kind(a), kind(b))) {
            case INT -> a.intValue() * b.intValue();
            case LONG -> a.longValue() * b.longValue();
            case BIG_INTEGER -> bigInteger(a).multiply(bigInteger(b));
            case BIG_DECIMAL -> bigDecimal(a).multiply(bigDecimal(b));
            default -> a.doubleValue() * b.doubleValue();
        };
    }

    static Object divide(Object left, Object right) {
        Number a = number(left, "/");
        Number b = number(right, "/");
        if (Math.max(kind(a), kind(b)) == DOUBLE) {
            return a.doubleValue() / b.doubleValue();
        }
        BigDecimal dividend = bigDecimal(a);
        BigDecimal divisor = bigDecimal(b);
        if (divisor.signum() == 0) {
            throw new ShardingAlgorithmException("division by zero");
        }
        try {
            return dividend.divide(divisor);
        } catch (ArithmeticException nonTerminating) {
            int precision = Math.max(dividend.precision(), divisor.precision()) + DIVISION_EXTRA_PRECISION;
            BigDecimal result = dividend.divide(divisor, new MathContext(precision));
            int scale = Math.max(Math.max(dividend.scale(), divisor.scale()), DIVISION_MIN_SCALE);
            return result.scale() > scale ? result.setScale(scale, RoundingMode.HALF_UP) : result;
        }
    }

    static Object remainder(Object left, Object right) {
        Number a = number(left, "%");
        Number b = number(right, "%");
        int kind = Math.max(kind(a), kind(b));
        if (kind != DOUBLE && isZero(b)) {
            throw new ShardingAlgorithmException("division by zero");
        }
        return switch (kind) {
            case INT -> a.intValue() % b.intValue();
            case LONG -> a.longValue() % b.longValue();
            case BIG_INTEGER -> bigInteger(a).remainder(bigInteger(b));
            case BIG_DECIMAL -> bigDecimal(a).remainder(bigDecimal(b));
            default -> a.doubleValue() % b.doubleValue();
        };
    }

    static Object intdiv(Object left, Object right) {
        Number a = number(left, "intdiv()");
        Number b = number(right, "intdiv()");
        int kind = Math.max(kind(a), kind(b));
        if (kind > BIG_INTEGER) {
            throw new ShardingAlgorithmException("intdiv() needs integers, got " + describe(kind(a) > BIG_INTEGER ? left : right));
        }
        if (isZero(b)) {
            throw new ShardingAlgorithmException("division by zero");
        }
        return switch (kind) {
            case INT -> a.intValue() / b.intValue();
            case LONG -> a.longValue() / b.longValue();
            default -> bigInteger(a).divide(bigInteger(b));
        };
    }

    static Object floorMod(Object left, Object right) {
        Number a = number(left, "Math.floorMod()");
        Number b = number(right, "Math.floorMod()");
        int kind = Math.max(kind(a), kind(b));
        if (kind > LONG) {
            throw new ShardingAlgorithmException("Math.floorMod() needs int or long values, got " + describe(kind(a) > LONG ? left : right));
        }
        if (isZero(b)) {
            throw new ShardingAlgorithmException("division by zero");
        }
        return kind == INT ? (Object) Math.floorMod(a.intValue(), b.intValue()) : (Object) Math.floorMod(a.longValue(), b.longValue());
    }

    static Object negate(Object operand) {
        Number a = number(operand, "unary -");
        return switch (kind(a)) {
            case INT -> -a.intValue();
            case LONG -> -a.longValue();
            case BIG_INTEGER -> bigInteger(a).negate();
            case BIG_DECIMAL -> bigDecimal(a).negate();
            default -> -a.doubleValue();
        };
    }

    static Object abs(Object operand) {
        Number a = number(operand, "abs()");
        return switch (kind(a)) {
            case INT -> Math.abs(a.intValue());
            case LONG -> Math.abs(a.longValue());
            case BIG_INTEGER -> bigInteger(a).abs();
            case BIG_DECIMAL -> bigDecimal(a).abs();
            default -> Math.abs(a.doubleValue());
        };
    }

    /** Groovy's {@code toInteger()}: the int value of a number, or a String parsed as an int. */
    static Object toInteger(Object operand) {
        return number(operand, "toInteger()").intValue();
    }

    /** Groovy's {@code toLong()}. */
    static Object toLong(Object operand) {
        return number(operand, "toLong()").longValue();
    }

    /** Groovy's {@code toBigInteger()}. */
    static Object toBigInteger(Object operand) {
        return bigInteger(number(operand, "toBigInteger()"));
    }

    /** How a value prints inside a GString: a String as itself, anything else by toString(). */
    static String render(Object value) {
        return value instanceof String text ? text : String.valueOf(value);
    }

    /** {@code 'abc' (java.lang.String)}, for error messages. */
    static String describe(Object value) {
        return "'" + value + "' (" + (value == null ? "null" : value.getClass().getName()) + ")";
    }

    /** The value as a number: numbers as they are, Strings holding a number parsed. */
    static Number number(Object value, String operation) {
        if (value instanceof Number result) {
            return result;
        }
        if (value instanceof String text) {
            Number result = parseNumber(text);
            if (result != null) {
                return result;
            }
        }
        throw new ShardingAlgorithmException(operation + " needs a number, got " + describe(value));
    }

    /**
     * Parses a decimal literal as Groovy types it: Integer, else Long, else BigInteger; with a
     * fraction or exponent, BigDecimal.
     *
     * @return the number, or {@code null} if the text is not a number
     */
    static Number parseNumber(String text) {
        int length = text.length();
        int i = 0;
        if (i < length && (text.charAt(i) == '-' || text.charAt(i) == '+')) {
            i++;
        }
        int digitsStart = i;
        while (i < length && isDigit(text.charAt(i))) {
            i++;
        }
        boolean integral = true;
        int integerDigits = i - digitsStart;
        if (i < length && text.charAt(i) == '.') {
            integral = false;
            i++;
            int fractionStart = i;
            while (i < length && isDigit(text.charAt(i))) {
                i++;
            }
            if (integerDigits == 0 && i == fractionStart) {
                return null;
            }
        } else if (integerDigits == 0) {
            return null;
        }
        if (i < length && (text.charAt(i) == 'e' || text.charAt(i) == 'E')) {
            integral = false;
            i++;
            if (i < length && (text.charAt(i) == '-' || text.charAt(i) == '+')) {
                i++;
            }
            int exponentStart = i;
            while (i < length && isDigit(text.charAt(i))) {
                i++;
            }
            if (i == exponentStart) {
                return null;
            }
        }
        if (i != length) {
            return null;
        }
        if (!integral) {
            return new BigDecimal(text);
        }
        if (integerDigits <= 18) {
            long value = Long.parseLong(text);
            return value == (int) value ? (Number) (int) value : (Number) value;
        }
        BigInteger value = new BigInteger(text);
        return value.bitLength() < 64 ? (Number) value.longValue() : value;
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    private static int kind(Number value) {
        if (value instanceof Integer || value instanceof Short || value instanceof Byte) {
            return INT;
        }
        if (value instanceof BigInteger) {
            return BIG_INTEGER;
        }
        if (value instanceof BigDecimal) {
            return BIG_DECIMAL;
        }
        if (value instanceof Double || value instanceof Float) {
            return DOUBLE;
        }
        return LONG;
    }

    private static boolean isZero(Number value) {
        return switch (kind(value)) {
            case BIG_INTEGER -> ((BigInteger) value).signum() == 0;
            case BIG_DECIMAL -> ((BigDecimal) value).signum() == 0;
            case DOUBLE -> value.doubleValue() == 0;
            default -> value.longValue() == 0;
        };
    }

    private static BigInteger bigInteger(Number value) {
        if (value instanceof BigInteger result) {
            return result;
        }
        if (value instanceof BigDecimal decimal) {
            return decimal.toBigInteger();
        }
        return BigInteger.valueOf(value.longValue());
    }

    private static BigDecimal bigDecimal(Number value) {
        if (value instanceof BigDecimal result) {
            return result;
        }
        if (value instanceof BigInteger integer) {
            return new BigDecimal(integer);
        }
        if (value instanceof Double || value instanceof Float) {
            return new BigDecimal(value.toString());
        }
        return BigDecimal.valueOf(value.longValue());
    }
}
