package io.ashlar.sharding;

import java.util.Collection;
import java.util.Optional;

/** Binds a user's {@link StandardShardingAlgorithm} by calling its {@code doSharding} methods. */
final class AdaptedStandardAlgorithm implements BoundStandardAlgorithm {

    private final StandardShardingAlgorithm algorithm;

    private final String columnName;

    private final ShardingTargets targets;

    AdaptedStandardAlgorithm(StandardShardingAlgorithm algorithm, String columnName, ShardingTargets targets) {
        this.algorithm = algorithm;
        this.columnName = columnName;
        this.targets = targets;
    }

    @Override
    public ShardingTargets targets() {
        return targets;
    }

    @Override
    public int route(Comparable<?> value) {
        Optional<String> result = algorithm.doSharding(targets.names(), columnName, value);
        return result == null || result.isEmpty() ? NO_TARGET : targets.indexOf(result.get());
    }

    @Override
    public TargetSet routeRange(ShardingRange range) {
        Collection<String> result = algorithm.doSharding(targets.names(), columnName, range);
        return result == null ? targets.none() : targets.setOf(result);
    }

    @Override
    public String toString() {
        return algorithm.type() + " " + algorithm.getClass().getName() + " on " + columnName + " over " + targets;
    }
}
