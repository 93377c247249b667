package io.ashlar.frontend.types;

import java.nio.charset.StandardCharsets;

/**
 * Parses {@code float4out}/{@code float8out} text (shortest round-trip digits since PostgreSQL 12
 * when {@code extra_float_digits} &gt; 0, as pgjdbc sets it) to the nearest float or double.
 *
 * <p>The common case is decoded from the bytes with no allocation by Clinger's fast path: a
 * significand that the binary format holds exactly, scaled by an exactly representable power of
 * ten, costs one correctly rounded multiplication or division. Anything else (17 significant
 * digits, large exponents) falls back to the JDK's correctly rounded parser through a
 * {@code String}.
 */
final class FloatText {

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

    static double parseDouble(byte[] text, int offset, int length) {
        return parse(text, offset, length, false);
    }

    static float parseFloat(byte[] text, int offset, int length) {
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
}
