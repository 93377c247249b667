package io.ashlar.sharding.algorithm;

import io.ashlar.sharding.AlgorithmProperties;
import io.ashlar.sharding.BoundComplexAlgorithm;
import io.ashlar.sharding.ComplexShardingAlgorithm;
import io.ashlar.sharding.ComplexShardingValues;
import io.ashlar.sharding.ShardingAlgorithmException;
import io.ashlar.sharding.ShardingTargets;
import io.ashlar.sharding.TargetSet;
import io.ashlar.sharding.inline.InlineExpression;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * {@code COMPLEX_INLINE}: the targets named by an inline expression of several sharding columns,
 * e.g. {@code t_order_${user_id % 2}_${order_id % 2}}, evaluated for every combination of the
 * columns' values (the cartesian product of their {@code IN} lists)
 * (<a href="https://shardingsphere.apache.org/document/current/en/user-manual/common-config/builtin-algorithm/sharding/#complex-inline-sharding-algorithm">Complex Inline Sharding Algorithm</a>).
 *
 * <p>Properties: {@code algorithm-expression} (required), {@code sharding-columns} (optional,
 * comma-separated; when given, the expression may use only these) and
 * {@code allow-range-query-with-inline-sharding} (as for INLINE: a range routes to every target
 * unless this is explicitly {@code false}). When the statement gives no value for a column the
 * expression uses, every target is returned (ShardingSphere fails instead).
 */
public final class ComplexInlineShardingAlgorithm implements ComplexShardingAlgorithm {

    private static final String TYPE = "COMPLEX_INLINE";

    private static final String OWNER = "COMPLEX_INLINE sharding algorithm";

    private final InlineExpression expression;

    private final boolean allowRange;

    public ComplexInlineShardingAlgorithm(Map<String, String> props) {
        AlgorithmProperties properties = AlgorithmProperties.of(OWNER, props);
        expression = InlineAlgorithms.compile(properties, "algorithm-expression",
                properties.require("algorithm-expression", "an inline expression such as t_order_${user_id % 2}_${order_id % 2}"));
        allowRange = properties.booleanOrDefault(InlineShardingAlgorithm.ALLOW_RANGE_KEY, true);
        String columns = properties.find("sharding-columns").orElse("");
        if (!columns.isEmpty()) {
            List<String> configured = new ArrayList<>();
            for (String each : columns.split(",")) {
                configured.add(each.trim());
            }
            for (String each : expression.variables()) {
                if (configured.stream().noneMatch(each::equalsIgnoreCase)) {
                    throw properties.invalid("algorithm-expression", expression.source(), "an expression of the sharding-columns " + configured + ", but it uses '" + each + "'");
                }
            }
        }
    }

    @Override
    public String type() {
        return TYPE;
    }

    @Override
    public Collection<String> doSharding(List<String> availableTargets, ComplexShardingValues values) {
        return List.copyOf(bind(values.columns(), ShardingTargets.of(availableTargets)).route(values).names());
    }

    @Override
    public BoundComplexAlgorithm bind(List<String> shardingColumns, ShardingTargets targets) {
        int[] columnOfVariable = new int[expression.variables().size()];
        for (int i = 0; i < columnOfVariable.length; i++) {
            String variable = expression.variables().get(i);
            columnOfVariable[i] = -1;
            for (int c = 0; c < shardingColumns.size(); c++) {
                if (shardingColumns.get(c).equalsIgnoreCase(variable)) {
                    columnOfVariable[i] = c;
                    break;
                }
            }
            if (columnOfVariable[i] < 0) {
                throw new ShardingAlgorithmException(OWNER + ": expression '" + expression.source() + "' uses '" + variable + "' which is not a sharding column of the strategy "
                        + shardingColumns);
            }
        }
        return new BoundComplexAlgorithm() {

            @Override
            public ShardingTargets targets() {
                return targets;
            }

            @Override
            public TargetSet route(ComplexShardingValues values) {
                if (values.hasRange()) {
                    if (!allowRange) {
                        throw new ShardingAlgorithmException(OWNER + " '" + expression.source() + "' cannot route a range (" + values + ") because '"
                                + InlineShardingAlgorithm.ALLOW_RANGE_KEY + "' is false; set it to true to send such statements to every target");
                    }
                    return targets.all();
                }
                List<List<Comparable<?>>> columnValues = new ArrayList<>(columnOfVariable.length);
                for (int column : columnOfVariable) {
                    List<Comparable<?>> each = values.values(column);
                    if (each.isEmpty()) {
                        return targets.all();
                    }
                    columnValues.add(each);
                }
                return evaluateAll(targets, columnValues);
            }

            @Override
            public String toString() {
                return TYPE + " " + expression + " over " + targets;
            }
        };
    }

    /** Evaluates every combination of values, the last variable varying fastest. */
    private TargetSet evaluateAll(ShardingTargets targets, List<List<Comparable<?>>> columnValues) {
        TargetSet.Builder result = targets.newTargetSet();
        int variables = columnValues.size();
        int[] position = new int[variables];
        Object[] arguments = new Object[variables];
        while (true) {
            for (int i = 0; i < variables; i++) {
                arguments[i] = columnValues.get(i).get(position[i]);
            }
            String name;
            try {
                name = expression.evaluate(arguments);
            } catch (ShardingAlgorithmException e) {
                throw new ShardingAlgorithmException(OWNER + " cannot use values " + Arrays.toString(arguments) + " of columns " + expression.variables() + ": "
                        + e.getMessage(), e);
            }
            result.add(targets.indexOf(name));
            int next = variables - 1;
            while (next >= 0 && ++position[next] == columnValues.get(next).size()) {
                position[next] = 0;
                next--;
            }
            if (next < 0) {
                return result.build();
            }
        }
    }
}
