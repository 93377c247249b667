package io.ashlar.merge.aggregate;

import io.ashlar.merge.value.FloatText;
import io.ashlar.merge.value.IntegerText;
import io.ashlar.merge.value.NumericDivision;
import io.ashlar.merge.value.NumericText;
import io.ashlar.merge.value.TypeOids;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;

/**
 * A running sum in one of PostgreSQL's SUM result types, with PostgreSQL's overflow and
 * special-value rules: {@code bigint} ({@code int8pl}, error on overflow), {@code numeric}
 * (exact, display scale the largest of the inputs', NaN and infinities as {@code numeric_sum}
 * combines them), {@code real} and {@code double precision} (IEEE, error when finite inputs
 * overflow, as {@code float8_pl} does). The numeric sum stays in a long while it fits.
 */
final class SumState {

    /** The arithmetic of the sum. */
    enum Mode {
        BIGINT(TypeOids.INT8),
        NUMERIC(TypeOids.NUMERIC),
        REAL(TypeOids.FLOAT4),
        DOUBLE(TypeOids.FLOAT8);

        private final int typeOid;

        Mode(int typeOid) {
            this.typeOid = typeOid;
        }

        int typeOid() {
            return typeOid;
        }
    }

    private static final long[] POWERS_OF_TEN = new long[19];

    static {
        POWERS_OF_TEN[0] = 1;
        for (int i = 1; i < POWERS_OF_TEN.length; i++) {
            POWERS_OF_TEN[i] = POWERS_OF_TEN[i - 1] * 10;
        }
    }

    private final Mode mode;
    private final boolean realInput;
    private boolean empty = true;
    private long longValue;
    private int scale;
    private BigDecimal bigValue;
    private double doubleValue;
    private float floatValue;
    private boolean nan;
    private boolean positiveInfinity;
    private boolean negativeInfinity;

    /**
     * @param mode the arithmetic and result type
     * @param realInput the values are {@code real} text summed in double precision: each is read
     *                  as the float it denotes and widened exactly, as {@code float4_accum} does
     */
    SumState(Mode mode, boolean realInput) {
        this.mode = mode;
        this.realInput = realInput;
    }

    Mode mode() {
        return mode;
    }

    void reset() {
        empty = true;
        longValue = 0;
        scale = 0;
        bigValue = null;
        doubleValue = 0;
        floatValue = 0;
        nan = false;
        positiveInfinity = false;
        negativeInfinity = false;
    }

    boolean isEmpty() {
        return empty;
    }

    /** Adds a non-NULL value in text form (integer text is accepted by every mode). */
    void add(byte[] text) {
        empty = false;
        switch (mode) {
            case BIGINT -> {
                long value = IntegerText.parse(text);
                long sum = longValue + value;
                if (((longValue ^ sum) & (value ^ sum)) < 0) {
                    throw new ArithmeticException("bigint out of range");
                }
                longValue = sum;
            }
            case NUMERIC -> addNumeric(text);
            case DOUBLE -> {
                double value = realInput ? FloatText.parseFloat(text) : FloatText.parse(text);
                double sum = doubleValue + value;
                if (Double.isInfinite(sum) && !Double.isInfinite(doubleValue) && !Double.isInfinite(value)) {
                    throw new ArithmeticException("value out of range: overflow");
                }
                doubleValue = sum;
            }
            case REAL -> {
                float value = FloatText.parseFloat(text);
                float sum = floatValue + value;
                if (Float.isInfinite(sum) && !Float.isInfinite(floatValue) && !Float.isInfinite(value)) {
                    throw new ArithmeticException("value out of range: overflow");
                }
                floatValue = sum;
            }
        }
    }

    /** The sum in its type's text form, {@code null} when nothing was added (SUM of no rows). */
    byte[] sumText() {
        if (empty) {
            return null;
        }
        return switch (mode) {
            case BIGINT -> IntegerText.format(longValue);
            case NUMERIC -> {
                byte[] special = specialText();
                if (special != null) {
                    yield special;
                }
                yield bigValue != null ? NumericText.format(bigValue) : NumericText.format(longValue, scale);
            }
            case DOUBLE -> ascii(FloatText.format(doubleValue));
            case REAL -> ascii(FloatText.format(floatValue));
        };
    }

