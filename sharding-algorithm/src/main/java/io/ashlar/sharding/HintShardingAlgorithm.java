package io.ashlar.sharding;

import java.util.Collection;
import java.util.List;

/**
 * An algorithm for a {@code hint} sharding strategy: routes by values the client supplies out of
 * band (ShardingSphere's {@code HintShardingAlgorithm}, e.g. a {@code SHARDINGSPHERE_HINT} SQL
 * comment) rather than by a column of the statement.
 *
 * <h2>Writing your own ({@code CLASS_BASED}, {@code strategy: HINT})</h2>
 * Implement {@link #doSharding} in a public class with a public no-argument constructor and
 * configure {@code type: CLASS_BASED} with {@code props: {strategy: HINT, algorithmClassName:
 * com.example.MyAlgorithm}}. {@link #init} is called once with all properties; {@code doSharding}
 * may be called by many threads at once.
 */
public non-sealed interface HintShardingAlgorithm extends ShardingAlgorithm {

    /**
     * Routes the hint values of one statement.
     *
     * @param hintValues the values; empty when the client gave none
     * @throws ShardingAlgorithmException if a value cannot be used by this algorithm
     */
    Collection<String> doSharding(List<String> availableTargets, List<Comparable<?>> hintValues);

    /** Prepares routing over fixed targets; called when the rule is compiled. */
    default BoundHintAlgorithm bind(ShardingTargets targets) {
        return new AdaptedHintAlgorithm(this, targets);
    }
}
