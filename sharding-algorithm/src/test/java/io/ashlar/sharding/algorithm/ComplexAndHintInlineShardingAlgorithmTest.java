package io.ashlar.sharding.algorithm;

import io.ashlar.sharding.BoundComplexAlgorithm;
import io.ashlar.sharding.ComplexShardingValues;
import io.ashlar.sharding.ShardingAlgorithmException;
import io.ashlar.sharding.ShardingRange;
import io.ashlar.sharding.ShardingTargets;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class ComplexAndHintInlineShardingAlgorithmTest {

    private static final List<String> COLUMNS = List.of("user_id", "order_id");

    private static final List<String> TARGETS = List.of("t_order_0_0", "t_order_0_1", "t_order_1_0", "t_order_1_1");

    private final ComplexInlineShardingAlgorithm complex = new ComplexInlineShardingAlgorithm(
            Map.of("algorithm-expression", "t_order_${user_id % 2}_${order_id % 2}", "sharding-columns", "user_id, order_id"));

    @Test
    void everyCombinationOfValues() {
        BoundComplexAlgorithm bound = complex.bind(COLUMNS, ShardingTargets.of(TARGETS));
        ComplexShardingValues values = ComplexShardingValues.builder(COLUMNS).values(0, List.of(1, 2)).value(1, 3).build();
        assertEquals(List.of("t_order_0_1", "t_order_1_1"), bound.route(values).names());
        assertEquals(List.of("t_order_1_0"), complex.doSharding(TARGETS, ComplexShardingValues.builder(COLUMNS).value(0, 7L).value(1, "4").build()));
    }

    @Test
    void variablesFollowTheStrategyColumnOrder() {
        BoundComplexAlgorithm bound = complex.bind(List.of("ORDER_ID", "USER_ID"), ShardingTargets.of(TARGETS));
        assertEquals(List.of("t_order_1_0"), bound.route(ComplexShardingValues.builder(List.of("ORDER_ID", "USER_ID")).value(0, 2).value(1, 3).build()).names());
    }

    @Test
    void aColumnWithoutValueOrARangeRoutesEverywhere() {
        BoundComplexAlgorithm bound = complex.bind(COLUMNS, ShardingTargets.of(TARGETS));
        assertEquals(TARGETS, bound.route(ComplexShardingValues.builder(COLUMNS).value(0, 1).build()).names());
        assertEquals(TARGETS, bound.route(ComplexShardingValues.builder(COLUMNS).value(0, 1).range(1, ShardingRange.atLeast(5)).build()).names());
    }

    @Test
    void anExplicitFalseRefusesRanges() {
        ComplexInlineShardingAlgorithm refusing = new ComplexInlineShardingAlgorithm(
                Map.of("algorithm-expression", "t_order_${user_id % 2}_${order_id % 2}", "allow-range-query-with-inline-sharding", "false"));
        BoundComplexAlgorithm bound = refusing.bind(COLUMNS, ShardingTargets.of(TARGETS));
        ShardingAlgorithmException e = assertThrows(ShardingAlgorithmException.class,
                () -> bound.route(ComplexShardingValues.builder(COLUMNS).value(0, 1).range(1, ShardingRange.atLeast(5)).build()));
        assertEquals("COMPLEX_INLINE sharding algorithm 't_order_${user_id % 2}_${order_id % 2}' cannot route a range ({user_id=[1], order_id=[5..+inf)}) because"
                + " 'allow-range-query-with-inline-sharding' is false; set it to true to send such statements to every target", e.getMessage());
    }

    @Test
    void complexErrors() {
        assertEquals("COMPLEX_INLINE sharding algorithm: expression 't_order_${user_id % 2}_${order_id % 2}' uses 'order_id' which is not a sharding column of the strategy [user_id]",
                assertThrows(ShardingAlgorithmException.class, () -> complex.bind(List.of("user_id"), ShardingTargets.of(TARGETS))).getMessage());
        assertEquals("COMPLEX_INLINE sharding algorithm: property 'algorithm-expression' is 't_${a % 2}_${b % 2}'; expected an expression of the sharding-columns [a], but it uses 'b'",
                assertThrows(ShardingAlgorithmException.class,
                        () -> new ComplexInlineShardingAlgorithm(Map.of("algorithm-expression", "t_${a % 2}_${b % 2}", "sharding-columns", "a"))).getMessage());
        BoundComplexAlgorithm bound = complex.bind(COLUMNS, ShardingTargets.of(TARGETS));
        assertEquals("COMPLEX_INLINE sharding algorithm cannot use values [x, 1] of columns [user_id, order_id]: cannot evaluate 't_order_${user_id % 2}_${order_id % 2}':"
                + " % needs a number, got 'x' (java.lang.String)",
                assertThrows(ShardingAlgorithmException.class, () -> bound.route(ComplexShardingValues.builder(COLUMNS).value(0, "x").value(1, 1).build())).getMessage());
    }

    @Test
    void hintInlineDefaultsToTheValueItself() {
        HintInlineShardingAlgorithm hint = new HintInlineShardingAlgorithm(Map.of());
        List<String> dataSources = List.of("ds_0", "ds_1");
        assertEquals(List.of("ds_1"), hint.doSharding(dataSources, List.of("ds_1")));
        assertEquals(dataSources, hint.doSharding(dataSources, List.of()));
        assertEquals(List.of(), hint.doSharding(dataSources, List.of("ds_9")));
    }

    @Test
    void hintInlineExpression() {
        HintInlineShardingAlgorithm hint = new HintInlineShardingAlgorithm(Map.of("algorithm-expression", "ds_$->{value % 2}"));
        List<String> dataSources = List.of("ds_0", "ds_1");
        assertEquals(List.of("ds_1"), hint.bind(ShardingTargets.of(dataSources)).route(List.of(3)).names());
        assertEquals(dataSources, hint.bind(ShardingTargets.of(dataSources)).route(List.of(1, 2, 3)).names());
        assertEquals("HINT_INLINE sharding algorithm: property 'algorithm-expression' is 'ds_${user_id % 2}'; expected an expression of the hint 'value', but it uses 'user_id'",
                assertThrows(ShardingAlgorithmException.class, () -> new HintInlineShardingAlgorithm(Map.of("algorithm-expression", "ds_${user_id % 2}"))).getMessage());
    }
}
