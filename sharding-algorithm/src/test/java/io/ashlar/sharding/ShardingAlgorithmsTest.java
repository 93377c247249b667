package io.ashlar.sharding;

import io.ashlar.sharding.algorithm.ModShardingAlgorithm;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

class ShardingAlgorithmsTest {

    @Test
    void theConfigurationOfTheBriefLoads() {
        ShardingAlgorithm databaseInline = ShardingAlgorithms.create("INLINE", Map.of("algorithm-expression", "ds_${user_id % 2}"));
        ShardingAlgorithm tableMod = ShardingAlgorithms.create("MOD", Map.of("sharding-count", "4"));
        assertEquals(1, route(databaseInline, "user_id", List.of("ds_0", "ds_1"), 7));
        assertEquals(3, route(tableMod, "order_id", List.of("t_order_0", "t_order_1", "t_order_2", "t_order_3"), 7L));
        assertInstanceOf(ModShardingAlgorithm.class, ShardingAlgorithms.create(" mod ", Map.of("sharding-count", "4")));
    }

    private static int route(ShardingAlgorithm algorithm, String column, List<String> targets, Comparable<?> value) {
        return switch (algorithm) {
            case StandardShardingAlgorithm standard -> standard.bind(column, ShardingTargets.of(targets)).route(value);
            case ComplexShardingAlgorithm complex -> throw new AssertionError("complex: " + complex.type());
            case HintShardingAlgorithm hint -> throw new AssertionError("hint: " + hint.type());
        };
    }

    @Test
    void everyTypeIsCreated() {
        Map<String, Map<String, String>> props = Map.of(
                "MOD", Map.of("sharding-count", "2"),
                "HASH_MOD", Map.of("sharding-count", "2"),
                "INLINE", Map.of("algorithm-expression", "t_${id % 2}"),
                "VOLUME_RANGE", Map.of("range-lower", "0", "range-upper", "10", "sharding-volume", "5"),
                "BOUNDARY_RANGE", Map.of("sharding-ranges", "5"),
                "AUTO_INTERVAL", Map.of("datetime-lower", "2020-01-01 00:00:00", "datetime-upper", "2020-01-02 00:00:00", "sharding-seconds", "3600"),
                "INTERVAL", Map.of("datetime-pattern", "yyyy-MM-dd", "datetime-lower", "2020-01-01", "datetime-upper", "2020-12-31", "sharding-suffix-pattern", "yyyyMM",
                        "datetime-interval-unit", "MONTHS"),
                "COMPLEX_INLINE", Map.of("algorithm-expression", "t_${a % 2}_${b % 2}"),
                "HINT_INLINE", Map.of(),
                "CLASS_BASED", Map.of("strategy", "standard", "algorithmClassName", FixtureStandardAlgorithm.class.getName()));
        for (String each : ShardingAlgorithms.TYPES) {
            ShardingAlgorithm algorithm = ShardingAlgorithms.create(each, props.get(each));
            assertEquals(each, algorithm.type());
        }
    }

    @Test
    void unknownType() {
        assertEquals("unknown sharding algorithm type 'COSID_MOD'; supported types are MOD, HASH_MOD, INLINE, VOLUME_RANGE, BOUNDARY_RANGE, AUTO_INTERVAL, INTERVAL,"
                + " COMPLEX_INLINE, HINT_INLINE, CLASS_BASED", assertThrows(ShardingAlgorithmException.class, () -> ShardingAlgorithms.create("COSID_MOD", Map.of())).getMessage());
    }

    @Test
    void nullAndBlankValuesCountAsMissing() {
        Map<String, String> props = new HashMap<>();
        props.put("sharding-count", null);
        assertEquals("MOD sharding algorithm: property 'sharding-count' is missing; expected a positive integer",
                assertThrows(ShardingAlgorithmException.class, () -> ShardingAlgorithms.create("MOD", props)).getMessage());
        assertEquals("HASH_MOD sharding algorithm: property 'sharding-count' is missing; expected a positive integer",
                assertThrows(ShardingAlgorithmException.class, () -> ShardingAlgorithms.create("HASH_MOD", Map.of("sharding-count", "  "))).getMessage());
        assertEquals(4, ((ModShardingAlgorithm) ShardingAlgorithms.create("MOD", Map.of("sharding-count", " 4 "))).autoTablesAmount());
    }

