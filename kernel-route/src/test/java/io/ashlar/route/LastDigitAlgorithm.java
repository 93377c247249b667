package io.ashlar.route;

import io.ashlar.sharding.ShardingRange;
import io.ashlar.sharding.StandardShardingAlgorithm;

import java.util.Collection;
import java.util.List;
import java.util.Optional;

/** A user's CLASS_BASED standard algorithm for the tests: the target whose name ends with the value's last digit. */
public final class LastDigitAlgorithm implements StandardShardingAlgorithm {

    @Override
    public Optional<String> doSharding(List<String> availableTargets, String columnName, Comparable<?> value) {
        String text = value.toString();
        char last = text.charAt(text.length() - 1);
        for (String each : availableTargets) {
            if (each.charAt(each.length() - 1) == last) {
                return Optional.of(each);
            }
        }
        return Optional.empty();
    }

    @Override
    public Collection<String> doSharding(List<String> availableTargets, String columnName, ShardingRange range) {
        return availableTargets;
    }
}
