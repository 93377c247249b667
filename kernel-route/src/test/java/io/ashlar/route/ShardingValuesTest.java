package io.ashlar.route;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.ashlar.route.rule.ShardingValues;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
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

    @Test
    void everySpellingUuidInAcceptsIsTheCanonicalText() {
        String canonical = "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11";
        for (String each : List.of(canonical, "A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11", "{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}",
                "a0eebc999c0b4ef8bb6d6bb9bd380a11", "a0ee-bc99-9c0b-4ef8-bb6d-6bb9-bd38-0a11", "{a0eebc99-9c0b4ef8-bb6d6bb9-bd380a11}")) {
            assertEquals(canonical, ShardingValues.uuid(each), each);
        }
        for (String each : List.of("", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a111", "-a0eebc999c0b4ef8bb6d6bb9bd380a11",
                "a0eebc999c0b4ef8bb6d6bb9bd380a11-", "a0e-ebc999c0b4ef8bb6d6bb9bd380a11", "{a0eebc999c0b4ef8bb6d6bb9bd380a11", " a0eebc999c0b4ef8bb6d6bb9bd380a11",
                "g0eebc999c0b4ef8bb6d6bb9bd380a11")) {
            assertNull(ShardingValues.uuid(each), each);
        }
    }

    @Test
    void aTimestampWithTimeZoneIsItsInstantAtUtc() {
        OffsetDateTime paris = OffsetDateTime.of(2024, 2, 1, 0, 30, 0, 0, ZoneOffset.ofHours(1));
        assertEquals(OffsetDateTime.of(2024, 1, 31, 23, 30, 0, 0, ZoneOffset.UTC), ShardingValues.normalise(paris));
        OffsetDateTime utc = OffsetDateTime.of(2024, 1, 31, 23, 30, 0, 0, ZoneOffset.UTC);
        assertSame(utc, ShardingValues.normalise(utc));
    }
}
