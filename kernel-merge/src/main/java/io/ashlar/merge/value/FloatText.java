package io.ashlar.merge.value;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;

/**
 * {@code real} and {@code double precision} in PostgreSQL text form.
 *
 * <p>Reading: what {@code float4out}/{@code float8out} print (shortest round-trip digits since
 * PostgreSQL 12 when {@code extra_float_digits} &gt; 0, as pgjdbc sets it; {@code NaN},
 * {@code Infinity}, {@code -Infinity}) to the nearest float or double. The common case is decoded
 * from the bytes with no allocation by Clinger's fast path: a significand that the binary format
 * holds exactly, scaled by an exactly representable power of ten, costs one correctly rounded
 * multiplication or division (in single precision for {@code real}). Anything else (17
 * significant digits, large exponents) falls back to the JDK's correctly rounded parser through a
 * {@code String}; text no output function prints fails with {@link AsciiText#malformed}.
 *
 * <p>Ordering: PostgreSQL's ({@code float8_cmp_internal}): NaN equals NaN and is greater than
 * every other value, Infinity included, and {@code -0 = 0}.
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

    private static final double[] DOUBLE_POWERS = {
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    };
    private static final float[] FLOAT_POWERS = {
        1e0f, 1e1f, 1e2f, 1e3f, 1e4f, 1e5f, 1e6f, 1e7f, 1e8f, 1e9f, 1e10f,
    };
    private static final long DOUBLE_EXACT_LIMIT = 1L << 53;
    private static final long FLOAT_EXACT_LIMIT = 1L << 24;
    private static final int MAX_SIGNIFICANT_DIGITS = 18;
    private static final int MAX_EXPONENT_DIGITS = 5;

    private FloatText() {
    }

    /** Parses float4 or float8 text to a double (float4 text reads back exactly, ordering kept). */
    public static double parse(byte[] text) {
        return parseDouble(text, 0, text.length);
    }

    /** Parses float4 text exactly (for arithmetic in single precision). */
    public static float parseFloat(byte[] text) {
        return parseFloat(text, 0, text.length);
    }

    /** The double nearest to {@code text[offset, offset + length)}. */
    public static double parseDouble(byte[] text, int offset, int length) {
        return parse(text, offset, length, false);
    }

    /** The float nearest to {@code text[offset, offset + length)}. */
    public static float parseFloat(byte[] text, int offset, int length) {
        return (float) parse(text, offset, length, true);
    }

    /**
     * The value of the text; for {@code single}, a float widened to double (exact, so narrowing
     * it back gives the float).
     */
    private static double parse(byte[] text, int offset, int length, boolean single) {
        int end = offset + length;
        int p = offset;
        boolean negative = false;
        if (p < end && (text[p] == '-' || text[p] == '+')) {
            negative = text[p] == '-';
            p++;
        }
        long significand = 0;
        int significantDigits = 0;
        int exponent = 0;
        boolean sawDigit = false;
        boolean sawPoint = false;
        for (; p < end; p++) {
            byte b = text[p];
            int d = AsciiText.digit(b);
            if (d >= 0) {
                sawDigit = true;
                if (significand == 0 && d == 0) {
                    exponent -= sawPoint ? 1 : 0;
                    continue;
                }
                if (significantDigits == MAX_SIGNIFICANT_DIGITS) {
                    return slow(text, offset, length, single);
                }
                significand = significand * 10 + d;
                significantDigits++;
                exponent -= sawPoint ? 1 : 0;
            } else if (b == '.' && !sawPoint) {
                sawPoint = true;
            } else if ((b == 'e' || b == 'E') && sawDigit) {
                int q = p + 1;
                if (q < end && (text[q] == '-' || text[q] == '+')) {
                    q++;
                }
                if (end - q > MAX_EXPONENT_DIGITS) {
                    return slow(text, offset, length, single);
                }
                exponent += (int) AsciiText.parseLong(text, p + 1, end, typeName(single));
                break;
            } else {
                return slow(text, offset, length, single);
            }
        }
        if (!sawDigit) {
            return slow(text, offset, length, single);
        }
        if (significand == 0) {
            return negative ? -0.0 : 0.0;
        }
        if (single) {
            if (significand <= FLOAT_EXACT_LIMIT && exponent >= -10 && exponent <= 10) {
                float value = (float) significand;
                value = exponent < 0 ? value / FLOAT_POWERS[-exponent] : value * FLOAT_POWERS[exponent];
                return negative ? -value : value;
            }
        } else if (significand <= DOUBLE_EXACT_LIMIT && exponent >= -22 && exponent <= 22) {
            double value = (double) significand;
            value = exponent < 0 ? value / DOUBLE_POWERS[-exponent] : value * DOUBLE_POWERS[exponent];
            return negative ? -value : value;
        }
        return slow(text, offset, length, single);
    }

    private static double slow(byte[] text, int offset, int length, boolean single) {
        if (length == 0 || text[offset + length - 1] > '9') {
            return special(text, offset, length, single);
        }
        String value = new String(text, offset, length, StandardCharsets.ISO_8859_1);
        try {
            return single ? Float.parseFloat(value) : Double.parseDouble(value);
        } catch (NumberFormatException e) {
            throw AsciiText.malformed(typeName(single), text, offset, offset + length);
        }
    }

    private static String typeName(boolean single) {
        return single ? "real" : "double precision";
    }

    /** The three words that {@code float8out} writes for non-finite values. */
    private static double special(byte[] text, int offset, int length, boolean single) {
        int end = offset + length;
        if (AsciiText.equalsAscii(text, offset, end, "NaN")) {
            return Double.NaN;
        }
        if (AsciiText.equalsAscii(text, offset, end, "Infinity")) {
            return Double.POSITIVE_INFINITY;
        }
        if (AsciiText.equalsAscii(text, offset, end, "-Infinity")) {
            return Double.NEGATIVE_INFINITY;
        }
        throw AsciiText.malformed(typeName(single), text, offset, end);
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
