package io.ashlar.merge.value;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;

/**
 * {@code real} and {@code double precision} in PostgreSQL text form.
 *
 * <p>Reading: {@code NaN}, {@code Infinity}, {@code -Infinity} and decimal numbers, with a
 * String-free fast path for the common short decimals. Ordering: PostgreSQL's
 * ({@code float8_cmp_internal}): NaN equals NaN and is greater than every other value,
 * Infinity included, and {@code -0 = 0}.
 *
 * <p>Writing: what {@code float8out}/{@code float4out} print with the default
 * {@code extra_float_digits = 1}, the shortest decimal that reads back to the same value
 * (PostgreSQL's Ryu port, {@code src/common/d2s.c} and {@code f2s.c}): fixed notation when the
 * decimal exponent is in {@code [-4, 15)} for double and {@code [-4, 6)} for real, otherwise
 * {@code 1.5e+20} with at least two exponent digits; {@code -0}, {@code NaN},
 * {@code Infinity}, {@code -Infinity}. See
 * <a href="https://www.postgresql.org/docs/current/datatype-numeric.html#DATATYPE-FLOAT">Floating-Point Types</a>.
 */
public final class FloatText {

    private static final double[] POWERS_OF_TEN = {
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    };

    private static final long MAX_EXACT_MANTISSA = 1L << 53;

    private FloatText() {
    }

    /** Parses float4 or float8 text to a double (float4 text reads back exactly, ordering kept). */
    public static double parse(byte[] text) {
        int length = text.length;
        int position = 0;
        boolean negative = false;
        if (length > 0 && (text[0] == '-' || text[0] == '+')) {
            negative = text[0] == '-';
            position = 1;
        }
        long mantissa = 0;
        int digits = 0;
        int exponent = 0;
        boolean sawDigit = false;
        boolean sawPoint = false;
        for (; position < length; position++) {
            byte each = text[position];
            if (each >= '0' && each <= '9') {
                sawDigit = true;
                if (mantissa == 0 && each == '0') {
                    if (sawPoint) {
                        exponent--;
                    }
                    continue;
                }
                if (digits >= 18) {
                    return slowParse(text);
                }
                mantissa = mantissa * 10 + (each - '0');
                digits++;
                if (sawPoint) {
                    exponent--;
                }
            } else if (each == '.' && !sawPoint) {
                sawPoint = true;
            } else if ((each == 'e' || each == 'E') && sawDigit) {
                int parsed = parseExponent(text, position + 1);
                if (parsed == Integer.MIN_VALUE) {
                    return slowParse(text);
                }
                exponent += parsed;
                position = length;
                break;
            } else {
                return slowParse(text);
            }
        }
        if (!sawDigit) {
            return slowParse(text);
        }
        double result;
        if (mantissa == 0) {
            result = 0;
        } else if (mantissa <= MAX_EXACT_MANTISSA && exponent >= -22 && exponent <= 22) {
            // Clinger's fast path: both operands are exact doubles, so one rounding
            result = exponent >= 0 ? mantissa * POWERS_OF_TEN[exponent] : mantissa / POWERS_OF_TEN[-exponent];
        } else {
            return slowParse(text);
        }
        return negative ? -result : result;
    }

    private static int parseExponent(byte[] text, int from) {
        int position = from;
        boolean negative = false;
        if (position < text.length && (text[position] == '-' || text[position] == '+')) {
            negative = text[position] == '-';
            position++;
        }
        if (position == text.length || text.length - position > 4) {
            return Integer.MIN_VALUE;
        }
        int result = 0;
        for (; position < text.length; position++) {
            int digit = text[position] - '0';
            if (digit < 0 || digit > 9) {
                return Integer.MIN_VALUE;
            }
            result = result * 10 + digit;
        }
        return negative ? -result : result;
    }

    private static double slowParse(byte[] text) {
        String string = new String(text, StandardCharsets.US_ASCII).trim();
        return switch (string) {
            case "NaN" -> Double.NaN;
            case "Infinity", "+Infinity", "inf", "+inf" -> Double.POSITIVE_INFINITY;
            case "-Infinity", "-inf" -> Double.NEGATIVE_INFINITY;
            default -> Double.parseDouble(string);
        };
    }

    /** Parses float4 text exactly (for arithmetic in single precision). */
    public static float parseFloat(byte[] text) {
        String string = new String(text, StandardCharsets.US_ASCII).trim();
        return switch (string) {
            case "NaN" -> Float.NaN;
            case "Infinity", "+Infinity" -> Float.POSITIVE_INFINITY;
            case "-Infinity" -> Float.NEGATIVE_INFINITY;
            default -> Float.parseFloat(string);
        };
    }

    /**
     * A long whose signed order is PostgreSQL's float order: NaN is the largest value and
     * {@code -0} equals {@code 0}. Equal values map to equal longs, so it also serves as a hash key.
     */
    public static long sortableBits(double value) {
        if (value != value) {
            return Long.MAX_VALUE;
        }
        long bits = Double.doubleToRawLongBits(value == 0 ? 0.0 : value);
        return bits ^ ((bits >> 63) & Long.MAX_VALUE);
    }

