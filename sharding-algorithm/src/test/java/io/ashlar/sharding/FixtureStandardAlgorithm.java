package io.ashlar.sharding;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Properties;

/** A user's CLASS_BASED standard algorithm: {@code t_<value mod table-count>}. */
public final class FixtureStandardAlgorithm implements StandardShardingAlgorithm {

    private int tableCount;

    @Override
    public void init(Properties props) {
        tableCount = Integer.parseInt(props.getProperty("table-count", "2"));
    }

    int tableCount() {
        return tableCount;
    }

    @Override
    public Optional<String> doSharding(List<String> availableTargets, String columnName, Comparable<?> value) {
        return Optional.of("t_" + ((Number) value).intValue() % tableCount);
    }

    @Override
    public Collection<String> doSharding(List<String> availableTargets, String columnName, ShardingRange range) {
        List<String> result = new ArrayList<>();
        for (int i = ((Number) range.lowerEndpoint()).intValue(); i <= ((Number) range.upperEndpoint()).intValue(); i++) {
            result.add("t_" + i % tableCount);
        }
        return result;
    }
}
