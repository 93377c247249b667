package io.ashlar.sharding.algorithm;

import io.ashlar.sharding.ShardingAlgorithmException;
import io.ashlar.sharding.ShardingRange;
import org.junit.jupiter.api.Test;

import java.math.BigInteger;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Known values of {@code Math.abs((long) value.hashCode()) % count}; "a" is the case of
 * ShardingSphere's {@code HashModShardingAlgorithmTest}, the others are worked out by hand.
 */
class HashModShardingAlgorithmTest {

    private static final List<String> TARGETS = List.of("t_order_0", "t_order_1", "t_order_2", "t_order_3");

    private final HashModShardingAlgorithm hashMod4 = new HashModShardingAlgorithm(Map.of("sharding-count", "4"));

    @Test
    void shardingSphereCase() {
        // "a".hashCode() = 97; 97 % 4 = 1
        assertEquals(Optional.of("t_order_1"), hashMod4.doSharding(TARGETS, "order_type", "a"));
    }

    @Test
    void theJavaTypeOfTheValueDecides() {
        // Integer.hashCode(-1) = -1 -> 1; Long.hashCode(-1) = (int) (-1 ^ (-1 >>> 32)) = 0 -> 0
        assertEquals(Optional.of("t_order_1"), hashMod4.doSharding(TARGETS, "id", -1));
        assertEquals(Optional.of("t_order_0"), hashMod4.doSharding(TARGETS, "id", -1L));
        // "10".hashCode() = 1567 -> 3, but Integer 10 -> 2
        assertEquals(Optional.of("t_order_3"), hashMod4.doSharding(TARGETS, "id", "10"));
        assertEquals(Optional.of("t_order_2"), hashMod4.doSharding(TARGETS, "id", 10));
        // 1234567890123 = 0x11F_71FB04CB; 0x71FB04CB ^ 0x11F = 0x71FB05D4 = 1912276436 -> 0
        assertEquals(Optional.of("t_order_0"), hashMod4.doSharding(TARGETS, "id", 1234567890123L));
    }

    @Test
    void intMinValueIsMadePositiveInLongArithmetic() {
        // Math.abs((long) -2147483648) = 2147483648 = 3 * 715827882 + 2
        HashModShardingAlgorithm hashMod3 = new HashModShardingAlgorithm(Map.of("sharding-count", "3"));
        assertEquals(2, hashMod3.suffixOf(Integer.MIN_VALUE));
        assertEquals(Optional.of("t_2"), hashMod3.doSharding(List.of("t_0", "t_1", "t_2"), "id", Integer.MIN_VALUE));
        // BigInteger.valueOf(5).hashCode() = 5
        assertEquals(2, hashMod3.suffixOf(BigInteger.valueOf(5)));
    }

    @Test
    void rangesRouteEverywhere() {
        assertEquals(TARGETS, hashMod4.doSharding(TARGETS, "create_time", ShardingRange.closed("a", "f")));
    }

    @Test
    void propertyErrors() {
        assertEquals("HASH_MOD sharding algorithm: property 'sharding-count' is '0'; expected a positive integer",
                assertThrows(ShardingAlgorithmException.class, () -> new HashModShardingAlgorithm(Map.of("sharding-count", "0"))).getMessage());
        assertEquals("HASH_MOD sharding algorithm: property 'sharding-count' is missing; expected a positive integer",
                assertThrows(ShardingAlgorithmException.class, () -> new HashModShardingAlgorithm(Map.of())).getMessage());
    }
}
