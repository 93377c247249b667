package io.ashlar.sharding.algorithm;

import io.ashlar.sharding.BoundStandardAlgorithm;
import io.ashlar.sharding.ShardingAlgorithmException;
import io.ashlar.sharding.ShardingRange;
import io.ashlar.sharding.ShardingTargets;
import org.junit.jupiter.api.Test;

import java.math.BigInteger;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class InlineShardingAlgorithmTest {

    private static final List<String> TARGETS = List.of("t_order_0", "t_order_1", "t_order_2", "t_order_3");

    private final InlineShardingAlgorithm algorithm = new InlineShardingAlgorithm(Map.of("algorithm-expression", "t_order_${order_id % 4}"));

    @Test
    void routesByTheExpression() {
        BoundStandardAlgorithm bound = algorithm.bind("order_id", ShardingTargets.of(TARGETS));
        assertEquals(2, bound.route(10));
        assertEquals(3, bound.route(11L));
        assertEquals(3, bound.route(BigInteger.valueOf(11)));
        assertEquals(2, bound.route("10"));
        // Groovy's remainder keeps the sign: t_order_-2 is no target
        assertEquals(BoundStandardAlgorithm.NO_TARGET, bound.route(-10));
    }

    @Test
    void theModuloTableAgreesWithEvaluation() {
        ShardingTargets targets = ShardingTargets.of(TARGETS);
        BoundStandardAlgorithm bound = algorithm.bind("order_id", targets);
        for (int i = -1000; i <= 1000; i++) {
            int expected = targets.indexOf(algorithm.expression().evaluate(i));
            assertEquals(expected, bound.route(i), "int " + i);
            assertEquals(expected, bound.route((long) i), "long " + i);
            assertEquals(expected, bound.route(String.valueOf(i)), "text " + i);
        }
    }

    @Test
    void unboundDoShardingReturnsTheComputedNameEvenIfItIsNoTarget() {
        assertEquals(Optional.of("t_order_2"), algorithm.doSharding(TARGETS, "order_id", 6));
        assertEquals(Optional.of("t_order_2"), algorithm.doSharding(List.of("t_order_0", "t_order_1"), "order_id", 6));
    }

    @Test
    void theExpressionMustUseTheShardingColumn() {
        assertEquals("INLINE sharding algorithm: expression 't_order_${order_id % 4}' uses 'order_id' but the sharding column is 'user_id'",
                assertThrows(ShardingAlgorithmException.class, () -> algorithm.bind("user_id", ShardingTargets.of(TARGETS))).getMessage());
        assertEquals(2, algorithm.bind("ORDER_ID", ShardingTargets.of(TARGETS)).route(6));
    }

    @Test
    void rangesRouteEverywhereByDefault() {
        assertEquals(TARGETS, algorithm.doSharding(TARGETS, "order_id", ShardingRange.closed(1, 2)));
        InlineShardingAlgorithm allowed = new InlineShardingAlgorithm(Map.of("algorithm-expression", "t_order_${order_id % 4}", "allow-range-query-with-inline-sharding", "true"));
        assertEquals(TARGETS, allowed.bind("order_id", ShardingTargets.of(TARGETS)).routeRange(ShardingRange.atLeast(3)).names());
    }

    @Test
    void anExplicitFalseRefusesRanges() {
        InlineShardingAlgorithm refusing = new InlineShardingAlgorithm(Map.of("algorithm-expression", "t_order_${order_id % 4}", "allow-range-query-with-inline-sharding", "false"));
        BoundStandardAlgorithm bound = refusing.bind("order_id", ShardingTargets.of(TARGETS));
        assertEquals(1, bound.route(5));
        ShardingAlgorithmException e = assertThrows(ShardingAlgorithmException.class, () -> bound.routeRange(ShardingRange.closed(1, 2)));
        assertEquals("INLINE sharding algorithm 't_order_${order_id % 4}' cannot route a range of column 'order_id' because 'allow-range-query-with-inline-sharding' is false;"
                + " set it to true to send such statements to every target, or use a range algorithm", e.getMessage());
    }

    @Test
    void unusableValue() {
        BoundStandardAlgorithm bound = algorithm.bind("order_id", ShardingTargets.of(TARGETS));
        assertEquals("INLINE sharding algorithm cannot use value 'abc' (java.lang.String) of column 'order_id': cannot evaluate 't_order_${order_id % 4}':"
                + " % needs a number, got 'abc' (java.lang.String)", assertThrows(ShardingAlgorithmException.class, () -> bound.route("abc")).getMessage());
    }

    @Test
    void constantExpression() {
        InlineShardingAlgorithm constant = new InlineShardingAlgorithm(Map.of("algorithm-expression", "ds_0"));
        assertEquals(0, constant.bind("user_id", ShardingTargets.of(List.of("ds_0", "ds_1"))).route(7));
    }

    @Test
    void propertyErrors() {
        assertEquals("INLINE sharding algorithm: property 'algorithm-expression' is missing; expected an inline expression such as t_order_${order_id % 2}",
                assertThrows(ShardingAlgorithmException.class, () -> new InlineShardingAlgorithm(Map.of())).getMessage());
        assertEquals("INLINE sharding algorithm: property 'algorithm-expression': unsupported token '?' at position 6 in expression 't_${a ? 1 : 2}'",
                assertThrows(ShardingAlgorithmException.class, () -> new InlineShardingAlgorithm(Map.of("algorithm-expression", "t_${a ? 1 : 2}"))).getMessage());
        assertEquals("INLINE sharding algorithm: property 'algorithm-expression' is 't_${a % 2}_${b % 2}'; expected an expression of the single sharding column, but it uses [a, b]"
                + " (use COMPLEX_INLINE for several columns)",
                assertThrows(ShardingAlgorithmException.class, () -> new InlineShardingAlgorithm(Map.of("algorithm-expression", "t_${a % 2}_${b % 2}"))).getMessage());
        assertEquals("INLINE sharding algorithm: property 'allow-range-query-with-inline-sharding' is 'no'; expected true or false",
                assertThrows(ShardingAlgorithmException.class,
                        () -> new InlineShardingAlgorithm(Map.of("algorithm-expression", "t_${a % 2}", "allow-range-query-with-inline-sharding", "no"))).getMessage());
    }
}
