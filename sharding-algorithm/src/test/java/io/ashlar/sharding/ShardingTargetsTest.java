package io.ashlar.sharding;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ShardingTargetsTest {

    @Test
    void suffixNamingDerivedFromTheNames() {
        ShardingTargets targets = ShardingTargets.of(List.of("t_order_00", "t_order_01", "t_order_10"));
        assertEquals("t_order_", targets.suffixPrefix());
        assertEquals(2, targets.suffixMinLength());
        assertEquals(1, targets.indexOfSuffix("1"));
        assertEquals(2, targets.indexOfSuffix("10"));
        assertEquals(-1, targets.indexOfSuffix("2"));
        ShardingTargets unpadded = ShardingTargets.of(List.of("ds0", "ds1", "ds11"));
        assertEquals(2, unpadded.indexOfSuffix("11"));
        assertEquals(1, unpadded.indexOfSuffix("1"));
    }

    @Test
    void suffixNamingOfOneDataSourcesTablesComesFromAllTables() {
        // ds_1 holds t_order_10 .. t_order_11 of t_order_0 .. t_order_11: suffixes are not padded
        ShardingTargets targets = ShardingTargets.of(List.of("t_order_10", "t_order_11"), "t_order", List.of("t_order_0", "t_order_1", "t_order_10", "t_order_11"));
        assertEquals("t_order_", targets.suffixPrefix());
        assertEquals(1, targets.suffixMinLength());
        // a logic table ending in digits keeps them in the prefix
        ShardingTargets digits = ShardingTargets.of(List.of("t2_0", "t2_1"), "t2", List.of("t2_0", "t2_1"));
        assertEquals("t2_", digits.suffixPrefix());
        assertEquals(1, digits.indexOfSuffix("1"));
    }

    @Test
    void namesAreFoundExactlyThenIgnoringCase() {
        ShardingTargets targets = ShardingTargets.of(List.of("ds_0", "DS_1"));
        assertEquals(1, targets.indexOf("DS_1"));
        assertEquals(1, targets.indexOf("ds_1"));
        assertEquals(-1, targets.indexOf("ds_2"));
    }

    @Test
    void targetSets() {
        ShardingTargets targets = ShardingTargets.of(List.of("a", "b", "c"));
        TargetSet set = targets.newTargetSet().add(2).add(0).add(2).add(-1).build();
        assertEquals(List.of("a", "c"), set.names());
        assertEquals(2, set.size());
        assertTrue(set.contains(2));
        assertFalse(set.contains(1));
        assertFalse(set.isAll());
        assertSame(targets.all(), targets.newTargetSet().add(0).add(1).add(2).build());
        assertTrue(targets.none().isEmpty());
        assertEquals(List.of("b"), targets.single(1).names());
        assertEquals(List.of("a", "c"), targets.setOf(List.of("c", "x", "a")).names());
        assertThrows(IndexOutOfBoundsException.class, () -> targets.single(3));
    }

    @Test
    void ranges() {
        assertEquals("[1..5)", ShardingRange.closedOpen(1, 5).toString());
        assertEquals("(-inf..5]", ShardingRange.atMost(5).toString());
        assertEquals(ShardingRange.closed(1, 2), ShardingRange.closed(1, 2));
        assertEquals(ShardingRange.closed(1, 2).hashCode(), ShardingRange.closed(1, 2).hashCode());
        assertFalse(ShardingRange.closed(1, 2).equals(ShardingRange.open(1, 2)));
        assertFalse(ShardingRange.greaterThan(1).hasUpperBound());
        assertFalse(ShardingRange.greaterThan(1).isLowerInclusive());
        assertTrue(ShardingRange.atLeast(1).isLowerInclusive());
        assertEquals("range (1..+inf) has no upper bound", assertThrows(IllegalStateException.class, () -> ShardingRange.greaterThan(1).upperEndpoint()).getMessage());
        assertThrows(NullPointerException.class, () -> ShardingRange.closed(null, 1));
    }
}