    @Test
    void classBasedStandardIsInitialisedWithAllProperties() {
        ShardingAlgorithm algorithm = ShardingAlgorithms.create("CLASS_BASED",
                Map.of("strategy", "STANDARD", "algorithmClassName", FixtureStandardAlgorithm.class.getName(), "table-count", "3"));
        FixtureStandardAlgorithm fixture = assertInstanceOf(FixtureStandardAlgorithm.class, algorithm);
        assertEquals(3, fixture.tableCount());
        BoundStandardAlgorithm bound = fixture.bind("id", ShardingTargets.of(List.of("t_0", "t_1", "t_2")));
        assertEquals(2, bound.route(5));
        assertEquals(List.of("t_1", "t_2"), bound.routeRange(ShardingRange.closed(1, 2)).names());
    }

    @Test
    void classBasedComplexAndHint() {
        ShardingAlgorithm complex = ShardingAlgorithms.create("CLASS_BASED", Map.of("strategy", "COMPLEX", "algorithmClassName", FixtureComplexAlgorithm.class.getName()));
        List<String> columns = List.of("a", "b");
        TargetSet routed = ((ComplexShardingAlgorithm) complex).bind(columns, ShardingTargets.of(List.of("t_0", "t_1", "t_2")))
                .route(ComplexShardingValues.builder(columns).value(0, 1).value(1, 1).build());
        assertEquals(List.of("t_2"), routed.names());
        ShardingAlgorithm hint = ShardingAlgorithms.create("CLASS_BASED", Map.of("strategy", "hint", "algorithmClassName", FixtureHintAlgorithm.class.getName()));
        assertEquals(List.of("ds_1"), ((HintShardingAlgorithm) hint).bind(ShardingTargets.of(List.of("ds_0", "ds_1"))).route(List.of("ds_1", "nowhere")).names());
    }

    @Test
    void classBasedErrors() {
        assertEquals("CLASS_BASED sharding algorithm: property 'strategy' is missing; expected STANDARD, COMPLEX or HINT",
                assertThrows(ShardingAlgorithmException.class, () -> ShardingAlgorithms.create("CLASS_BASED", Map.of("algorithmClassName", "x.Y"))).getMessage());
        assertEquals("CLASS_BASED sharding algorithm: property 'strategy' is 'RANGE'; expected STANDARD, COMPLEX or HINT",
                assertThrows(ShardingAlgorithmException.class, () -> ShardingAlgorithms.create("CLASS_BASED", Map.of("strategy", "RANGE"))).getMessage());
        assertEquals("CLASS_BASED sharding algorithm: property 'algorithmClassName' is missing; expected the name of a class implementing io.ashlar.sharding.StandardShardingAlgorithm",
                assertThrows(ShardingAlgorithmException.class, () -> ShardingAlgorithms.create("CLASS_BASED", Map.of("strategy", "STANDARD"))).getMessage());
        assertEquals("CLASS_BASED sharding algorithm: property 'algorithmClassName' is 'com.example.Missing'; expected a class on the proxy's classpath (not found)",
                assertThrows(ShardingAlgorithmException.class,
                        () -> ShardingAlgorithms.create("CLASS_BASED", Map.of("strategy", "STANDARD", "algorithmClassName", "com.example.Missing"))).getMessage());
        assertEquals("CLASS_BASED sharding algorithm: property 'algorithmClassName' is '" + FixtureStandardAlgorithm.class.getName()
                + "'; expected a class implementing io.ashlar.sharding.ComplexShardingAlgorithm for strategy COMPLEX",
                assertThrows(ShardingAlgorithmException.class,
                        () -> ShardingAlgorithms.create("CLASS_BASED", Map.of("strategy", "COMPLEX", "algorithmClassName", FixtureStandardAlgorithm.class.getName()))).getMessage());
        assertEquals("CLASS_BASED sharding algorithm: class '" + FixtureWithoutDefaultConstructor.class.getName() + "' needs a public no-argument constructor",
                assertThrows(ShardingAlgorithmException.class, () -> ShardingAlgorithms.create("CLASS_BASED",
                        Map.of("strategy", "STANDARD", "algorithmClassName", FixtureWithoutDefaultConstructor.class.getName()))).getMessage());
        assertEquals("CLASS_BASED sharding algorithm: init(Properties) of '" + FixtureStandardAlgorithm.class.getName()
                + "' failed: java.lang.NumberFormatException: For input string: \"x\"",
                assertThrows(ShardingAlgorithmException.class, () -> ShardingAlgorithms.create("CLASS_BASED",
                        Map.of("strategy", "STANDARD", "algorithmClassName", FixtureStandardAlgorithm.class.getName(), "table-count", "x"))).getMessage());
    }
}
