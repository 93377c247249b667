package io.ashlar.sharding.algorithm;

import io.ashlar.sharding.BoundStandardAlgorithm;
import io.ashlar.sharding.ShardingAlgorithmException;
import io.ashlar.sharding.ShardingRange;
import io.ashlar.sharding.ShardingTargets;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Known values: the first cases are those of ShardingSphere's {@code ModShardingAlgorithmTest}. */
class ModShardingAlgorithmTest {

    /** ShardingSphere's target list, deliberately not in suffix order. */
    private static final List<String> TARGETS = List.of("t_order_8", "t_order_9", "t_order_10", "t_order_11", "t_order_12", "t_order_13", "t_order_14", "t_order_15",
            "t_order_0", "t_order_1", "t_order_2", "t_order_3", "t_order_4", "t_order_5", "t_order_6", "t_order_7");

    private static final List<String> PADDED_TARGETS = padded(16);

    private final ModShardingAlgorithm mod16 = new ModShardingAlgorithm(Map.of("sharding-count", "16"));

    private static List<String> padded(int count) {
        List<String> result = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            result.add("t_order_" + (i < 10 ? "0" : "") + i);
        }
        return result;
    }

    @Test
    void shardingSphereCases() {
        assertEquals(Optional.of("t_order_1"), mod16.doSharding(TARGETS, "order_id", 17));
        assertEquals(Optional.of("t_order_12"), mod16.doSharding(TARGETS, "order_id", "12345678910111213141516"));
        assertEquals(16, mod16.doSharding(TARGETS, "order_id", ShardingRange.closed(1L, 16L)).size());
        assertEquals(List.of("t_order_1", "t_order_2"), mod16.doSharding(TARGETS, "order_id", ShardingRange.closed(1L, 2L)));
    }

    @Test
    void shardingSphereZeroPaddingWithOffsets() {
        // "12345678910111213141516" without its first and last character is 234567891011121314151, which is 7 mod 16
        ModShardingAlgorithm algorithm = new ModShardingAlgorithm(Map.of("sharding-count", "16", "zero-padding", "true", "start-offset", "1", "stop-offset", "1"));
        assertEquals(Optional.of("t_order_07"), algorithm.doSharding(PADDED_TARGETS, "order_id", "12345678910111213141516"));
        assertEquals(16, algorithm.doSharding(PADDED_TARGETS, "order_id", ShardingRange.closed(1L, 16L)).size());
        ShardingAlgorithmException e = assertThrows(ShardingAlgorithmException.class, () -> algorithm.doSharding(PADDED_TARGETS, "order_id", "12"));
        assertEquals("MOD sharding algorithm cannot use value '12' of column 'order_id': it is not longer than start-offset 1 plus stop-offset 1", e.getMessage());
    }

    @Test
    void paddedTargetNamesAreMatchedWithoutZeroPadding() {
        assertEquals(Optional.of("t_order_06"), mod16.doSharding(PADDED_TARGETS, "order_id", 22));
    }

    @Test
    void negativeValuesTakeTheNonNegativeModulus() {
        assertEquals(Optional.of("t_order_15"), mod16.doSharding(TARGETS, "order_id", -1));
        assertEquals(Optional.of("t_order_0"), mod16.doSharding(TARGETS, "order_id", -16L));
        // 12345678910111213141521 = 12345678910111213141516 + 5 is 1 mod 16, so its negation is 15 mod 16
        assertEquals(Optional.of("t_order_15"), mod16.doSharding(TARGETS, "order_id", new BigInteger("-12345678910111213141521")));
    }

    @Test
    void everyIntegralTypeAndNumericText() {
        for (Comparable<?> each : List.<Comparable<?>>of(17, 17L, (short) 17, (byte) 17, BigInteger.valueOf(17), new BigDecimal("17"), new BigDecimal("17.000"),
                17.0d, 17.0f, "17", " 17 ", "+17")) {
            assertEquals(Optional.of("t_order_1"), mod16.doSharding(TARGETS, "order_id", each), () -> "value " + each + " of " + each.getClass());
        }
    }

    @Test
    void unusableValuesAreRefusedWithTheAlgorithmColumnAndValue() {
        assertEquals("MOD sharding algorithm cannot use value 'abc' (java.lang.String) of column 'order_id': expected an integer",
                assertThrows(ShardingAlgorithmException.class, () -> mod16.doSharding(TARGETS, "order_id", "abc")).getMessage());
        assertEquals("MOD sharding algorithm cannot use value '17.5' (java.math.BigDecimal) of column 'order_id': expected an integer",
                assertThrows(ShardingAlgorithmException.class, () -> mod16.doSharding(TARGETS, "order_id", new BigDecimal("17.5"))).getMessage());
        assertEquals("MOD sharding algorithm cannot use value '2021-01-01' (java.time.LocalDate) of column 'order_id': expected an integer",
                assertThrows(ShardingAlgorithmException.class, () -> mod16.doSharding(TARGETS, "order_id", LocalDate.of(2021, 1, 1))).getMessage());
    }

    @Test
    void boundRoutingIsAnIndexIntoTheTargets() {
        BoundStandardAlgorithm bound = mod16.bind("order_id", ShardingTargets.of(TARGETS));
        assertEquals(TARGETS.indexOf("t_order_1"), bound.route(17));
        assertEquals(TARGETS.indexOf("t_order_0"), bound.route(Long.MIN_VALUE));
        BoundStandardAlgorithm partial = mod16.bind("order_id", ShardingTargets.of(List.of("t_order_0", "t_order_1", "t_order_2", "t_order_3")));
        assertEquals(BoundStandardAlgorithm.NO_TARGET, partial.route(5));
        assertEquals(Optional.empty(), mod16.doSharding(List.of("t_order_0", "t_order_1"), "order_id", 5));
    }

    @Test
    void smallRangesAreEnumeratedHonouringExclusiveEnds() {
        assertEquals(List.of("t_order_2"), mod16.doSharding(TARGETS, "order_id", ShardingRange.open(1, 3)));
        // 14, 15, 16, 17 -> suffixes 14, 15, 0, 1, in target order
        assertEquals(List.of("t_order_14", "t_order_15", "t_order_0", "t_order_1"), mod16.doSharding(TARGETS, "order_id", ShardingRange.closedOpen(14, 18)));
        assertEquals(List.of("t_order_2"), mod16.doSharding(TARGETS, "order_id", ShardingRange.closed(new BigDecimal("1.5"), new BigDecimal("2.5"))));
        assertEquals(List.of(), mod16.doSharding(TARGETS, "order_id", ShardingRange.closed(5, 4)));
        assertEquals(List.of("t_order_15", "t_order_0"), mod16.doSharding(TARGETS, "order_id", ShardingRange.closed(-1, 0)));
    }

    @Test
    void openOrWideRangesRouteEverywhere() {
        assertEquals(16, mod16.doSharding(TARGETS, "order_id", ShardingRange.greaterThan(5)).size());
        assertEquals(16, mod16.doSharding(TARGETS, "order_id", ShardingRange.atMost(5)).size());
        assertEquals(16, mod16.doSharding(TARGETS, "order_id", ShardingRange.closed(0, 15)).size());
        assertEquals(16, mod16.doSharding(TARGETS, "order_id", ShardingRange.closed(BigInteger.ZERO, new BigInteger("99999999999999999999999"))).size());
    }

    @Test
    void propertyErrors() {
        assertEquals("MOD sharding algorithm: property 'sharding-count' is missing; expected a positive integer",
                assertThrows(ShardingAlgorithmException.class, () -> new ModShardingAlgorithm(Map.of())).getMessage());
        assertEquals("MOD sharding algorithm: property 'sharding-count' is '0'; expected a positive integer",
                assertThrows(ShardingAlgorithmException.class, () -> new ModShardingAlgorithm(Map.of("sharding-count", "0"))).getMessage());
        assertEquals("MOD sharding algorithm: property 'sharding-count' is 'four'; expected a positive integer",
                assertThrows(ShardingAlgorithmException.class, () -> new ModShardingAlgorithm(Map.of("sharding-count", "four"))).getMessage());
        assertEquals("MOD sharding algorithm: property 'start-offset' is '-1'; expected an integer >= 0",
                assertThrows(ShardingAlgorithmException.class, () -> new ModShardingAlgorithm(Map.of("sharding-count", "4", "start-offset", "-1"))).getMessage());
        assertEquals("MOD sharding algorithm: property 'stop-offset' is '-1'; expected an integer >= 0",
                assertThrows(ShardingAlgorithmException.class, () -> new ModShardingAlgorithm(Map.of("sharding-count", "4", "stop-offset", "-1"))).getMessage());
        assertEquals("MOD sharding algorithm: property 'zero-padding' is 'yes'; expected true or false",
                assertThrows(ShardingAlgorithmException.class, () -> new ModShardingAlgorithm(Map.of("sharding-count", "4", "zero-padding", "yes"))).getMessage());
    }

    @Test
    void autoTablesAmountIsTheShardingCount() {
        assertEquals(16, mod16.autoTablesAmount());
        assertEquals("MOD", mod16.type());
    }
}
