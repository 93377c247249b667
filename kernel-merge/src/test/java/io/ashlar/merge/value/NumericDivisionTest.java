package io.ashlar.merge.value;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.math.BigDecimal;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * AVG over integers and numerics is {@code numeric_div(sum, count)}, whose result scale is
 * {@code select_div_scale} in src/backend/utils/adt/numeric.c:
 * <pre>
 *   weightN, firstN = base-10000 exponent and value of the first non-zero base-10000 digit
 *   qweight = weight1 - weight2, minus 1 if first1 &lt;= first2
 *   rscale  = max(16 - qweight * 4, dscale1, dscale2, 0), at most 1000
 * </pre>
 * then rounded half away from zero. Each row below was worked by hand with that rule; the
 * comment gives (weight1, first1; weight2, first2 -> qweight -> rscale). Rows marked "PG" are
 * outputs of real PostgreSQL seen in its regression tests or in published query results.
 */
class NumericDivisionTest {

    @ParameterizedTest(name = "{0} / {1} = {2}")
    @CsvSource({
        // (0,3; 0,2 -> 0 -> 16)
        "3, 2, 1.5000000000000000",
        // (0,5; 0,3 -> 0 -> 16)
        "5, 3, 1.6666666666666667",
        // (0,1; 0,1 -> -1 -> 20): select avg(1)
        "1, 1, 1.00000000000000000000",
        // (0,0; 0,2 -> -1 -> 20)
        "0, 2, 0.00000000000000000000",
        // PG regression aggregates.out avg_1: avg(four) over onek, 1500/1000 (0,1500; 0,1000 -> 0 -> 16)
        "1500, 1000, 1.5000000000000000",
        // PG regression avg_32: avg(a) from aggtest where a < 100, 98/3 (0,98; 0,3 -> 0 -> 16)
        "98, 3, 32.6666666666666667",
        // PG window averages: 1996/6, 2140/7, 2613/8, 2721/9, 1345/4, 1430/5 (qweight 0 -> 16)
        "1996, 6, 332.6666666666666667",
        "2140, 7, 305.7142857142857143",
        "2613, 8, 326.6250000000000000",
        "2721, 9, 302.3333333333333333",
        "1345, 4, 336.2500000000000000",
        "1430, 5, 286.0000000000000000",
        // (0,6; 0,3 -> 0 -> 16): avg of 1, 2, 3
        "6, 3, 2.0000000000000000",
        // (0,5050; 0,100 -> 0 -> 16): avg of 1..100
        "5050, 100, 50.5000000000000000",
        // (1,1; 0,2 -> 0 -> 16): 12345 has base-10000 digits 1|2345
        "12345, 2, 6172.5000000000000000",
        // (1,2; 0,2 -> 0 -> 16): equal first digits count as dividend smaller
        "20000, 2, 10000.0000000000000000",
        // (1,3; 0,2 -> 1 -> 12)
        "30000, 2, 15000.000000000000",
        // (0,7; 0,7 -> -1 -> 20)
        "7, 7, 1.00000000000000000000",
        // (0,1; 0,3 -> -1 -> 20)
        "1, 3, 0.33333333333333333333",
        // (0,2; 0,3 -> -1 -> 20); 0.666...67 rounds up
        "2, 3, 0.66666666666666666667",
        // (0,1; 1,1 -> -2 -> 24): count 10000 has digits 1|0000
        "1, 10000, 0.000100000000000000000000",
        // (4,1; 0,5 -> 3 -> 4): 13703670370370613 is 1|3703|6703|7037|0613
        "13703670370370613, 5, 2740734074074122.6000",
        // (4,922; 0,1 -> 4 -> 0): 922|3372|0368|5477|5807 over one row: no fraction digits
        "9223372036854775807, 1, 9223372036854775807",
        // negative sums round half away from zero
        "-5, 3, -1.6666666666666667",
        "-3, 2, -1.5000000000000000",
        // (0,1; 0,3 -> -1 -> 20) but the dividend's display scale 24 is larger and wins
        "1.000000000000000000000000, 3, 0.333333333333333333333333",
        // (0,10; 0,4 -> 0 -> 16), dscale 2 < 16
        "10.50, 4, 2.6250000000000000",
        // (-1,5000; 0,2 -> -1 -> 20): 0.5 is the base-10000 digit 5000 at weight -1
        "0.5, 2, 0.25000000000000000000",
        // (-2,5000; 0,3 -> -2 -> 24): 0.00005
        "0.00005, 3, 0.000016666666666666666667",
        // (2,1234; 0,7 -> 2 -> 8): 123456789012 is 1234|5678|9012
        "123456789012, 7, 17636684144.57142857",
    })
    void dividesWithSelectDivScale(String dividend, String divisor, String expected) {
        assertEquals(expected, NumericDivision.divide(new BigDecimal(dividend), new BigDecimal(divisor)).toPlainString());
    }
}
