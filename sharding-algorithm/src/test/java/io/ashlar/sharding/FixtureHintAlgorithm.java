package io.ashlar.sharding;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/** A user's CLASS_BASED hint algorithm: the hint values are the target names. */
public final class FixtureHintAlgorithm implements HintShardingAlgorithm {

    @Override
    public Collection<String> doSharding(List<String> availableTargets, List<Comparable<?>> hintValues) {
        List<String> result = new ArrayList<>();
        for (Comparable<?> each : hintValues) {
            result.add(each.toString());
        }
        return result;
    }
}
