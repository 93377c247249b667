package io.ashlar.sharding.algorithm;

import io.ashlar.sharding.AlgorithmProperties;
import io.ashlar.sharding.AutoTableAlgorithm;
import io.ashlar.sharding.BoundStandardAlgorithm;
import io.ashlar.sharding.ShardingRange;
import io.ashlar.sharding.ShardingTargets;
import io.ashlar.sharding.StandardShardingAlgorithm;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code VOLUME_RANGE}: partitions of {@code sharding-volume} consecutive values between
 * {@code range-lower} and {@code range-upper}, plus one partition below and one at or above
 * (<a href="https://shardingsphere.apache.org/document/current/en/user-manual/common-config/builtin-algorithm/sharding/#volume-based-range-sharding-algorithm">Volume Based Range Sharding Algorithm</a>).
 * With lower 0, upper 100 and volume 30: suffix 0 holds values below 0, 1 holds [0, 30), 2 holds
 * [30, 60), 3 holds [60, 90), 4 holds [90, 100) and 5 holds 100 and above.
 *
 * <p>Properties: {@code range-lower}, {@code range-upper}, {@code sharding-volume} (all required
 * integers; the volume positive and not larger than the range). A range of values routes to the
 * partitions from its lower end's to its upper end's.
 */
public final class VolumeRangeShardingAlgorithm implements StandardShardingAlgorithm, AutoTableAlgorithm {

    private static final String TYPE = "VOLUME_RANGE";

    private static final String OWNER = "VOLUME_RANGE sharding algorithm";

    private final RangePartitions partitions;

    public VolumeRangeShardingAlgorithm(Map<String, String> props) {
        AlgorithmProperties properties = AlgorithmProperties.of(OWNER, props);
        long lower = properties.requireLong("range-lower", "an integer");
        long upper = properties.requireLong("range-upper", "an integer");
        long volume = properties.requireLong("sharding-volume", "a positive integer");
        if (volume <= 0) {
            throw properties.invalid("sharding-volume", String.valueOf(volume), "a positive integer");
        }
        if (upper <= lower || upper - lower < 0 || upper - lower < volume) {
            throw properties.invalid("range-upper", String.valueOf(upper), "a value at least sharding-volume (" + volume + ") above range-lower (" + lower + ")");
        }
        long partitionCount = (upper - lower + volume - 1) / volume;
        if (partitionCount > 1_000_000) {
            throw properties.invalid("sharding-volume", String.valueOf(volume), "a volume giving at most 1000000 partitions, not " + partitionCount);
        }
        long[] boundaries = new long[(int) partitionCount + 1];
        for (int i = 0; i < partitionCount; i++) {
            boundaries[i] = lower + i * volume;
        }
        boundaries[(int) partitionCount] = upper;
        partitions = new RangePartitions(TYPE, OWNER, boundaries);
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
