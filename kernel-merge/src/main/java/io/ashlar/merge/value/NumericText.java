package io.ashlar.merge.value;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;

/**
 * {@code numeric} in PostgreSQL text form ({@code numeric_out}): an optional minus, integer
 * digits, optionally a point and exactly display-scale fraction digits; or {@code NaN},
 * {@code Infinity}, {@code -Infinity}. Integer text is valid numeric text too.
 *
 * <p>Values compare by value, straight on the bytes: {@code 1.0 = 1.00}, and, as
 * {@code cmp_numerics} orders them, {@code -Infinity} below every number, {@code Infinity}
 * above, and NaN above everything (equal to itself). See
 * <a href="https://www.postgresql.org/docs/current/datatype-numeric.html#DATATYPE-NUMERIC-DECIMAL">Arbitrary Precision Numbers</a>.
 */
public final class NumericText {

    private static final int NEGATIVE_INFINITY = 0;
    private static final int FINITE = 1;
    private static final int POSITIVE_INFINITY = 2;
    private static final int NAN = 3;

    private NumericText() {
    }

    /** Three-way comparison by value. */
    public static int compare(byte[] a, byte[] b) {
        int aClass = classify(a);
        int bClass = classify(b);
        if (aClass != bClass) {
            return aClass < bClass ? -1 : 1;
        }
        if (aClass != FINITE) {
            return 0;
        }
        int aSign = sign(a);
        int bSign = sign(b);
        if (aSign != bSign) {
            return aSign < bSign ? -1 : 1;
        }
        if (aSign == 0) {
            return 0;
        }
        int magnitude = compareMagnitude(a, b);
        return aSign < 0 ? -magnitude : magnitude;
    }

    /** Whether the text is {@code NaN}. */
    public static boolean isNaN(byte[] text) {
        return classify(text) == NAN;
    }

    /**
     * The number of leading bytes that make the canonical form of the value: trailing fraction
     * zeros (and a point left bare) dropped, so that equal values have equal canonical bytes.
     * Zero's canonical form is {@code 0}; {@link #canonicalStart(byte[])} skips the sign of a
     * negative zero.
     */
    public static int canonicalEnd(byte[] text) {
        int end = text.length;
        int point = indexOf(text, (byte) '.');
        if (point < 0 || classify(text) != FINITE) {
            return end;
        }
        while (end > point + 1 && text[end - 1] == '0') {
            end--;
        }
        if (end == point + 1) {
            end = point;
        }
        return end;
    }

    /** Where the canonical form starts: after the sign of a zero ({@code -0.0} is {@code 0}). */
    public static int canonicalStart(byte[] text) {
        if (classify(text) != FINITE) {
            return 0;
        }
        if (sign(text) == 0) {
            return text[0] == '-' || text[0] == '+' ? 1 : 0;
        }
        return 0;
    }

    /** Parses finite numeric text; NaN and infinities have no BigDecimal and throw. */
    public static BigDecimal toBigDecimal(byte[] text) {
        char[] chars = new char[text.length];
        for (int i = 0; i < text.length; i++) {
            chars[i] = (char) (text[i] & 0xff);
        }
        return new BigDecimal(chars);
    }

