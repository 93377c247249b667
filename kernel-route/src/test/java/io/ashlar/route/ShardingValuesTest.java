package io.ashlar.route;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.ashlar.route.rule.ShardingValues;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.LocalDate;
import org.junit.jupiter.api.Test;

/** The canonical form of sharding values: the hash of a value must not depend on how the client spelled it. */
class ShardingValuesTest {

    @Test
    void integralNumbersBecomeTheSmallestIntegerTypeHoldingThem() {
        assertEquals(Integer.valueOf(-7), ShardingValues.normalise(-7L));
        assertEquals(Integer.valueOf(-7), ShardingValues.normalise((short) -7));
        assertEquals(Integer.valueOf(14), ShardingValues.normalise(new BigDecimal("14.0")));
        assertEquals(Integer.valueOf(16), ShardingValues.normalise(new BigDecimal("16.00")));
        assertEquals(Integer.valueOf(1600), ShardingValues.normalise(new BigDecimal("1.6E+3")));
        assertEquals(Integer.valueOf(0), ShardingValues.normalise(new BigDecimal("-0.000")));
        assertEquals(Integer.valueOf(3), ShardingValues.normalise(3.0d));
        assertEquals(Long.valueOf(4_294_967_297L), ShardingValues.normalise(4_294_967_297L));
        assertEquals(Long.valueOf(4_294_967_297L), ShardingValues.normalise(new BigInteger("4294967297")));
        assertEquals(Long.valueOf(4_294_967_297L), ShardingValues.normalise(new BigDecimal("4294967297.000")));
        assertEquals(new BigInteger("18446744073709551616"), ShardingValues.normalise(new BigDecimal("18446744073709551616.0")));
    }

    @Test
    void theHashOfMinusSevenIsTheIntegersWhateverTheSpelling() {
        int expected = Integer.valueOf(-7).hashCode();
        for (Object each : new Object[] {-7, -7L, new BigDecimal("-7.00"), -7.0d, BigInteger.valueOf(-7)}) {
            assertEquals(expected, ShardingValues.normalise(each).hashCode(), each.getClass().getSimpleName());
        }
    }

    @Test
    void fractionsKeepTheirValueWithoutTrailingZeros() {
        assertEquals(new BigDecimal("1.5"), ShardingValues.normalise(new BigDecimal("1.50")));
        assertEquals(new BigDecimal("0.1"), ShardingValues.normalise(0.1d));
        BigDecimal plain = new BigDecimal("2.25");
        assertSame(plain, ShardingValues.normalise(plain));
    }

    @Test
    void otherValuesAreLeftAsTheyAre() {
        assertNull(ShardingValues.normalise(null));
        assertEquals("7", ShardingValues.normalise("7"));
        LocalDate date = LocalDate.of(2024, 1, 1);
        assertSame(date, ShardingValues.normalise(date));
        assertEquals(Double.NaN, ShardingValues.normalise(Double.NaN));
        Integer seven = 7;
        assertSame(seven, ShardingValues.normalise(seven));
    }

    @Test
    void textSpellingAnIntegerIsThatIntegerWhenStored() {
        assertEquals(Integer.valueOf(-7), ShardingValues.integralText(" -7 "));
        assertEquals(Integer.valueOf(15), ShardingValues.integralText("+15.00"));
        assertNull(ShardingValues.integralText("4.25"));
        assertNull(ShardingValues.integralText("abc"));
        assertNull(ShardingValues.integralText("1e5"));
        assertNull(ShardingValues.integralText("-"));
        assertNull(ShardingValues.integralText("."));
        assertNull(ShardingValues.integralText(""));
        assertEquals(Integer.valueOf(13), ShardingValues.normaliseStored("13"));
        assertEquals("abc", ShardingValues.normaliseStored("abc"));
        assertEquals(Integer.valueOf(13), ShardingValues.normaliseStored(13L));
    }
}
