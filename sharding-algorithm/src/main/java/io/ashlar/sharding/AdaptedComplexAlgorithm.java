package io.ashlar.sharding;

import java.util.Collection;

/** Binds a user's {@link ComplexShardingAlgorithm} by calling its {@code doSharding}. */
final class AdaptedComplexAlgorithm implements BoundComplexAlgorithm {

    private final ComplexShardingAlgorithm algorithm;

    private final ShardingTargets targets;

    AdaptedComplexAlgorithm(ComplexShardingAlgorithm algorithm, ShardingTargets targets) {
        this.algorithm = algorithm;
        this.targets = targets;
    }

    @Override
    public ShardingTargets targets() {
        return targets;
    }

    @Override
    public TargetSet route(ComplexShardingValues values) {
        Collection<String> result = algorithm.doSharding(targets.names(), values);
        return result == null ? targets.none() : targets.setOf(result);
    }
}
