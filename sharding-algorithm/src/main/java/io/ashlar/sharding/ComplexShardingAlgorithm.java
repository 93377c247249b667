package io.ashlar.sharding;

import java.util.Collection;
import java.util.List;

/**
 * An algorithm for a {@code complex} sharding strategy: several sharding columns routed together
 * (ShardingSphere's {@code ComplexKeysShardingAlgorithm}).
 *
 * <h2>Writing your own ({@code CLASS_BASED}, {@code strategy: COMPLEX})</h2>
 * Implement {@link #doSharding} in a public class with a public no-argument constructor and
 * configure {@code type: CLASS_BASED} with {@code props: {strategy: COMPLEX, algorithmClassName:
 * com.example.MyAlgorithm}}. {@link #init} is called once with all properties; {@code doSharding}
 * may be called by many threads at once. Return names taken from {@code availableTargets}
 * (returning all of them is always correct).
 */
public non-sealed interface ComplexShardingAlgorithm extends ShardingAlgorithm {

    /**
     * Routes the values of one statement.
     *
     * @throws ShardingAlgorithmException if the values cannot be used by this algorithm
     */
    Collection<String> doSharding(List<String> availableTargets, ComplexShardingValues values);

    /**
     * Prepares routing over fixed targets; called when the rule is compiled.
     *
     * @param shardingColumns the strategy's sharding columns, in the order of
     *        {@link ComplexShardingValues#columns()}
     * @throws ShardingAlgorithmException if the algorithm cannot route these columns
     */
    default BoundComplexAlgorithm bind(List<String> shardingColumns, ShardingTargets targets) {
        return new AdaptedComplexAlgorithm(this, targets);
    }
}
