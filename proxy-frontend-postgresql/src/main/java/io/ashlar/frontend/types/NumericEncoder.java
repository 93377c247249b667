package io.ashlar.frontend.types;

import io.ashlar.merge.value.AsciiText;
import io.ashlar.merge.value.TypeOids;
import io.netty.buffer.ByteBuf;

/**
 * {@code numeric}: {@code numeric_send} writes Int16 ndigits, Int16 weight, Int16 sign, Int16
 * dscale and then ndigits base-10000 digits, most significant first, of the stored value. The
 * stored value never has leading or trailing zero base-10000 digits ({@code make_result} strips
 * them), its weight is the power of 10000 of the first digit, and its dscale is the number of
 * fractional decimal digits, which is exactly what {@code numeric_out} prints after the point. So
 * the binary form follows from the text alone: digit groups are aligned on the decimal point and
 * the zero groups at both ends dropped. Zero is ndigits 0, weight 0, positive. NaN and the
 * infinities (PostgreSQL 14) have no digits, weight 0 and their own sign word; their dscale is
 * what {@code NUMERIC_DSCALE} reads from a special value's header as if it were a short one:
 * 0 for NaN, 32 for the infinities (bit 0x1000 of 0xD000 and 0xF000). See
 * <a href="https://www.postgresql.org/docs/current/datatype-numeric.html#DATATYPE-NUMERIC-DECIMAL">
 * Arbitrary Precision Numbers</a> and {@code src/backend/utils/adt/numeric.c}.
 */
final class NumericEncoder implements ValueEncoder {

    static final NumericEncoder INSTANCE = new NumericEncoder();

    private static final String TYPE_NAME = "numeric";
    private static final int DEC_DIGITS = 4;
    private static final int POSITIVE = 0x0000;
    private static final int NEGATIVE = 0x4000;
    private static final int NAN = 0xC000;
    private static final int PLUS_INFINITY = 0xD000;
    private static final int MINUS_INFINITY = 0xF000;
    private static final int NUMERIC_SHORT_DSCALE_MASK = 0x1F80;
    private static final int NUMERIC_SHORT_DSCALE_SHIFT = 7;

    private NumericEncoder() {
    }

    @Override
    public int typeOid() {
        return TypeOids.NUMERIC;
    }

    @Override
    public void write(byte[] text, int offset, int length, ByteBuf out) {
        int end = offset + length;
        int p = offset;
        boolean negative = p < end && text[p] == '-';
        if (negative) {
            p++;
        }
        if (p < end && AsciiText.digit(text[p]) < 0 && text[p] != '.') {
            writeSpecial(text, offset, end, out);
            return;
        }
        int integerStart = p;
        while (p < end && AsciiText.digit(text[p]) >= 0) {
            p++;
        }
        int integerEnd = p;
        int fractionStart = p;
        if (p < end && text[p] == '.') {
            p++;
            fractionStart = p;
            while (p < end && AsciiText.digit(text[p]) >= 0) {
                p++;
            }
        }
        int fractionEnd = p;
        if (p != end || integerStart == integerEnd && fractionStart == fractionEnd) {
            throw AsciiText.malformed(TYPE_NAME, text, offset, end);
        }
        int dscale = fractionEnd - fractionStart;
        int highest = highestNonZeroPower(text, integerStart, integerEnd, fractionStart, fractionEnd);
        if (highest == Integer.MIN_VALUE) {
            writeHeader(out, 0, 0, POSITIVE, dscale);
            return;
        }
        int lowest = lowestNonZeroPower(text, integerStart, integerEnd, fractionStart, fractionEnd);
        int weight = Math.floorDiv(highest, DEC_DIGITS);
        int lowestWeight = Math.floorDiv(lowest, DEC_DIGITS);
        writeHeader(out, weight - lowestWeight + 1, weight, negative ? NEGATIVE : POSITIVE, dscale);
        for (int w = weight; w >= lowestWeight; w--) {
            int group = 0;
            for (int power = w * DEC_DIGITS + DEC_DIGITS - 1; power >= w * DEC_DIGITS; power--) {
                group = group * 10 + digitAt(text, power, integerStart, integerEnd, fractionStart, fractionEnd);
            }
            out.writeShort(group);
        }
    }

    private static void writeHeader(ByteBuf out, int ndigits, int weight, int sign, int dscale) {
        out.writeShort(ndigits);
        out.writeShort(weight);
        out.writeShort(sign);
        out.writeShort(dscale);
    }

    private static void writeSpecial(byte[] text, int offset, int end, ByteBuf out) {
        int sign;
        if (AsciiText.equalsAscii(text, offset, end, "NaN")) {
            sign = NAN;
        } else if (AsciiText.equalsAscii(text, offset, end, "Infinity")) {
            sign = PLUS_INFINITY;
        } else if (AsciiText.equalsAscii(text, offset, end, "-Infinity")) {
            sign = MINUS_INFINITY;
        } else {
            throw AsciiText.malformed(TYPE_NAME, text, offset, end);
        }
        writeHeader(out, 0, 0, sign, (sign & NUMERIC_SHORT_DSCALE_MASK) >> NUMERIC_SHORT_DSCALE_SHIFT);
    }

    /** The decimal power of the most significant non-zero digit, or MIN_VALUE for zero. */
    private static int highestNonZeroPower(byte[] text, int integerStart, int integerEnd,
            int fractionStart, int fractionEnd) {
        for (int i = integerStart; i < integerEnd; i++) {
            if (text[i] != '0') {
                return integerEnd - 1 - i;
            }
        }
        for (int i = fractionStart; i < fractionEnd; i++) {
            if (text[i] != '0') {
                return fractionStart - 1 - i;
            }
        }
        return Integer.MIN_VALUE;
    }

    /** The decimal power of the least significant non-zero digit of a non-zero value. */
    private static int lowestNonZeroPower(byte[] text, int integerStart, int integerEnd,
            int fractionStart, int fractionEnd) {
        for (int i = fractionEnd - 1; i >= fractionStart; i--) {
            if (text[i] != '0') {
                return fractionStart - 1 - i;
            }
        }
        int result = 0;
        for (int i = integerEnd - 1; i >= integerStart && text[i] == '0'; i--) {
            result++;
        }
        return result;
    }

    /** The decimal digit at {@code 10^power}; zero outside the written digits. */
    private static int digitAt(byte[] text, int power, int integerStart, int integerEnd,
            int fractionStart, int fractionEnd) {
        if (power >= 0) {
            int i = integerEnd - 1 - power;
            return i >= integerStart ? text[i] - '0' : 0;
        }
        int i = fractionStart - 1 - power;
        return i < fractionEnd ? text[i] - '0' : 0;
    }
}
