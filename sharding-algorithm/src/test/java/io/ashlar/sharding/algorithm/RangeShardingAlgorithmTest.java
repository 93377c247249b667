package io.ashlar.sharding.algorithm;

import io.ashlar.sharding.ShardingAlgorithmException;
import io.ashlar.sharding.ShardingRange;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** VOLUME_RANGE and BOUNDARY_RANGE; the configurations are those of ShardingSphere's tests. */
class RangeShardingAlgorithmTest {

    private static final List<String> SIX = List.of("t_order_0", "t_order_1", "t_order_2", "t_order_3", "t_order_4", "t_order_5");

    private static final List<String> FOUR = SIX.subList(0, 4);

    /** 0: below 10, 1: [10, 20), 2: [20, 30), 3: [30, 40), 4: [40, 45), 5: 45 and above. */
    private final VolumeRangeShardingAlgorithm volume = new VolumeRangeShardingAlgorithm(Map.of("range-lower", "10", "range-upper", "45", "sharding-volume", "10"));

    /** 0: below 1, 1: [1, 5), 2: [5, 10), 3: 10 and above. */
    private final BoundaryRangeShardingAlgorithm boundary = new BoundaryRangeShardingAlgorithm(Map.of("sharding-ranges", "1,5,10"));

    @Test
    void volumePartitions() {
        assertEquals(6, volume.autoTablesAmount());
        int[][] cases = {{-5, 0}, {9, 0}, {10, 1}, {19, 1}, {20, 2}, {39, 3}, {44, 4}, {45, 5}, {1000, 5}};
        for (int[] each : cases) {
            assertEquals(Optional.of("t_order_" + each[1]), volume.doSharding(SIX, "order_id", each[0]), "value " + each[0]);
        }
        assertEquals(Optional.of("t_order_5"), volume.doSharding(SIX, "order_id", Long.MAX_VALUE));
        assertEquals(Optional.of("t_order_2"), volume.doSharding(SIX, "order_id", "23"));
    }

    @Test
    void volumeRanges() {
        assertEquals(List.of("t_order_1", "t_order_2", "t_order_3"), volume.doSharding(SIX, "order_id", ShardingRange.closed(12, 33)));
        assertEquals(List.of("t_order_0", "t_order_1", "t_order_2"), volume.doSharding(SIX, "order_id", ShardingRange.atMost(25)));
        assertEquals(List.of("t_order_4", "t_order_5"), volume.doSharding(SIX, "order_id", ShardingRange.greaterThan(42L)));
        assertEquals(List.of("t_order_1"), volume.doSharding(SIX, "order_id", ShardingRange.closed(new BigDecimal("9.5"), new BigDecimal("19.9"))));
    }

    @Test
    void boundaryPartitions() {
        assertEquals(4, boundary.autoTablesAmount());
        int[][] cases = {{0, 0}, {1, 1}, {4, 1}, {5, 2}, {9, 2}, {10, 3}, {11, 3}, {-100, 0}};
        for (int[] each : cases) {
            assertEquals(Optional.of("t_order_" + each[1]), boundary.doSharding(FOUR, "order_id", each[0]), "value " + each[0]);
        }
        assertEquals(List.of("t_order_1", "t_order_2", "t_order_3"), boundary.doSharding(FOUR, "order_id", ShardingRange.closed(2, 15)));
        assertEquals(List.of("t_order_0", "t_order_1"), boundary.doSharding(FOUR, "order_id", ShardingRange.lessThan(2)));
    }

    @Test
    void boundariesAreSortedAndDuplicatesLeaveEmptyPartitions() {
        assertEquals(Optional.of("t_order_2"), new BoundaryRangeShardingAlgorithm(Map.of("sharding-ranges", "10, 1, 5")).doSharding(FOUR, "order_id", 7));
        BoundaryRangeShardingAlgorithm duplicated = new BoundaryRangeShardingAlgorithm(Map.of("sharding-ranges", "1,1,5"));
        assertEquals(4, duplicated.autoTablesAmount());
        assertEquals(Optional.of("t_order_2"), duplicated.doSharding(FOUR, "order_id", 1));
    }

    @Test
    void unusableValue() {
        assertEquals("BOUNDARY_RANGE sharding algorithm cannot use value '1.5' (java.math.BigDecimal) of column 'order_id': expected an integer",
                assertThrows(ShardingAlgorithmException.class, () -> boundary.doSharding(FOUR, "order_id", new BigDecimal("1.5"))).getMessage());
    }

    @Test
    void propertyErrors() {
        assertEquals("VOLUME_RANGE sharding algorithm: property 'range-lower' is missing; expected an integer",
                assertThrows(ShardingAlgorithmException.class, () -> new VolumeRangeShardingAlgorithm(Map.of("range-upper", "45", "sharding-volume", "10"))).getMessage());
        assertEquals("VOLUME_RANGE sharding algorithm: property 'range-upper' is 'x'; expected an integer",
                assertThrows(ShardingAlgorithmException.class,
                        () -> new VolumeRangeShardingAlgorithm(Map.of("range-lower", "10", "range-upper", "x", "sharding-volume", "10"))).getMessage());
        assertEquals("VOLUME_RANGE sharding algorithm: property 'sharding-volume' is '0'; expected a positive integer",
                assertThrows(ShardingAlgorithmException.class,
                        () -> new VolumeRangeShardingAlgorithm(Map.of("range-lower", "10", "range-upper", "45", "sharding-volume", "0"))).getMessage());
        assertEquals("VOLUME_RANGE sharding algorithm: property 'range-upper' is '15'; expected a value at least sharding-volume (10) above range-lower (10)",
                assertThrows(ShardingAlgorithmException.class,
                        () -> new VolumeRangeShardingAlgorithm(Map.of("range-lower", "10", "range-upper", "15", "sharding-volume", "10"))).getMessage());
        assertEquals("BOUNDARY_RANGE sharding algorithm: property 'sharding-ranges' is missing; expected comma-separated integers such as 1,5,10",
                assertThrows(ShardingAlgorithmException.class, () -> new BoundaryRangeShardingAlgorithm(Map.of())).getMessage());
        assertEquals("BOUNDARY_RANGE sharding algorithm: property 'sharding-ranges' is '1,x'; expected comma-separated integers such as 1,5,10 ('x' is not an integer)",
                assertThrows(ShardingAlgorithmException.class, () -> new BoundaryRangeShardingAlgorithm(Map.of("sharding-ranges", "1,x"))).getMessage());
        assertEquals("BOUNDARY_RANGE sharding algorithm: property 'sharding-ranges' is ','; expected comma-separated integers such as 1,5,10",
                assertThrows(ShardingAlgorithmException.class, () -> new BoundaryRangeShardingAlgorithm(Map.of("sharding-ranges", ","))).getMessage());
    }
}
