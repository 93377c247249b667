package io.ashlar.sharding.algorithm;

import io.ashlar.sharding.AlgorithmProperties;
import io.ashlar.sharding.BoundStandardAlgorithm;
import io.ashlar.sharding.ShardingAlgorithmException;
import io.ashlar.sharding.ShardingRange;
import io.ashlar.sharding.ShardingTargets;
import io.ashlar.sharding.StandardShardingAlgorithm;
import io.ashlar.sharding.TargetSet;
import io.ashlar.sharding.inline.InlineExpression;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code INLINE}: the target named by an inline expression of the sharding column, e.g.
 * {@code t_order_${order_id % 4}}
 * (<a href="https://shardingsphere.apache.org/document/current/en/user-manual/common-config/builtin-algorithm/sharding/#inline-sharding-algorithm">Inline Sharding Algorithm</a>).
 *
 * <p>Properties: {@code algorithm-expression} (required; may use only the strategy's sharding
 * column, checked when the rule is compiled) and {@code allow-range-query-with-inline-sharding}.
 * An expression cannot be inverted, so a range routes to every target; unlike ShardingSphere,
 * whose default is {@code false}, that is the default here, and only an explicit {@code false}
 * refuses range routing with an error.
 */
public final class InlineShardingAlgorithm implements StandardShardingAlgorithm {

    static final String ALLOW_RANGE_KEY = "allow-range-query-with-inline-sharding";

    private static final String TYPE = "INLINE";

    private static final String OWNER = "INLINE sharding algorithm";

    private final InlineExpression expression;

    private final boolean allowRange;

    public InlineShardingAlgorithm(Map<String, String> props) {
        AlgorithmProperties properties = AlgorithmProperties.of(OWNER, props);
        expression = InlineAlgorithms.compile(properties, "algorithm-expression", properties.require("algorithm-expression", "an inline expression such as t_order_${order_id % 2}"));
        if (expression.variables().size() > 1) {
            throw properties.invalid("algorithm-expression", expression.source(), "an expression of the single sharding column, but it uses " + expression.variables()
                    + " (use COMPLEX_INLINE for several columns)");
        }
        allowRange = properties.booleanOrDefault(ALLOW_RANGE_KEY, true);
    }

    @Override
    public String type() {
        return TYPE;
    }

    /** The compiled {@code algorithm-expression}. */
    public InlineExpression expression() {
        return expression;
    }

    /**
     * Evaluates the expression for one value; the name is returned even when it is not among the
     * available targets, so the caller can report it.
     */
    @Override
    public Optional<String> doSharding(List<String> availableTargets, String columnName, Comparable<?> value) {
        checkColumn(columnName);
        return Optional.of(new InlineTargetLookup(expression, ShardingTargets.of(availableTargets), OWNER, columnName).evaluate(value));
    }

    @Override
    public Collection<String> doSharding(List<String> availableTargets, String columnName, ShardingRange range) {
        checkRange(columnName);
        return List.copyOf(availableTargets);
    }

    @Override
    public BoundStandardAlgorithm bind(String columnName, ShardingTargets targets) {
        checkColumn(columnName);
        InlineTargetLookup lookup = new InlineTargetLookup(expression, targets, OWNER, columnName);
        return new BoundStandardAlgorithm() {

            @Override
            public ShardingTargets targets() {
                return targets;
            }

            @Override
            public int route(Comparable<?> value) {
                return lookup.route(value);
            }

            @Override
            public TargetSet routeRange(ShardingRange range) {
                checkRange(columnName);
                return targets.all();
            }

            @Override
            public String toString() {
                return TYPE + " " + expression + " over " + targets;
            }
        };
    }

    private void checkColumn(String columnName) {
        for (String each : expression.variables()) {
            if (!each.equalsIgnoreCase(columnName)) {
                throw new ShardingAlgorithmException(OWNER + ": expression '" + expression.source() + "' uses '" + each + "' but the sharding column is '" + columnName + "'");
            }
        }
    }

    private void checkRange(String columnName) {
        if (!allowRange) {
            throw new ShardingAlgorithmException(OWNER + " '" + expression.source() + "' cannot route a range of column '" + columnName + "' because '" + ALLOW_RANGE_KEY
                    + "' is false; set it to true to send such statements to every target, or use a range algorithm");
        }
    }
}
