package io.ashlar.merge.value;

import java.math.BigDecimal;
import java.math.RoundingMode;

/**
 * PostgreSQL's {@code numeric_div}: the quotient rounded half away from zero to the scale
 * {@code select_div_scale} picks in {@code src/backend/utils/adt/numeric.c}. AVG over integers
 * and numerics is exactly this division of the total sum by the total count
 * ({@code int8_avg}, {@code numeric_avg}), so the proxy must pick the same scale to print the
 * same digits: {@code avg(1, 2)} is {@code 1.5000000000000000}.
 *
 * <p>The rule: numeric stores base-10000 digits ({@code NBASE}, {@code DEC_DIGITS = 4}). Take
 * each operand's weight (the base-10000 exponent of its first non-zero digit) and that first
 * digit; the quotient's weight is estimated as {@code weight1 - weight2}, one less when the
 * dividend's first digit is not larger than the divisor's. The result scale gives at least
 * {@code NUMERIC_MIN_SIG_DIGITS = 16} significant digits:
 * {@code 16 - qweight * 4}, raised to the operands' display scales, clamped to
 * {@code [0, 1000]}.
 */
public final class NumericDivision {

    /** {@code NUMERIC_MIN_SIG_DIGITS}. */
    public static final int MIN_SIGNIFICANT_DIGITS = 16;
    /** {@code DEC_DIGITS}: decimal digits per base-10000 digit. */
    public static final int DECIMAL_DIGITS_PER_DIGIT = 4;
    /** {@code NUMERIC_MAX_DISPLAY_SCALE}. */
    public static final int MAX_DISPLAY_SCALE = 1000;

    private NumericDivision() {
    }

    /** {@code dividend / divisor} as {@code numeric_div} computes it; the divisor must not be zero. */
    public static BigDecimal divide(BigDecimal dividend, BigDecimal divisor) {
        if (divisor.signum() == 0) {
            throw new ArithmeticException("division by zero");
        }
        return dividend.divide(divisor, selectDivScale(dividend, divisor), RoundingMode.HALF_UP);
    }

    /** {@code select_div_scale}: the display scale of {@code dividend / divisor}. */
    public static int selectDivScale(BigDecimal dividend, BigDecimal divisor) {
        int weight1 = weight(dividend);
        int weight2 = weight(divisor);
        int first1 = firstDigit(dividend, weight1);
        int first2 = firstDigit(divisor, weight2);
        int quotientWeight = weight1 - weight2;
        if (first1 <= first2) {
            quotientWeight--;
        }
        int result = MIN_SIGNIFICANT_DIGITS - quotientWeight * DECIMAL_DIGITS_PER_DIGIT;
        result = Math.max(result, displayScale(dividend));
        result = Math.max(result, displayScale(divisor));
        result = Math.max(result, 0);
        return Math.min(result, MAX_DISPLAY_SCALE);
    }

    /** Base-10000 exponent of the first non-zero digit; 0 for zero. */
    static int weight(BigDecimal value) {
        if (value.signum() == 0) {
            return 0;
        }
        int decimalExponent = value.precision() - value.scale() - 1;
        return Math.floorDiv(decimalExponent, DECIMAL_DIGITS_PER_DIGIT);
    }

    /** The base-10000 digit at {@code weight}; 0 for zero. */
    static int firstDigit(BigDecimal value, int weight) {
        if (value.signum() == 0) {
            return 0;
        }
        BigDecimal scaled = value.abs().movePointLeft(weight * DECIMAL_DIGITS_PER_DIGIT);
        return scaled.setScale(0, RoundingMode.DOWN).intValueExact();
    }

    private static int displayScale(BigDecimal value) {
        return Math.max(value.scale(), 0);
    }
}
