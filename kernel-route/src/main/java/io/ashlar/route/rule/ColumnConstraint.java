package io.ashlar.route.rule;

import io.ashlar.sharding.ShardingRange;

import java.util.ArrayList;
import java.util.List;

/**
 * What one conjunction of a WHERE clause says about one sharding column: nothing, a list of values it equals
 * ({@code =}, {@code IN}), a range ({@code BETWEEN}, {@code <}, {@code >=}, ...), or that no row can match (an
 * equality with NULL, or contradictory conditions). Immutable; {@link #and} intersects two constraints on the same
 * column, widening rather than guessing when the values cannot be compared.
 */
public final class ColumnConstraint {

    /** The statement says nothing about the column. */
    public static final ColumnConstraint UNRESTRICTED = new ColumnConstraint(Kind.UNRESTRICTED, List.of(), ShardingRange.all());

    /** No value satisfies the conditions (for example {@code col = NULL}). */
    public static final ColumnConstraint NOTHING = new ColumnConstraint(Kind.NOTHING, List.of(), ShardingRange.all());

    /** The shapes of a constraint. */
    public enum Kind {
        UNRESTRICTED, NOTHING, VALUES, RANGE
    }

    private final Kind kind;

    private final List<Comparable<?>> values;

    private final ShardingRange range;

    private ColumnConstraint(Kind kind, List<Comparable<?>> values, ShardingRange range) {
        this.kind = kind;
        this.values = values;
        this.range = range;
    }

    /** The column equals one of {@code values} (non-null values; an empty list is {@link #NOTHING}). */
    public static ColumnConstraint values(List<Comparable<?>> values) {
        return values.isEmpty() ? NOTHING : new ColumnConstraint(Kind.VALUES, values, ShardingRange.all());
    }

    /** The column equals {@code value}. */
    public static ColumnConstraint value(Comparable<?> value) {
        return new ColumnConstraint(Kind.VALUES, List.of(value), ShardingRange.all());
    }

    /** The column lies in {@code range}. */
    public static ColumnConstraint range(ShardingRange range) {
        return new ColumnConstraint(Kind.RANGE, List.of(), range);
    }

    public Kind kind() {
        return kind;
    }

    /** The values, for {@link Kind#VALUES}; empty otherwise. */
    public List<Comparable<?>> values() {
        return values;
    }

    /** The range, for {@link Kind#RANGE}; {@link ShardingRange#all()} otherwise. */
    public ShardingRange range() {
        return range;
    }

    /** Both constraints together: the values or range satisfying both, as far as they can be compared. */
    public ColumnConstraint and(ColumnConstraint other) {
        if (kind == Kind.UNRESTRICTED || other.kind == Kind.NOTHING) {
            return other;
        }
        if (other.kind == Kind.UNRESTRICTED || kind == Kind.NOTHING) {
            return this;
        }
        if (kind == Kind.VALUES) {
            return other.kind == Kind.VALUES ? commonValues(values, other.values) : valuesWithin(values, other.range);
        }
        return other.kind == Kind.VALUES ? valuesWithin(other.values, range) : intersect(range, other.range);
    }

    private static ColumnConstraint commonValues(List<Comparable<?>> left, List<Comparable<?>> right) {
        List<Comparable<?>> result = new ArrayList<>(left.size());
        for (Comparable<?> each : left) {
            boolean kept = false;
            boolean comparable = false;
            for (Comparable<?> candidate : right) {
                int comparison = ValueComparison.compare(each, candidate);
                if (comparison != ValueComparison.INCOMPARABLE) {
                    comparable = true;
                }
                if (comparison == 0 || each.equals(candidate)) {
                    kept = true;
                    break;
                }
            }
            if (kept || !comparable) {
                result.add(each);
            }
        }
        return values(result);
    }

    private static ColumnConstraint valuesWithin(List<Comparable<?>> values, ShardingRange range) {
        List<Comparable<?>> result = new ArrayList<>(values.size());
        for (Comparable<?> each : values) {
            if (mayContain(range, each)) {
                result.add(each);
            }
        }
        return values(result);
    }

    private static boolean mayContain(ShardingRange range, Object value) {
        if (range.hasLowerBound()) {
            int comparison = ValueComparison.compare(value, range.lowerEndpoint());
            if (comparison != ValueComparison.INCOMPARABLE && (comparison < 0 || comparison == 0 && !range.isLowerInclusive())) {
                return false;
            }
        }
        if (range.hasUpperBound()) {
            int comparison = ValueComparison.compare(value, range.upperEndpoint());
            return comparison == ValueComparison.INCOMPARABLE || comparison < 0 || comparison == 0 && range.isUpperInclusive();
        }
        return true;
    }

    private static ColumnConstraint intersect(ShardingRange left, ShardingRange right) {
        Comparable<?> lower = left.hasLowerBound() ? left.lowerEndpoint() : null;
        boolean lowerInclusive = left.isLowerInclusive();
        if (right.hasLowerBound()) {
            if (lower == null) {
                lower = right.lowerEndpoint();
                lowerInclusive = right.isLowerInclusive();
            } else {
                int comparison = ValueComparison.compare(right.lowerEndpoint(), lower);
                if (comparison == ValueComparison.INCOMPARABLE) {
                    return range(left);
                }
                if (comparison > 0 || comparison == 0 && !right.isLowerInclusive()) {
                    lower = right.lowerEndpoint();
                    lowerInclusive = right.isLowerInclusive();
                }
            }
        }
        Comparable<?> upper = left.hasUpperBound() ? left.upperEndpoint() : null;
        boolean upperInclusive = left.isUpperInclusive();
        if (right.hasUpperBound()) {
            if (upper == null) {
                upper = right.upperEndpoint();
                upperInclusive = right.isUpperInclusive();
            } else {
                int comparison = ValueComparison.compare(right.upperEndpoint(), upper);
                if (comparison == ValueComparison.INCOMPARABLE) {
                    return range(left);
                }
                if (comparison < 0 || comparison == 0 && !right.isUpperInclusive()) {
                    upper = right.upperEndpoint();
                    upperInclusive = right.isUpperInclusive();
                }
            }
        }
        if (lower != null && upper != null) {
            int comparison = ValueComparison.compare(lower, upper);
            if (comparison != ValueComparison.INCOMPARABLE && (comparison > 0 || comparison == 0 && !(lowerInclusive && upperInclusive))) {
                return NOTHING;
            }
        }
        return range(rangeOf(lower, lowerInclusive, upper, upperInclusive));
    }

    /** A range from optional ends ({@code null} for an unbounded end). */
    public static ShardingRange rangeOf(Comparable<?> lower, boolean lowerInclusive, Comparable<?> upper, boolean upperInclusive) {
        if (lower == null) {
            return upper == null ? ShardingRange.all() : upperInclusive ? ShardingRange.atMost(upper) : ShardingRange.lessThan(upper);
        }
        if (upper == null) {
            return lowerInclusive ? ShardingRange.atLeast(lower) : ShardingRange.greaterThan(lower);
        }
        if (lowerInclusive) {
            return upperInclusive ? ShardingRange.closed(lower, upper) : ShardingRange.closedOpen(lower, upper);
        }
        return upperInclusive ? ShardingRange.openClosed(lower, upper) : ShardingRange.open(lower, upper);
    }

    @Override
    public String toString() {
        return switch (kind) {
            case UNRESTRICTED -> "any";
            case NOTHING -> "nothing";
            case VALUES -> values.toString();
            case RANGE -> range.toString();
        };
    }
}
