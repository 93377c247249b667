package io.ashlar.sharding.algorithm;

import io.ashlar.sharding.AlgorithmProperties;
import io.ashlar.sharding.AutoTableAlgorithm;
import io.ashlar.sharding.BoundStandardAlgorithm;
import io.ashlar.sharding.ShardingRange;
import io.ashlar.sharding.ShardingTargets;
import io.ashlar.sharding.StandardShardingAlgorithm;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code BOUNDARY_RANGE}: partitions split at the listed boundaries
 * (<a href="https://shardingsphere.apache.org/document/current/en/user-manual/common-config/builtin-algorithm/sharding/#boundary-based-range-sharding-algorithm">Boundary Based Range Sharding Algorithm</a>).
 * With {@code sharding-ranges: 1,5,10}: suffix 0 holds values below 1, 1 holds [1, 5), 2 holds
 * [5, 10) and 3 holds 10 and above.
 *
 * <p>Property: {@code sharding-ranges} (required, comma-separated integers, sorted here as
 * ShardingSphere sorts them; a repeated boundary leaves an empty partition, as there). Unlike
 * ShardingSphere, which silently drops an entry that is not an integer, such an entry is an error.
 */
public final class BoundaryRangeShardingAlgorithm implements StandardShardingAlgorithm, AutoTableAlgorithm {

    private static final String TYPE = "BOUNDARY_RANGE";

    private static final String OWNER = "BOUNDARY_RANGE sharding algorithm";

    private static final String KEY = "sharding-ranges";

    private static final String EXPECTED = "comma-separated integers such as 1,5,10";

    private final RangePartitions partitions;

    public BoundaryRangeShardingAlgorithm(Map<String, String> props) {
        AlgorithmProperties properties = AlgorithmProperties.of(OWNER, props);
        String ranges = properties.require(KEY, EXPECTED);
        List<Long> boundaries = new ArrayList<>();
        for (String each : ranges.split(",")) {
            String entry = each.trim();
            if (entry.isEmpty()) {
                continue;
            }
            try {
                boundaries.add(Long.parseLong(entry));
            } catch (NumberFormatException e) {
                throw properties.invalid(KEY, ranges, EXPECTED + " ('" + entry + "' is not an integer)");
            }
        }
        if (boundaries.isEmpty()) {
            throw properties.invalid(KEY, ranges, EXPECTED);
        }
        long[] sorted = new long[boundaries.size()];
        for (int i = 0; i < sorted.length; i++) {
            sorted[i] = boundaries.get(i);
        }
        Arrays.sort(sorted);
        partitions = new RangePartitions(TYPE, OWNER, sorted);
    }

    @Override
    public String type() {
        return TYPE;
    }

    @Override
    public int autoTablesAmount() {
        return partitions.count();
    }

    @Override
    public Optional<String> doSharding(List<String> availableTargets, String columnName, Comparable<?> value) {
        return StandardAlgorithms.precise(this, availableTargets, columnName, value);
    }

    @Override
    public Collection<String> doSharding(List<String> availableTargets, String columnName, ShardingRange range) {
        return StandardAlgorithms.range(this, availableTargets, columnName, range);
    }

    @Override
    public BoundStandardAlgorithm bind(String columnName, ShardingTargets targets) {
        return partitions.bind(columnName, targets);
    }
}