    /**
     * The average over {@code count} rows as PostgreSQL's AVG prints it: {@code numeric_div} of
     * the sum by the count for the exact modes, {@code sum / count} in double precision
     * ({@code float8_avg}) for the floating ones; {@code null} for no rows.
     */
    byte[] averageText(long count) {
        if (empty || count == 0) {
            return null;
        }
        return switch (mode) {
            case BIGINT, NUMERIC -> {
                byte[] special = specialText();
                if (special != null) {
                    yield special;
                }
                yield NumericText.format(NumericDivision.divide(numericValue(), BigDecimal.valueOf(count)));
            }
            case DOUBLE -> ascii(FloatText.format(doubleValue / count));
            case REAL -> ascii(FloatText.format((double) floatValue / count));
        };
    }

    private byte[] specialText() {
        if (nan || (positiveInfinity && negativeInfinity)) {
            return ascii("NaN");
        }
        if (positiveInfinity) {
            return ascii("Infinity");
        }
        if (negativeInfinity) {
            return ascii("-Infinity");
        }
        return null;
    }

    private BigDecimal numericValue() {
        if (mode == Mode.BIGINT) {
            return BigDecimal.valueOf(longValue);
        }
        return bigValue != null ? bigValue : BigDecimal.valueOf(longValue, scale);
    }

    private void addNumeric(byte[] text) {
        if (text.length > 0 && (text[0] == 'N' || text[0] == 'I' || (text[0] == '-' && text.length > 1 && text[1] == 'I'))) {
            if (NumericText.isNaN(text)) {
                nan = true;
            } else if (text[0] == '-') {
                negativeInfinity = true;
            } else {
                positiveInfinity = true;
            }
            return;
        }
        if (bigValue == null && addNumericFast(text)) {
            return;
        }
        BigDecimal value = NumericText.toBigDecimal(text);
        bigValue = (bigValue != null ? bigValue : BigDecimal.valueOf(longValue, scale)).add(value);
    }

    /** Adds numeric text of at most 18 digits to the long sum; false when it does not fit. */
    private boolean addNumericFast(byte[] text) {
        int position = 0;
        boolean negative = false;
        if (text.length > 0 && (text[0] == '-' || text[0] == '+')) {
            negative = text[0] == '-';
            position = 1;
        }
        long unscaled = 0;
        int digits = 0;
        int fractionDigits = -1;
        for (; position < text.length; position++) {
            byte each = text[position];
            if (each == '.' && fractionDigits < 0) {
                fractionDigits = 0;
                continue;
            }
            int digit = each - '0';
            if (digit < 0 || digit > 9 || ++digits > 18) {
                return false;
            }
            unscaled = unscaled * 10 + digit;
            if (fractionDigits >= 0) {
                fractionDigits++;
            }
        }
        if (digits == 0) {
            return false;
        }
        int valueScale = Math.max(fractionDigits, 0);
        long value = negative ? -unscaled : unscaled;
        long current = longValue;
        if (valueScale > scale) {
            int shift = valueScale - scale;
            if (shift >= POWERS_OF_TEN.length || !fitsProduct(current, POWERS_OF_TEN[shift])) {
                return false;
            }
            current *= POWERS_OF_TEN[shift];
        } else if (valueScale < scale) {
            int shift = scale - valueScale;
            if (shift >= POWERS_OF_TEN.length || !fitsProduct(value, POWERS_OF_TEN[shift])) {
                return false;
            }
            value *= POWERS_OF_TEN[shift];
        }
        long sum = current + value;
        if (((current ^ sum) & (value ^ sum)) < 0) {
            return false;
        }
        longValue = sum;
        scale = Math.max(scale, valueScale);
        return true;
    }

    private static boolean fitsProduct(long value, long factor) {
        long high = Math.multiplyHigh(value, factor);
        long low = value * factor;
        return high == (low >> 63);
    }

    private static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }
}
