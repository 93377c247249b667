package io.ashlar.sharding.algorithm;

import io.ashlar.sharding.AlgorithmProperties;
import io.ashlar.sharding.BoundStandardAlgorithm;
import io.ashlar.sharding.ShardingRange;
import io.ashlar.sharding.ShardingTargets;
import io.ashlar.sharding.StandardShardingAlgorithm;
import io.ashlar.sharding.TargetSet;

import java.time.DateTimeException;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.time.temporal.TemporalAccessor;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code INTERVAL}: time intervals of {@code datetime-interval-amount} x
 * {@code datetime-interval-unit} stepped from {@code datetime-lower} up to
 * {@code datetime-upper}; a value goes to the target whose name ends with the start of its
 * interval formatted by {@code sharding-suffix-pattern}
 * (<a href="https://shardingsphere.apache.org/document/current/en/user-manual/common-config/builtin-algorithm/sharding/#interval-sharding-algorithm">Interval Sharding Algorithm</a>).
 * With pattern {@code yyyy-MM-dd HH:mm:ss}, lower {@code 2021-01-01 00:00:00}, suffix
 * {@code yyyyMM} and 1 Months, {@code 2021-03-15 10:00:00} goes to {@code t_order_202103}.
 *
 * <p>The intervals are computed once, stepping from the lower bound as ShardingSphere does (so
 * month steps from the 31st clamp and stay clamped), and routing is a binary search. Values
 * outside {@code [lower, upper]} route nowhere. A range routes to every interval it overlaps,
 * honouring inclusive and exclusive ends.
 *
 * <p>Properties: {@code datetime-pattern} (required), {@code datetime-lower} (required),
 * {@code datetime-upper} (default: now, when the rule is compiled), {@code sharding-suffix-pattern}
 * (required), {@code datetime-interval-amount} (default 1), {@code datetime-interval-unit} (a
 * {@link ChronoUnit} name such as {@code DAYS} or {@code Months}, default DAYS). Values may be
 * java.time values (LocalDateTime, LocalDate, OffsetDateTime, ZonedDateTime, LocalTime, OffsetTime,
 * YearMonth, Year, Month; an Instant is seen in the JVM's zone) or text in {@code datetime-pattern}
 * (longer text is cut to the pattern's length; shorter text is parsed with as much of the pattern,
 * as ShardingSphere does).
 */
public final class IntervalShardingAlgorithm implements StandardShardingAlgorithm {

    private static final String TYPE = "INTERVAL";

    private static final String OWNER = "INTERVAL sharding algorithm";

    private static final int MAX_INTERVALS = 1_000_000;

    private final String pattern;

    private final DateTimeFormatter formatter;

    private final IntervalKind kind;

    private final ChronoUnit precision;

    private final LocalDateTime[] startKeys;

    private final LocalDateTime[] endKeys;

    private final String[] suffixes;

    public IntervalShardingAlgorithm(Map<String, String> props) {
        AlgorithmProperties properties = AlgorithmProperties.of(OWNER, props);
        pattern = properties.require("datetime-pattern", "a date-time pattern such as yyyy-MM-dd HH:mm:ss");
        formatter = pattern(properties, "datetime-pattern", pattern);
        TemporalAccessor parsedLower = parseProperty(properties, "datetime-lower", properties.require("datetime-lower", "a date-time formatted " + pattern));
        kind = IntervalKind.of(parsedLower);
        TemporalAccessor lower = toKind(properties, "datetime-lower", parsedLower);
        Optional<String> upperText = properties.find("datetime-upper");
        TemporalAccessor upper = upperText.isPresent()
                ? toKind(properties, "datetime-upper", parseProperty(properties, "datetime-upper", upperText.get()))
                : toKind(properties, "datetime-upper", LocalDateTime.now());
        String suffixPattern = properties.require("sharding-suffix-pattern", "a date-time pattern such as yyyyMM");
        DateTimeFormatter suffixFormatter = pattern(properties, "sharding-suffix-pattern", suffixPattern);
        int amount = properties.intOrDefault("datetime-interval-amount", 1, 1, Integer.MAX_VALUE, "a positive integer");
        ChronoUnit unit = unit(properties);
        if (!kind.supports(lower, unit)) {
            throw properties.invalid("datetime-interval-unit", unit.name(), "a unit that " + kind.describe() + " (datetime-pattern '" + pattern + "') can step by");
        }
        precision = precisionOf(formatter);
        List<LocalDateTime> starts = new ArrayList<>();
        List<LocalDateTime> ends = new ArrayList<>();
        List<String> names = new ArrayList<>();
        TemporalAccessor current = lower;
        while (!kind.isAfter(current, upper, amount)) {
            if (starts.size() == MAX_INTERVALS) {
                throw properties.invalid("datetime-interval-amount", String.valueOf(amount), "an interval giving at most " + MAX_INTERVALS + " intervals between datetime-lower and datetime-upper");
            }
            try {
                names.add(suffixFormatter.format(current));
            } catch (DateTimeException e) {
                throw properties.invalid("sharding-suffix-pattern", suffixPattern, "a pattern of fields that " + kind.describe() + " has (" + e.getMessage() + ")");
            }
            TemporalAccessor next = kind.plus(current, amount, unit);
            LocalDateTime start = kind.key(current);
            LocalDateTime end = kind.key(next);
            starts.add(start);
            if (!end.isAfter(start)) {
                ends.add(IntervalKind.endOfTimeKeys());
                break;
            }
            ends.add(end);
            current = next;
        }
        startKeys = starts.toArray(new LocalDateTime[0]);
        endKeys = ends.toArray(new LocalDateTime[0]);
        suffixes = names.toArray(new String[0]);
    }

    private static DateTimeFormatter pattern(AlgorithmProperties properties, String key, String value) {
        try {
            return DateTimeFormatter.ofPattern(value);
        } catch (IllegalArgumentException e) {
            throw properties.invalid(key, value, "a java.time.format.DateTimeFormatter pattern (" + e.getMessage() + ")");
        }
    }

    private TemporalAccessor parseProperty(AlgorithmProperties properties, String key, String value) {
        try {
            return formatter.parse(value);
        } catch (DateTimeException e) {
            throw properties.invalid(key, value, "a date-time formatted " + pattern);
        }
    }

    private TemporalAccessor toKind(AlgorithmProperties properties, String key, TemporalAccessor value) {
        try {
            return kind.from(value);
        } catch (DateTimeException e) {
            throw properties.invalid(key, String.valueOf(value), kind.describe() + " as datetime-pattern '" + pattern + "' describes");
        }
    }

    private static ChronoUnit unit(AlgorithmProperties properties) {
        Optional<String> value = properties.find("datetime-interval-unit");
        if (value.isEmpty()) {
            return ChronoUnit.DAYS;
        }
        for (ChronoUnit each : ChronoUnit.values()) {
            if (each.toString().equalsIgnoreCase(value.get()) || each.name().equalsIgnoreCase(value.get())) {
                return each;
            }
        }
        throw properties.invalid("datetime-interval-unit", value.get(), "a java.time.temporal.ChronoUnit such as SECONDS, MINUTES, HOURS, DAYS, WEEKS, MONTHS or YEARS");
    }

    /** The finest unit that survives formatting and parsing with the pattern. */
    private static ChronoUnit precisionOf(DateTimeFormatter formatter) {
        LocalDateTime probe = LocalDateTime.of(2001, 2, 3, 4, 5, 6, 7_008_009);
        LocalTime kept;
        try {
            kept = LocalTime.from(formatter.parse(formatter.format(probe)));
        } catch (DateTimeException e) {
            return ChronoUnit.NANOS;
        }
        if (kept.getNano() == probe.getNano()) {
            return ChronoUnit.NANOS;
        }
        if (kept.getNano() == 7_008_000) {
            return ChronoUnit.MICROS;
        }
        if (kept.getNano() == 7_000_000) {
            return ChronoUnit.MILLIS;
        }
        if (kept.getSecond() == probe.getSecond()) {
            return ChronoUnit.SECONDS;
        }
        if (kept.getMinute() == probe.getMinute()) {
            return ChronoUnit.MINUTES;
        }
        return kept.getHour() == probe.getHour() ? ChronoUnit.HOURS : ChronoUnit.DAYS;
    }

    @Override
    public String type() {
        return TYPE;
    }

    /** The suffixes of the intervals, in order (for tools that create the tables). */
    public List<String> suffixes() {
        return List.of(suffixes);
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
        Map<String, int[]> matchesBySuffix = new HashMap<>();
        int[][] matches = new int[suffixes.length][];
        for (int i = 0; i < suffixes.length; i++) {
            matches[i] = matchesBySuffix.computeIfAbsent(suffixes[i], suffix -> {
                List<Integer> found = new ArrayList<>();
                for (int t = 0; t < targets.size(); t++) {
                    if (targets.name(t).endsWith(suffix)) {
                        found.add(t);
                    }
                }
                return found.stream().mapToInt(Integer::intValue).toArray();
            });
        }
        return new BoundStandardAlgorithm() {

            @Override
            public ShardingTargets targets() {
                return targets;
            }

            @Override
            public int route(Comparable<?> value) {
                LocalDateTime key = key(value, columnName);
                int interval = lastStartAtOrBefore(key, true);
                if (interval < 0 || !key.isBefore(endKeys[interval]) || matches[interval].length == 0) {
                    return NO_TARGET;
                }
                return matches[interval][0];
            }

            @Override
            public TargetSet routeRange(ShardingRange range) {
                int first = range.hasLowerBound() ? firstEndAfter(key(range.lowerEndpoint(), columnName)) : 0;
                int last = range.hasUpperBound() ? lastStartAtOrBefore(key(range.upperEndpoint(), columnName), range.isUpperInclusive()) : startKeys.length - 1;
                TargetSet.Builder result = targets.newTargetSet();
                for (int interval = first; interval <= last; interval++) {
                    for (int each : matches[interval]) {
                        result.add(each);
                    }
                }
                return result.build();
            }

            @Override
            public String toString() {
                return TYPE + "(" + suffixes.length + " intervals) on " + columnName + " over " + targets;
            }
        };
    }

    /** The last interval starting at (or, if not inclusive, before) the key; -1 if none. */
    private int lastStartAtOrBefore(LocalDateTime key, boolean inclusive) {
        int low = 0;
        int high = startKeys.length;
        while (low < high) {
            int middle = (low + high) >>> 1;
            int comparison = startKeys[middle].compareTo(key);
            if (comparison < 0 || inclusive && comparison == 0) {
                low = middle + 1;
            } else {
                high = middle;
            }
        }
        return low - 1;
    }

    /** The first interval ending after the key (so it overlaps values from the key on). */
    private int firstEndAfter(LocalDateTime key) {
        int low = 0;
        int high = endKeys.length;
        while (low < high) {
            int middle = (low + high) >>> 1;
            if (endKeys[middle].isAfter(key)) {
                high = middle;
            } else {
                low = middle + 1;
            }
        }
        return low;
    }

    private LocalDateTime key(Object value, String column) {
        try {
            return kind.key(kind.truncate(kind.from(temporal(value, column)), precision));
        } catch (DateTimeException e) {
            throw IntegralValues.unusable(OWNER, column, value, kind.describe() + " formatted " + pattern);
        }
    }

    private TemporalAccessor temporal(Object value, String column) {
        if (TemporalValues.isDateTime(value)) {
            return TemporalValues.toLocalDateTime(value);
        }
        if (value instanceof TemporalAccessor temporal) {
            return temporal;
        }
        if (value instanceof String text) {
            if (text.length() >= pattern.length()) {
                return formatter.parse(text.substring(0, pattern.length()));
            }
            try {
                return DateTimeFormatter.ofPattern(pattern.substring(0, text.length())).parse(text);
            } catch (IllegalArgumentException e) {
                throw IntegralValues.unusable(OWNER, column, value, kind.describe() + " formatted " + pattern);
            }
        }
        throw IntegralValues.unusable(OWNER, column, value, kind.describe() + " formatted " + pattern);
    }
}
