package io.ashlar.merge.value;

import java.nio.charset.StandardCharsets;

/**
 * Reading numbers straight out of the backend's text bytes, so that merging a value or converting
 * it to binary makes no {@code String}. Every method throws {@link IllegalArgumentException} for
 * text the backend's output functions never produce, worded as PostgreSQL words a value it cannot
 * read.
 */
public final class AsciiText {

    private static final int MAX_QUOTED_LENGTH = 64;

    private AsciiText() {
    }

    /** The failure for text that the type's output function could not have produced. */
    public static IllegalArgumentException malformed(String typeName, byte[] text, int from, int to) {
        int shown = Math.min(to - from, MAX_QUOTED_LENGTH);
        String quoted = new String(text, from, Math.max(shown, 0), StandardCharsets.UTF_8);
        return new IllegalArgumentException("invalid text for type " + typeName + ": \"" + quoted
                + (to - from > shown ? "...\"" : "\""));
    }

    /** The value of an ASCII digit, or -1 when {@code b} is not one. */
    public static int digit(byte b) {
        int result = b - '0';
        return result >= 0 && result <= 9 ? result : -1;
    }

    /** The value of an ASCII hexadecimal digit in either case, or -1 when {@code b} is not one. */
    public static int hexDigit(byte b) {
        if (b >= '0' && b <= '9') {
            return b - '0';
        }
        if (b >= 'a' && b <= 'f') {
            return b - 'a' + 10;
        }
        if (b >= 'A' && b <= 'F') {
            return b - 'A' + 10;
        }
        return -1;
    }

    /** Index of the first {@code b} in {@code text[from, to)}, or {@code to} if there is none. */
    public static int indexOf(byte[] text, byte b, int from, int to) {
        for (int i = from; i < to; i++) {
            if (text[i] == b) {
                return i;
            }
        }
        return to;
    }

    /**
     * A signed decimal integer filling {@code text[from, to)}, accumulated negatively so that
     * {@link Long#MIN_VALUE} parses.
     */
    public static long parseLong(byte[] text, int from, int to, String typeName) {
        int p = from;
        boolean negative = false;
        if (p < to && (text[p] == '-' || text[p] == '+')) {
            negative = text[p] == '-';
            p++;
        }
        if (p >= to) {
            throw malformed(typeName, text, from, to);
        }
        long result = 0;
        for (; p < to; p++) {
            int d = digit(text[p]);
            if (d < 0 || result < Long.MIN_VALUE / 10) {
                throw malformed(typeName, text, from, to);
            }
            result *= 10;
            if (result < Long.MIN_VALUE + d) {
                throw malformed(typeName, text, from, to);
            }
            result -= d;
        }
        if (!negative) {
            if (result == Long.MIN_VALUE) {
                throw malformed(typeName, text, from, to);
            }
            result = -result;
        }
        return result;
    }

    /** An unsigned decimal of at most 18 digits filling {@code text[from, to)}. */
    public static long parseUnsigned(byte[] text, int from, int to, String typeName) {
        if (from >= to || to - from > 18) {
            throw malformed(typeName, text, from, to);
        }
        long result = 0;
        for (int p = from; p < to; p++) {
            int d = digit(text[p]);
            if (d < 0) {
                throw malformed(typeName, text, from, to);
            }
            result = result * 10 + d;
        }
        return result;
    }

    /** Exactly two decimal digits at {@code text[at]}, {@code text[at + 1]}, within {@code to}. */
    public static int twoDigits(byte[] text, int at, int to, String typeName) {
        if (at + 2 > to) {
            throw malformed(typeName, text, at, to);
        }
        int high = digit(text[at]);
        int low = digit(text[at + 1]);
        if (high < 0 || low < 0) {
            throw malformed(typeName, text, at, to);
        }
        return high * 10 + low;
    }

    /** Whether {@code text[from, to)} is exactly the ASCII {@code word}. */
    public static boolean equalsAscii(byte[] text, int from, int to, String word) {
        if (to - from != word.length()) {
            return false;
        }
        for (int i = 0; i < word.length(); i++) {
            if (text[from + i] != word.charAt(i)) {
                return false;
            }
        }
        return true;
    }
}
