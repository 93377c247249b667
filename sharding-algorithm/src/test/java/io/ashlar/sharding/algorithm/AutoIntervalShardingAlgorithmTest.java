package io.ashlar.sharding.algorithm;

import io.ashlar.sharding.ShardingAlgorithmException;
import io.ashlar.sharding.ShardingRange;
import org.junit.jupiter.api.Test;

import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The cases of ShardingSphere's {@code AutoIntervalShardingAlgorithmTest}, plus the rounding edge. */
class AutoIntervalShardingAlgorithmTest {

    private final AutoIntervalShardingAlgorithm algorithm = new AutoIntervalShardingAlgorithm(
            Map.of("datetime-lower", "2020-01-01 00:00:00", "datetime-upper", "2020-01-01 00:00:16", "sharding-seconds", "4"));

    private static List<String> targets(int count) {
        List<String> result = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            result.add("t_order_" + i);
        }
        return result;
    }

    @Test
    void precise() {
        // 1 s / 4 s = 0.25, rounded up: slice 1
        assertEquals(Optional.of("t_order_1"), algorithm.doSharding(targets(4), "create_time", "2020-01-01 00:00:01"));
        assertEquals(Optional.of("t_order_5"), algorithm.doSharding(targets(6), "create_time", "2021-01-01 00:00:02"));
        assertEquals(Optional.of("t_order_0"), algorithm.doSharding(targets(6), "create_time", "2019-01-01 00:00:02"));
        assertEquals(Optional.of("t_order_2"), algorithm.doSharding(targets(6), "create_time", LocalDateTime.of(2020, 1, 1, 0, 0, 5)));
        assertEquals(Optional.of("t_order_2"), algorithm.doSharding(targets(6), "create_time", "2020-01-01T00:00:05"));
        assertEquals(Optional.of("t_order_2"), algorithm.doSharding(targets(6), "create_time", "2020-01-01 00:00:05.123"));
        assertEquals(Optional.of("t_order_0"), algorithm.doSharding(targets(6), "create_time", LocalDate.of(2020, 1, 1)));
    }

    @Test
    void ranges() {
        assertEquals(5, algorithm.doSharding(targets(5), "create_time", ShardingRange.closed("2019-01-01 00:00:00", "2020-01-01 00:00:15")).size());
        assertEquals(List.of("t_order_1", "t_order_2", "t_order_3"),
                algorithm.doSharding(targets(5), "create_time", ShardingRange.closed("2020-01-01 00:00:04", "2020-01-01 00:00:10")));
        assertEquals(targets(4), algorithm.doSharding(targets(4), "create_time", ShardingRange.lessThan("2020-01-01 00:00:11")));
        assertEquals(List.of("t_order_3", "t_order_4", "t_order_5"), algorithm.doSharding(targets(6), "create_time", ShardingRange.greaterThan("2020-01-01 00:00:09")));
    }

    @Test
    void autoTablesAmount() {
        assertEquals(6, algorithm.autoTablesAmount());
        // 2020 has 366 days: 366 + 2
        assertEquals(368, new AutoIntervalShardingAlgorithm(Map.of("datetime-lower", "2020-01-01 00:00:00", "datetime-upper", "2021-01-01 00:00:00", "sharding-seconds", "86400"))
                .autoTablesAmount());
    }

    @Test
    void manyTablesAndMilliseconds() {
        AutoIntervalShardingAlgorithm seconds = new AutoIntervalShardingAlgorithm(
                Map.of("datetime-lower", "2020-01-01 00:00:00", "datetime-upper", "2020-01-01 00:00:30", "sharding-seconds", "1"));
        assertEquals(11, seconds.doSharding(targets(32), "create_time", ShardingRange.closed("2020-01-01 00:00:00", "2020-01-01 00:00:10")).size());
        assertEquals(11, seconds.doSharding(targets(32), "create_time", ShardingRange.closed("2020-01-01 00:00:11.123", "2020-01-01 00:00:21.123")).size());
    }

    @Test
    void slicesRoundToTwoDecimalsBeforeRoundingUpAsShardingSphereDoes() {
        AutoIntervalShardingAlgorithm slices = new AutoIntervalShardingAlgorithm(
                Map.of("datetime-lower", "2020-01-01 00:00:00", "datetime-upper", "2020-01-02 00:00:00", "sharding-seconds", "400"));
        // 1/400 = 0.0025 -> "0.00" -> 0; 3/400 = 0.0075 -> "0.01" -> 1
        assertEquals(0, slices.sliceOf("2020-01-01 00:00:01", "c"));
        assertEquals(1, slices.sliceOf("2020-01-01 00:00:03", "c"));
        // 2/400 = 0.005 exactly, but the double 0.005 is 0.00500000000000000010408..., so DecimalFormat gives "0.01" -> 1
        assertEquals(1, slices.sliceOf("2020-01-01 00:00:02", "c"));
        // 402/400 = 1.005: the double is 1.00499999999999989341..., "1.00" -> 1
        assertEquals(1, slices.sliceOf("2020-01-01 00:06:42", "c"));
        // 404/400 = 1.01 -> 2
        assertEquals(2, slices.sliceOf("2020-01-01 00:06:44", "c"));
    }

    @Test
    void errors() {
        assertEquals("AUTO_INTERVAL sharding algorithm: property 'datetime-lower' is 'invalid'; expected a date-time formatted yyyy-MM-dd HH:mm:ss",
                assertThrows(ShardingAlgorithmException.class, () -> new AutoIntervalShardingAlgorithm(Map.of("datetime-lower", "invalid"))).getMessage());
        assertEquals("AUTO_INTERVAL sharding algorithm: property 'sharding-seconds' is missing; expected a positive number of seconds",
                assertThrows(ShardingAlgorithmException.class,
                        () -> new AutoIntervalShardingAlgorithm(Map.of("datetime-lower", "2020-01-01 00:00:00", "datetime-upper", "2020-01-01 00:00:16"))).getMessage());
        assertEquals("AUTO_INTERVAL sharding algorithm cannot use value '2020/01/01' (java.lang.String) of column 'create_time': expected a date-time formatted yyyy-MM-dd HH:mm:ss",
                assertThrows(ShardingAlgorithmException.class, () -> algorithm.doSharding(targets(6), "create_time", "2020/01/01")).getMessage());
        assertEquals("AUTO_INTERVAL sharding algorithm cannot use value '5' (java.lang.Integer) of column 'create_time': expected a date-time formatted yyyy-MM-dd HH:mm:ss",
                assertThrows(ShardingAlgorithmException.class, () -> algorithm.doSharding(targets(6), "create_time", 5)).getMessage());
    }
}
