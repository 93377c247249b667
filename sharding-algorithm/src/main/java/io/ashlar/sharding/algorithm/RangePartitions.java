package io.ashlar.sharding.algorithm;

import io.ashlar.sharding.BoundStandardAlgorithm;
import io.ashlar.sharding.ShardingRange;
import io.ashlar.sharding.ShardingTargets;
import io.ashlar.sharding.TargetSet;

import java.util.Arrays;

/**
 * Consecutive integer partitions split at sorted boundaries {@code b0 <= b1 <= ... <= bn-1}:
 * partition 0 is {@code (-inf, b0)}, partition i is {@code [bi-1, bi)}, partition n is
 * {@code [bn-1, +inf)}; a value's partition is the number of boundaries at or below it. This is
 * ShardingSphere's {@code AbstractRangeShardingAlgorithm} partition map, searched by bisection.
 * Partition {@code p} routes to the target with suffix {@code p}.
 */
final class RangePartitions {

    private final String type;

    private final String owner;

    private final long[] boundaries;

    RangePartitions(String type, String owner, long[] boundaries) {
        this.type = type;
        this.owner = owner;
        this.boundaries = boundaries.clone();
    }

    /** The number of partitions (boundaries + 1). */
    int count() {
        return boundaries.length + 1;
    }

    int partition(long value) {
        int low = 0;
        int high = boundaries.length;
        while (low < high) {
            int middle = (low + high) >>> 1;
            if (boundaries[middle] <= value) {
                low = middle + 1;
            } else {
                high = middle;
            }
        }
        return low;
    }

    BoundStandardAlgorithm bind(String column, ShardingTargets targets) {
        int[] indexByPartition = StandardAlgorithms.indexBySuffixNumber(targets, count());
        return new BoundStandardAlgorithm() {

            @Override
            public ShardingTargets targets() {
                return targets;
            }

            @Override
            public int route(Comparable<?> value) {
                return indexByPartition[partition(IntegralValues.toLong(value, owner, column))];
            }

            @Override
            public TargetSet routeRange(ShardingRange range) {
                int first = range.hasLowerBound() ? partition(IntegralValues.toLongBound(range.lowerEndpoint(), true, owner, column)) : 0;
                int last = range.hasUpperBound() ? partition(IntegralValues.toLongBound(range.upperEndpoint(), false, owner, column)) : count() - 1;
                TargetSet.Builder result = targets.newTargetSet();
                for (int partition = first; partition <= last; partition++) {
                    result.add(indexByPartition[partition]);
                }
                return result.build();
            }

            @Override
            public String toString() {
                return type + Arrays.toString(boundaries) + " on " + column + " over " + targets;
            }
        };
    }
}
