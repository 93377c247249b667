package io.ashlar.sharding;

import io.ashlar.sharding.algorithm.AutoIntervalShardingAlgorithm;
import io.ashlar.sharding.algorithm.BoundaryRangeShardingAlgorithm;
import io.ashlar.sharding.algorithm.ClassBasedAlgorithmLoader;
import io.ashlar.sharding.algorithm.ComplexInlineShardingAlgorithm;
import io.ashlar.sharding.algorithm.HashModShardingAlgorithm;
import io.ashlar.sharding.algorithm.HintInlineShardingAlgorithm;
import io.ashlar.sharding.algorithm.InlineShardingAlgorithm;
import io.ashlar.sharding.algorithm.IntervalShardingAlgorithm;
import io.ashlar.sharding.algorithm.ModShardingAlgorithm;
import io.ashlar.sharding.algorithm.VolumeRangeShardingAlgorithm;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Builds the algorithm of one {@code shardingAlgorithms} entry from its {@code type} and
 * {@code props}, with ShardingSphere's type names and property names
 * (<a href="https://shardingsphere.apache.org/document/current/en/user-manual/common-config/builtin-algorithm/sharding/">Sharding Algorithm</a>).
 * All properties are read and checked here, once; the returned algorithm is immutable.
 */
public final class ShardingAlgorithms {

    /** The supported type names. */
    public static final List<String> TYPES = List.of("MOD", "HASH_MOD", "INLINE", "VOLUME_RANGE", "BOUNDARY_RANGE", "AUTO_INTERVAL", "INTERVAL", "COMPLEX_INLINE",
            "HINT_INLINE", "CLASS_BASED");

    private ShardingAlgorithms() {
    }

    /**
     * Creates an algorithm.
     *
     * @param type the type name, any case
     * @param props the properties (values may be {@code null}, which counts as missing)
     * @throws ShardingAlgorithmException for an unknown type, or a missing or bad property,
     *         naming the type, the property and what was expected
     */
    public static ShardingAlgorithm create(String type, Map<String, String> props) {
        return switch (type.trim().toUpperCase(Locale.ROOT)) {
            case "MOD" -> new ModShardingAlgorithm(props);
            case "HASH_MOD" -> new HashModShardingAlgorithm(props);
            case "INLINE" -> new InlineShardingAlgorithm(props);
            case "VOLUME_RANGE" -> new VolumeRangeShardingAlgorithm(props);
            case "BOUNDARY_RANGE" -> new BoundaryRangeShardingAlgorithm(props);
            case "AUTO_INTERVAL" -> new AutoIntervalShardingAlgorithm(props);
            case "INTERVAL" -> new IntervalShardingAlgorithm(props);
            case "COMPLEX_INLINE" -> new ComplexInlineShardingAlgorithm(props);
            case "HINT_INLINE" -> new HintInlineShardingAlgorithm(props);
            case "CLASS_BASED" -> ClassBasedAlgorithmLoader.load(props);
            default -> throw new ShardingAlgorithmException("unknown sharding algorithm type '" + type + "'; supported types are " + String.join(", ", TYPES));
        };
    }
}
