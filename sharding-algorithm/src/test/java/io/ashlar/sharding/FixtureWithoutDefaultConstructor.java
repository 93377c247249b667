package io.ashlar.sharding;

import java.util.Collection;
import java.util.List;
import java.util.Optional;

/** A CLASS_BASED algorithm that cannot be instantiated by name. */
public final class FixtureWithoutDefaultConstructor implements StandardShardingAlgorithm {

    public FixtureWithoutDefaultConstructor(int unused) {
    }

    @Override
    public Optional<String> doSharding(List<String> availableTargets, String columnName, Comparable<?> value) {
        return Optional.empty();
    }

    @Override
    public Collection<String> doSharding(List<String> availableTargets, String columnName, ShardingRange range) {
        return availableTargets;
    }
}
