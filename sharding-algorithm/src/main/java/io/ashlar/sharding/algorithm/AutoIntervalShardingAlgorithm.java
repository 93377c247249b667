package io.ashlar.sharding.algorithm;

import io.ashlar.sharding.AlgorithmProperties;
import io.ashlar.sharding.AutoTableAlgorithm;
import io.ashlar.sharding.BoundStandardAlgorithm;
import io.ashlar.sharding.ShardingRange;
import io.ashlar.sharding.ShardingTargets;
import io.ashlar.sharding.StandardShardingAlgorithm;
import io.ashlar.sharding.TargetSet;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.text.ParsePosition;
import java.time.DateTimeException;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.TemporalAccessor;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code AUTO_INTERVAL}: time slices of {@code sharding-seconds} from {@code datetime-lower}; the
 * suffix is the slice number, values before the lower bound go to 0 and values past the last
 * slice to the last table
 * (<a href="https://shardingsphere.apache.org/document/current/en/user-manual/common-config/builtin-algorithm/sharding/#auto-interval-sharding-algorithm">Auto Interval Sharding Algorithm</a>).
 *
 * <p>The slice is computed as ShardingSphere computes it: the whole seconds since the lower
 * bound, divided by {@code sharding-seconds}, rounded half-even to two decimals, then rounded up;
 * so 1 second into a 4-second slicing is suffix 1, and the table count is
 * {@code (upper - lower) / sharding-seconds + 2}.
 *
 * <p>Properties: {@code datetime-lower}, {@code datetime-upper} ({@code yyyy-MM-dd HH:mm:ss},
 * required) and {@code sharding-seconds} (required, positive). Values may be LocalDateTime,
 * LocalDate, OffsetDateTime, ZonedDateTime, Instant (in the JVM's zone) or text starting with
 * {@code yyyy-MM-dd HH:mm:ss} (anything after it, such as fractions, is ignored). A range routes
 * to the slices from its lower end's to its upper end's.
 */
public final class AutoIntervalShardingAlgorithm implements StandardShardingAlgorithm, AutoTableAlgorithm {

    private static final String TYPE = "AUTO_INTERVAL";

    private static final String OWNER = "AUTO_INTERVAL sharding algorithm";

    private static final String PATTERN = "yyyy-MM-dd HH:mm:ss";

    private static final DateTimeFormatter FORMATTER = DateTimeFormatter.ofPattern(PATTERN);

    private final LocalDateTime lower;

    private final long lowerEpochSecond;

    private final int lowerNano;

    private final long shardingSeconds;

    private final int autoTablesAmount;

    public AutoIntervalShardingAlgorithm(Map<String, String> props) {
        AlgorithmProperties properties = AlgorithmProperties.of(OWNER, props);
        lower = parseProperty(properties, "datetime-lower");
        LocalDateTime upper = parseProperty(properties, "datetime-upper");
        shardingSeconds = properties.requireLong("sharding-seconds", "a positive number of seconds");
        if (shardingSeconds <= 0) {
            throw properties.invalid("sharding-seconds", String.valueOf(shardingSeconds), "a positive number of seconds");
        }
        lowerEpochSecond = lower.toEpochSecond(ZoneOffset.UTC);
        lowerNano = lower.getNano();
        long tables = secondsSinceLower(upper) / shardingSeconds + 2;
        if (tables < 1 || tables > 1_000_000) {
            throw properties.invalid("datetime-upper", properties.require("datetime-upper", PATTERN), "a time after datetime-lower giving at most 1000000 tables, not " + tables);
        }
        autoTablesAmount = (int) tables;
    }

    private static LocalDateTime parseProperty(AlgorithmProperties properties, String key) {
        String value = properties.require(key, "a date-time formatted " + PATTERN);
        try {
            return LocalDateTime.parse(value, FORMATTER);
        } catch (DateTimeException e) {
            throw properties.invalid(key, value, "a date-time formatted " + PATTERN);
        }
    }

    @Override
    public String type() {
        return TYPE;
    }

    @Override
    public int autoTablesAmount() {
        return autoTablesAmount;
    }

    /** The slice (table suffix) of a value; see the class comment. */
    public int sliceOf(Comparable<?> value, String columnName) {
        return slice(secondsSinceLower(toLocalDateTime(value, columnName)));
    }

    private int slice(long seconds) {
        if (seconds <= 0) {
            return 0;
        }
        long whole = seconds / shardingSeconds;
        long remainder = seconds % shardingSeconds;
        long result;
        if (remainder == 0) {
            result = whole;
        } else {
            long twiceHundredths = 200 * remainder;
            if (twiceHundredths > shardingSeconds) {
                result = whole + 1;
            } else if (twiceHundredths < shardingSeconds) {
                result = whole;
            } else {
                // an exact tie at x.005: ShardingSphere's DecimalFormat rounds the binary double
                result = (long) Math.ceil(new BigDecimal((double) seconds / shardingSeconds).setScale(2, RoundingMode.HALF_EVEN).doubleValue());
            }
        }
        return (int) Math.min(result, autoTablesAmount - 1L);
    }

    private long secondsSinceLower(LocalDateTime value) {
        long millis = (value.toEpochSecond(ZoneOffset.UTC) - lowerEpochSecond) * 1000 + Math.floorDiv(value.getNano() - lowerNano, 1_000_000);
        return millis / 1000;
    }

    private static LocalDateTime toLocalDateTime(Object value, String column) {
        if (TemporalValues.isDateTime(value)) {
            return TemporalValues.toLocalDateTime(value);
        }
        if (value instanceof String text && text.length() >= PATTERN.length()) {
            String normalized = text.charAt(10) == 'T' ? text.substring(0, 10) + ' ' + text.substring(11) : text;
            ParsePosition position = new ParsePosition(0);
            TemporalAccessor parsed = FORMATTER.parseUnresolved(normalized, position);
            if (parsed != null && position.getErrorIndex() < 0) {
                try {
                    return LocalDateTime.parse(normalized.substring(0, position.getIndex()), FORMATTER);
                } catch (DateTimeException e) {
                    throw IntegralValues.unusable(OWNER, column, value, "a date-time formatted " + PATTERN);
                }
            }
        }
        throw IntegralValues.unusable(OWNER, column, value, "a date-time formatted " + PATTERN);
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
        int[] indexBySlice = StandardAlgorithms.indexBySuffixNumber(targets, autoTablesAmount);
        return new BoundStandardAlgorithm() {

            @Override
            public ShardingTargets targets() {
                return targets;
            }

            @Override
            public int route(Comparable<?> value) {
                return indexBySlice[sliceOf(value, columnName)];
            }

            @Override
            public TargetSet routeRange(ShardingRange range) {
                int first = range.hasLowerBound() ? sliceOf(range.lowerEndpoint(), columnName) : 0;
                int last = range.hasUpperBound() ? sliceOf(range.upperEndpoint(), columnName) : autoTablesAmount - 1;
                TargetSet.Builder result = targets.newTargetSet();
                for (int slice = first; slice <= last; slice++) {
                    result.add(indexBySlice[slice]);
                }
                return result.build();
            }

            @Override
            public String toString() {
                return TYPE + "(" + lower + " + n * " + shardingSeconds + "s) on " + columnName + " over " + targets;
            }
        };
    }
}