    /** PostgreSQL's text for a double precision value. */
    public static String format(double value) {
        if (value != value) {
            return "NaN";
        }
        if (Double.isInfinite(value)) {
            return value > 0 ? "Infinity" : "-Infinity";
        }
        if (value == 0) {
            return Double.doubleToRawLongBits(value) < 0 ? "-0" : "0";
        }
        double magnitude = Math.abs(value);
        Digits digits = Digits.of(Double.toString(magnitude));
        if (digits.count() == 2) {
            digits = shortenDouble(digits, magnitude);
        }
        return digits.render(value < 0, 15);
    }

    /** PostgreSQL's text for a real value. */
    public static String format(float value) {
        if (value != value) {
            return "NaN";
        }
        if (Float.isInfinite(value)) {
            return value > 0 ? "Infinity" : "-Infinity";
        }
        if (value == 0) {
            return Float.floatToRawIntBits(value) < 0 ? "-0" : "0";
        }
        float magnitude = Math.abs(value);
        Digits digits = Digits.of(Float.toString(magnitude));
        if (digits.count() == 2) {
            digits = shortenFloat(digits, magnitude);
        }
        return digits.render(value < 0, 6);
    }

    /**
     * Java's shortest-decimal rule prefers a closer two-digit decimal to a one-digit one that
     * also reads back (4.9E-324); Ryu, and so PostgreSQL, takes the shortest ({@code 5e-324}).
     */
    private static Digits shortenDouble(Digits digits, double magnitude) {
        Digits result = digits;
        BigDecimal best = null;
        BigDecimal exact = new BigDecimal(magnitude);
        for (Digits candidate : digits.oneDigitNeighbours()) {
            if (Double.parseDouble(candidate.toScientific()) == magnitude) {
                BigDecimal distance = candidate.toBigDecimal().subtract(exact).abs();
                if (best == null || distance.compareTo(best) < 0) {
                    best = distance;
                    result = candidate;
                }
            }
        }
        return result;
    }

    private static Digits shortenFloat(Digits digits, float magnitude) {
        Digits result = digits;
        BigDecimal best = null;
        BigDecimal exact = new BigDecimal(magnitude);
        for (Digits candidate : digits.oneDigitNeighbours()) {
            if (Float.parseFloat(candidate.toScientific()) == magnitude) {
                BigDecimal distance = candidate.toBigDecimal().subtract(exact).abs();
                if (best == null || distance.compareTo(best) < 0) {
                    best = distance;
                    result = candidate;
                }
            }
        }
        return result;
    }

    /**
     * Significant digits (no leading or trailing zeros) and the decimal exponent of the first
     * digit: value = 0.d1d2... * 10^(exponent + 1), i.e. d1.d2... * 10^exponent.
     */
    private record Digits(String significand, int exponent) {

        static Digits of(String javaText) {
            int e = javaText.indexOf('E');
            String mantissa = e < 0 ? javaText : javaText.substring(0, e);
            int power = e < 0 ? 0 : Integer.parseInt(javaText.substring(e + 1));
            int point = mantissa.indexOf('.');
            String integerPart = point < 0 ? mantissa : mantissa.substring(0, point);
            String fraction = point < 0 ? "" : mantissa.substring(point + 1);
            String all = integerPart + fraction;
            int leading = 0;
            while (leading < all.length() - 1 && all.charAt(leading) == '0') {
                leading++;
            }
            int end = all.length();
            while (end > leading + 1 && all.charAt(end - 1) == '0') {
                end--;
            }
            return new Digits(all.substring(leading, end), power + integerPart.length() - 1 - leading);
        }

        int count() {
            return significand.length();
        }

        Digits[] oneDigitNeighbours() {
            int first = significand.charAt(0) - '0';
            Digits down = new Digits(Integer.toString(first), exponent);
            Digits up = first == 9 ? new Digits("1", exponent + 1) : new Digits(Integer.toString(first + 1), exponent);
            return new Digits[] {down, up};
        }

        String toScientific() {
            return significand.charAt(0) + (count() > 1 ? "." + significand.substring(1) : "") + "E" + exponent;
        }

        BigDecimal toBigDecimal() {
            return new BigDecimal(toScientific());
        }

        String render(boolean negative, int fixedLimit) {
            StringBuilder result = new StringBuilder(32);
            if (negative) {
                result.append('-');
            }
            int count = count();
            if (exponent >= -4 && exponent < fixedLimit) {
                if (exponent < 0) {
                    result.append("0.");
                    for (int i = -1; i > exponent; i--) {
                        result.append('0');
                    }
                    result.append(significand);
                } else if (count <= exponent + 1) {
                    result.append(significand);
                    for (int i = count; i <= exponent; i++) {
                        result.append('0');
                    }
                } else {
                    result.append(significand, 0, exponent + 1).append('.').append(significand, exponent + 1, count);
                }
                return result.toString();
            }
            result.append(significand.charAt(0));
            if (count > 1) {
                result.append('.').append(significand, 1, count);
            }
            result.append('e').append(exponent < 0 ? '-' : '+');
            int magnitude = Math.abs(exponent);
            if (magnitude < 10) {
                result.append('0');
            }
            return result.append(magnitude).toString();
        }
    }
}
