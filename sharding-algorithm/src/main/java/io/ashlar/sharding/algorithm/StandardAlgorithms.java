package io.ashlar.sharding.algorithm;

import io.ashlar.sharding.BoundStandardAlgorithm;
import io.ashlar.sharding.ShardingRange;
import io.ashlar.sharding.ShardingTargets;
import io.ashlar.sharding.StandardShardingAlgorithm;

import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * The unbound {@code doSharding} of the built-in standard algorithms, through a throw-away
 * binding: convenient for tests and tools, too slow for routing (bind once instead).
 */
final class StandardAlgorithms {

    private StandardAlgorithms() {
    }

    static Optional<String> precise(StandardShardingAlgorithm algorithm, List<String> targets, String column, Comparable<?> value) {
        BoundStandardAlgorithm bound = algorithm.bind(column, ShardingTargets.of(targets));
        int index = bound.route(value);
        return index == BoundStandardAlgorithm.NO_TARGET ? Optional.empty() : Optional.of(bound.targets().name(index));
    }

    static Collection<String> range(StandardShardingAlgorithm algorithm, List<String> targets, String column, ShardingRange range) {
        return List.copyOf(algorithm.bind(column, ShardingTargets.of(targets)).routeRange(range).names());
    }

    /** For each suffix number {@code 0..count-1}, the index of the target with that suffix, or -1. */
    static int[] indexBySuffixNumber(ShardingTargets targets, int count) {
        int[] result = new int[count];
        for (int i = 0; i < count; i++) {
            result[i] = targets.indexOfSuffix(String.valueOf(i));
        }
        return result;
    }
}
