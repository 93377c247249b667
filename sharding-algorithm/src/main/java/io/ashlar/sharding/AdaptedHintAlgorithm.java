package io.ashlar.sharding;

import java.util.Collection;
import java.util.List;

/** Binds a user's {@link HintShardingAlgorithm} by calling its {@code doSharding}. */
final class AdaptedHintAlgorithm implements BoundHintAlgorithm {

    private final HintShardingAlgorithm algorithm;

    private final ShardingTargets targets;

    AdaptedHintAlgorithm(HintShardingAlgorithm algorithm, ShardingTargets targets) {
        this.algorithm = algorithm;
        this.targets = targets;
    }

    @Override
    public ShardingTargets targets() {
        return targets;
    }

    @Override
    public TargetSet route(List<? extends Comparable<?>> hintValues) {
        Collection<String> result = algorithm.doSharding(targets.names(), List.copyOf(hintValues));
        return result == null ? targets.none() : targets.setOf(result);
    }
}
