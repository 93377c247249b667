package io.ashlar.sharding.algorithm;

import io.ashlar.sharding.AlgorithmProperties;
import io.ashlar.sharding.BoundHintAlgorithm;
import io.ashlar.sharding.HintShardingAlgorithm;
import io.ashlar.sharding.ShardingTargets;
import io.ashlar.sharding.TargetSet;
import io.ashlar.sharding.inline.InlineExpression;

import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * {@code HINT_INLINE}: the targets named by an inline expression of each hint value, whose
 * variable is {@code value}; with no hint value, every target
 * (<a href="https://shardingsphere.apache.org/document/current/en/user-manual/common-config/builtin-algorithm/sharding/#hint-inline-sharding-algorithm">Hint Inline Sharding Algorithm</a>).
 *
 * <p>Property: {@code algorithm-expression} (default {@code ${value}}). Computed names that are
 * not targets are dropped.
 */
public final class HintInlineShardingAlgorithm implements HintShardingAlgorithm {

    private static final String TYPE = "HINT_INLINE";

    private static final String OWNER = "HINT_INLINE sharding algorithm";

    private static final String VARIABLE = "value";

    private final InlineExpression expression;

    public HintInlineShardingAlgorithm(Map<String, String> props) {
        AlgorithmProperties properties = AlgorithmProperties.of(OWNER, props);
        expression = InlineAlgorithms.compile(properties, "algorithm-expression", properties.find("algorithm-expression").orElse("${value}"));
        for (String each : expression.variables()) {
            if (!VARIABLE.equals(each)) {
                throw properties.invalid("algorithm-expression", expression.source(), "an expression of the hint '" + VARIABLE + "', but it uses '" + each + "'");
            }
        }
    }

    @Override
    public String type() {
        return TYPE;
    }

    @Override
    public Collection<String> doSharding(List<String> availableTargets, List<Comparable<?>> hintValues) {
        return List.copyOf(bind(ShardingTargets.of(availableTargets)).route(hintValues).names());
    }

    @Override
    public BoundHintAlgorithm bind(ShardingTargets targets) {
        InlineTargetLookup lookup = new InlineTargetLookup(expression, targets, OWNER, VARIABLE);
        return new BoundHintAlgorithm() {

            @Override
            public ShardingTargets targets() {
                return targets;
            }

            @Override
            public TargetSet route(List<? extends Comparable<?>> hintValues) {
                if (hintValues.isEmpty()) {
                    return targets.all();
                }
                TargetSet.Builder result = targets.newTargetSet();
                for (Comparable<?> each : hintValues) {
                    result.add(lookup.route(each));
                }
                return result.build();
            }

            @Override
            public String toString() {
                return TYPE + " " + expression + " over " + targets;
            }
        };
    }
}
