package io.ashlar.merge.value;

import java.nio.charset.StandardCharsets;

/**
 * Integers in PostgreSQL text form ({@code int2out}, {@code int4out}, {@code int8out}): an
 * optional minus and decimal digits. Read without creating a String.
 */
public final class IntegerText {

    private IntegerText() {
    }

    /** Parses a whole value; throws {@link NumberFormatException} on anything else. */
    public static long parse(byte[] text) {
        return parse(text, 0, text.length);
    }

    /** Parses {@code text[from, to)}. */
    public static long parse(byte[] text, int from, int to) {
        int position = from;
        boolean negative = false;
        if (position < to && (text[position] == '-' || text[position] == '+')) {
            negative = text[position] == '-';
            position++;
        }
        if (position == to || to - position > 19) {
            throw invalid(text, from, to);
        }
        long result = 0;
        for (; position < to; position++) {
            int digit = text[position] - '0';
            if (digit < 0 || digit > 9) {
                throw invalid(text, from, to);
            }
            // accumulate negatively so that Long.MIN_VALUE parses
            long shifted = result * 10;
            if (result < Long.MIN_VALUE / 10 || shifted < Long.MIN_VALUE + digit) {
                throw invalid(text, from, to);
            }
            result = shifted - digit;
        }
        if (!negative) {
            if (result == Long.MIN_VALUE) {
                throw invalid(text, from, to);
            }
            return -result;
        }
        return result;
    }

    /**
     * The text PostgreSQL prints for an integer, written straight into its array: one allocation per
     * merged COUNT or bigint SUM, not a String and its copy (MergeBenchmark.groupBySorted).
     */
    public static byte[] format(long value) {
        if (value == Long.MIN_VALUE) {
            return Long.toString(value).getBytes(StandardCharsets.US_ASCII);
        }
        long magnitude = Math.abs(value);
        int sign = value < 0 ? 1 : 0;
        byte[] result = new byte[sign + digits(magnitude)];
        writeDigits(magnitude, result, result.length);
        if (sign == 1) {
            result[0] = '-';
        }
        return result;
    }

    /** The number of decimal digits of a non-negative value (1 for 0). */
    static int digits(long magnitude) {
        int result = 1;
        for (long rest = magnitude; rest >= 10; rest /= 10) {
            result++;
        }
        return result;
    }

    /** Writes the decimal digits of a non-negative value so that the last lands at {@code end - 1}; returns the first's index. */
    static int writeDigits(long magnitude, byte[] out, int end) {
        int position = end;
        long rest = magnitude;
        do {
            out[--position] = (byte) ('0' + (int) (rest % 10));
            rest /= 10;
        } while (rest != 0);
        return position;
    }

    private static NumberFormatException invalid(byte[] text, int from, int to) {
        return new NumberFormatException("not an integer: \"" + new String(text, from, to - from, StandardCharsets.UTF_8) + "\"");
    }
}
