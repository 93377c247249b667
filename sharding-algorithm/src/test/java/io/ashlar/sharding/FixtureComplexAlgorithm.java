package io.ashlar.sharding;

import java.util.Collection;
import java.util.List;

/** A user's CLASS_BASED complex algorithm: {@code t_<a + b>}. */
public final class FixtureComplexAlgorithm implements ComplexShardingAlgorithm {

    @Override
    public Collection<String> doSharding(List<String> availableTargets, ComplexShardingValues values) {
        int sum = ((Number) values.values("a").get(0)).intValue() + ((Number) values.values("B").get(0)).intValue();
        return List.of("t_" + sum);
    }
}
