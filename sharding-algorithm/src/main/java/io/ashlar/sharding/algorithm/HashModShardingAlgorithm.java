package io.ashlar.sharding.algorithm;

import io.ashlar.sharding.AlgorithmProperties;
import io.ashlar.sharding.AutoTableAlgorithm;
import io.ashlar.sharding.BoundStandardAlgorithm;
import io.ashlar.sharding.ShardingRange;
import io.ashlar.sharding.ShardingTargets;
import io.ashlar.sharding.StandardShardingAlgorithm;
import io.ashlar.sharding.TargetSet;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code HASH_MOD}: the target whose suffix is {@code Math.abs((long) value.hashCode()) %
 * sharding-count}, exactly ShardingSphere's formula
 * (<a href="https://shardingsphere.apache.org/document/current/en/user-manual/common-config/builtin-algorithm/sharding/#hash-modulo-sharding-algorithm">Hash Modulo Sharding Algorithm</a>).
 *
 * <p>The hash is the Java {@code hashCode()} of the value <em>as passed</em>, so the value's Java
 * type decides the target: Integer 7 and Long 7 agree, but Integer -1 hashes to -1 and Long -1 to
 * 0, and the String "7" hashes to 55. ShardingSphere passes an integer literal as Integer when it
 * fits in 32 bits, as Long when it fits in 64, else as BigInteger, and text as String; the router
 * must type values the same way for rows to land where ShardingSphere put them. A range routes to
 * every target.
 *
 * <p>Property: {@code sharding-count} (required, positive).
 */
public final class HashModShardingAlgorithm implements StandardShardingAlgorithm, AutoTableAlgorithm {

    private static final String TYPE = "HASH_MOD";

    private final int shardingCount;

    public HashModShardingAlgorithm(Map<String, String> props) {
        shardingCount = AlgorithmProperties.of("HASH_MOD sharding algorithm", props).requireInt("sharding-count", 1, Integer.MAX_VALUE, "a positive integer");
    }

    @Override
    public String type() {
        return TYPE;
    }

    @Override
    public int autoTablesAmount() {
        return shardingCount;
    }

    /** The suffix number a value hashes to, in {@code [0, sharding-count)}. */
    public int suffixOf(Object value) {
        return (int) (Math.abs((long) value.hashCode()) % shardingCount);
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
        int[] indexBySuffix = StandardAlgorithms.indexBySuffixNumber(targets, shardingCount);
        return new BoundStandardAlgorithm() {

            @Override
            public ShardingTargets targets() {
                return targets;
            }

            @Override
            public int route(Comparable<?> value) {
                return indexBySuffix[suffixOf(value)];
            }

            @Override
            public TargetSet routeRange(ShardingRange range) {
                return targets.all();
            }

            @Override
            public String toString() {
                return TYPE + "(" + shardingCount + ") on " + columnName + " over " + targets;
            }
        };
    }
}