    /** The text {@code numeric_out} prints for a finite value: plain notation, the value's scale. */
    public static byte[] format(BigDecimal value) {
        BigDecimal printable = value.scale() < 0 ? value.setScale(0) : value;
        return printable.toPlainString().getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * The text {@code numeric_out} prints for {@code unscaled / 10^scale} ({@code scale >= 0}), as
     * {@link #format(BigDecimal)} prints {@code BigDecimal.valueOf(unscaled, scale)}, written with no
     * BigDecimal: a merged numeric SUM that fits a long (MergeBenchmark.groupBySorted).
     */
    public static byte[] format(long unscaled, int scale) {
        if (scale < 0 || unscaled == Long.MIN_VALUE) {
            return format(BigDecimal.valueOf(unscaled, scale));
        }
        if (scale == 0) {
            return IntegerText.format(unscaled);
        }
        long magnitude = Math.abs(unscaled);
        int sign = unscaled < 0 ? 1 : 0;
        int digits = IntegerText.digits(magnitude);
        int integerDigits = Math.max(digits - scale, 1);
        byte[] result = new byte[sign + integerDigits + 1 + scale];
        java.util.Arrays.fill(result, sign, result.length, (byte) '0');
        IntegerText.writeDigits(magnitude, result, result.length);
        int point = sign + integerDigits;
        if (digits > scale) {
            System.arraycopy(result, sign + 1, result, sign, integerDigits);
        }
        result[point] = '.';
        if (sign == 1) {
            result[0] = '-';
        }
        return result;
    }

    /** Classifies text: 0 = -Infinity, 1 = finite, 2 = Infinity, 3 = NaN. */
    static int classify(byte[] text) {
        if (text.length == 0) {
            return FINITE;
        }
        byte first = text[0];
        if (first == 'N' || first == 'n') {
            return NAN;
        }
        if (first == 'I' || first == 'i' || (first == '+' && text.length > 1 && (text[1] == 'I' || text[1] == 'i'))) {
            return POSITIVE_INFINITY;
        }
        if (first == '-' && text.length > 1 && (text[1] == 'I' || text[1] == 'i')) {
            return NEGATIVE_INFINITY;
        }
        return FINITE;
    }

    /** -1, 0 or 1 for finite text. */
    static int sign(byte[] text) {
        int from = text.length > 0 && (text[0] == '-' || text[0] == '+') ? 1 : 0;
        for (int i = from; i < text.length; i++) {
            byte each = text[i];
            if (each >= '1' && each <= '9') {
                return text[0] == '-' ? -1 : 1;
            }
        }
        return 0;
    }

    private static int compareMagnitude(byte[] a, byte[] b) {
        int aStart = skipSignAndZeros(a);
        int bStart = skipSignAndZeros(b);
        int aPoint = pointOrEnd(a, aStart);
        int bPoint = pointOrEnd(b, bStart);
        int aIntegerDigits = aPoint - aStart;
        int bIntegerDigits = bPoint - bStart;
        if (aIntegerDigits != bIntegerDigits) {
            return aIntegerDigits < bIntegerDigits ? -1 : 1;
        }
        for (int i = 0; i < aIntegerDigits; i++) {
            int difference = a[aStart + i] - b[bStart + i];
            if (difference != 0) {
                return difference < 0 ? -1 : 1;
            }
        }
        int aPosition = aPoint + 1;
        int bPosition = bPoint + 1;
        while (aPosition < a.length && bPosition < b.length) {
            int difference = a[aPosition++] - b[bPosition++];
            if (difference != 0) {
                return difference < 0 ? -1 : 1;
            }
        }
        if (hasNonZero(a, aPosition)) {
            return 1;
        }
        if (hasNonZero(b, bPosition)) {
            return -1;
        }
        return 0;
    }

    private static int skipSignAndZeros(byte[] text) {
        int position = text.length > 0 && (text[0] == '-' || text[0] == '+') ? 1 : 0;
        while (position < text.length && text[position] == '0') {
            position++;
        }
        return position;
    }

    private static int pointOrEnd(byte[] text, int from) {
        for (int i = from; i < text.length; i++) {
            if (text[i] == '.') {
                return i;
            }
        }
        return text.length;
    }

    private static boolean hasNonZero(byte[] text, int from) {
        for (int i = from; i < text.length; i++) {
            if (text[i] != '0') {
                return true;
            }
        }
        return false;
    }

    private static int indexOf(byte[] text, byte wanted) {
        for (int i = 0; i < text.length; i++) {
            if (text[i] == wanted) {
                return i;
            }
        }
        return -1;
    }
}
