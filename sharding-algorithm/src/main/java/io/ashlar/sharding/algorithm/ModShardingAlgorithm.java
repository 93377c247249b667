package io.ashlar.sharding.algorithm;

import io.ashlar.sharding.AlgorithmProperties;
import io.ashlar.sharding.AutoTableAlgorithm;
import io.ashlar.sharding.BoundStandardAlgorithm;
import io.ashlar.sharding.ShardingAlgorithmException;
import io.ashlar.sharding.ShardingRange;
import io.ashlar.sharding.ShardingTargets;
import io.ashlar.sharding.StandardShardingAlgorithm;
import io.ashlar.sharding.TargetSet;

import java.math.BigInteger;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code MOD}: the target whose suffix is {@code value mod sharding-count}, the remainder taken
 * non-negative as ShardingSphere's {@code BigInteger.mod} does (-1 mod 4 is 3).
 *
 * <p>Properties, as in ShardingSphere
 * (<a href="https://shardingsphere.apache.org/document/current/en/user-manual/common-config/builtin-algorithm/sharding/#modulo-sharding-algorithm">Modulo Sharding Algorithm</a>):
 * {@code sharding-count} (required, positive), {@code start-offset} and {@code stop-offset}
 * (characters cut from the start and end of the value's text before taking the number, default
 * 0), {@code zero-padding} (pad the suffix to the width of {@code sharding-count - 1}, default
 * false).
 *
 * <p>A range routes to every target unless both ends are given and span fewer than
 * {@code sharding-count} values, in which case the remainders are enumerated (ShardingSphere
 * enumerates too, but ignores whether the ends are inclusive; this routes to no extra target).
 */
public final class ModShardingAlgorithm implements StandardShardingAlgorithm, AutoTableAlgorithm {

    private static final String TYPE = "MOD";

    private static final String OWNER = "MOD sharding algorithm";

    private final int shardingCount;

    private final int startOffset;

    private final int stopOffset;

    private final boolean zeroPadding;

    private final int paddingWidth;

    public ModShardingAlgorithm(Map<String, String> props) {
        AlgorithmProperties properties = AlgorithmProperties.of(OWNER, props);
        shardingCount = properties.requireInt("sharding-count", 1, Integer.MAX_VALUE, "a positive integer");
        startOffset = properties.intOrDefault("start-offset", 0, 0, Integer.MAX_VALUE, "an integer >= 0");
        stopOffset = properties.intOrDefault("stop-offset", 0, 0, Integer.MAX_VALUE, "an integer >= 0");
        zeroPadding = properties.booleanOrDefault("zero-padding", false);
        paddingWidth = String.valueOf(shardingCount - 1).length();
    }

    @Override
    public String type() {
        return TYPE;
    }

    @Override
    public int autoTablesAmount() {
        return shardingCount;
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
        int[] indexByRemainder = new int[shardingCount];
        for (int i = 0; i < shardingCount; i++) {
            indexByRemainder[i] = targets.indexOfSuffix(suffix(i));
        }
        return new Bound(columnName, targets, indexByRemainder);
    }

    private String suffix(int remainder) {
        String result = String.valueOf(remainder);
        return zeroPadding && result.length() < paddingWidth ? "0".repeat(paddingWidth - result.length()) + result : result;
    }

    private final class Bound implements BoundStandardAlgorithm {

        private final String column;

        private final ShardingTargets targets;

        private final int[] indexByRemainder;

        private final BigInteger count = BigInteger.valueOf(shardingCount);

        Bound(String column, ShardingTargets targets, int[] indexByRemainder) {
            this.column = column;
            this.targets = targets;
            this.indexByRemainder = indexByRemainder;
        }

        @Override
        public ShardingTargets targets() {
            return targets;
        }

        @Override
        public int route(Comparable<?> value) {
            if (startOffset == 0 && stopOffset == 0) {
                if (IntegralValues.isLongValued(value)) {
                    return indexByRemainder[(int) Math.floorMod(((Number) value).longValue(), (long) shardingCount)];
                }
                return indexByRemainder[IntegralValues.toBigInteger(value, OWNER, column).mod(count).intValue()];
            }
            return indexByRemainder[cut(value).mod(count).intValue()];
        }

        private BigInteger cut(Comparable<?> value) {
            String text = value.toString();
            if (text.length() - stopOffset <= startOffset) {
                throw new ShardingAlgorithmException(OWNER + " cannot use value '" + text + "' of column '" + column + "': it is not longer than start-offset "
                        + startOffset + " plus stop-offset " + stopOffset);
            }
            return IntegralValues.toBigInteger(text.substring(startOffset, text.length() - stopOffset), OWNER, column);
        }

        @Override
        public TargetSet routeRange(ShardingRange range) {
            if (!range.hasLowerBound() || !range.hasUpperBound() || startOffset != 0 || stopOffset != 0) {
                return targets.all();
            }
            BigInteger lower = IntegralValues.toBigIntegerBound(range.lowerEndpoint(), true, OWNER, column);
            BigInteger upper = IntegralValues.toBigIntegerBound(range.upperEndpoint(), false, OWNER, column);
            if (!range.isLowerInclusive() && isIntegral(range.lowerEndpoint())) {
                lower = lower.add(BigInteger.ONE);
            }
            if (!range.isUpperInclusive() && isIntegral(range.upperEndpoint())) {
                upper = upper.subtract(BigInteger.ONE);
            }
            if (lower.compareTo(upper) > 0) {
                return targets.none();
            }
            if (upper.subtract(lower).compareTo(BigInteger.valueOf(shardingCount - 1L)) >= 0) {
                return targets.all();
            }
            TargetSet.Builder result = targets.newTargetSet();
            int first = lower.mod(count).intValue();
            int span = upper.subtract(lower).intValue();
            for (int i = 0; i <= span; i++) {
                result.add(indexByRemainder[(first + i) % shardingCount]);
            }
            return result.build();
        }

        private boolean isIntegral(Object endpoint) {
            return IntegralValues.isLongValued(endpoint) || endpoint instanceof BigInteger
                    || IntegralValues.toBigIntegerBound(endpoint, true, OWNER, column).equals(IntegralValues.toBigIntegerBound(endpoint, false, OWNER, column));
        }

        @Override
        public String toString() {
            return TYPE + "(" + shardingCount + ") on " + column + " over " + targets;
        }
    }
}
