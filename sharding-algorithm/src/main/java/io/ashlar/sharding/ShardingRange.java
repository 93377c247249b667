package io.ashlar.sharding;

import java.util.Objects;

/**
 * A range of sharding values taken from a {@code WHERE} clause ({@code BETWEEN}, {@code <},
 * {@code >=}, ...): each end is either absent (unbounded) or present and inclusive or exclusive.
 * ShardingSphere passes the same information as a Guava {@code Range} in its
 * {@code RangeShardingValue}.
 *
 * <p>Immutable. The endpoints are the values the router produced ({@code Integer}, {@code Long},
 * {@code String}, {@code LocalDateTime}, ...); the two ends need not have the same Java type.
 * A range whose lower end lies above its upper end is allowed and selects no value.
 */
public final class ShardingRange {

    private static final ShardingRange ALL = new ShardingRange(null, false, null, false);

    private final Comparable<?> lower;

    private final boolean lowerInclusive;

    private final Comparable<?> upper;

    private final boolean upperInclusive;

    private final int hash;

    private ShardingRange(Comparable<?> lower, boolean lowerInclusive, Comparable<?> upper, boolean upperInclusive) {
        this.lower = lower;
        this.lowerInclusive = lower != null && lowerInclusive;
        this.upper = upper;
        this.upperInclusive = upper != null && upperInclusive;
        this.hash = Objects.hash(lower, this.lowerInclusive, upper, this.upperInclusive);
    }

    /** Every value: no bound at either end. */
    public static ShardingRange all() {
        return ALL;
    }

    /** {@code lower <= v <= upper}, as {@code BETWEEN lower AND upper}. */
    public static ShardingRange closed(Comparable<?> lower, Comparable<?> upper) {
        return new ShardingRange(Objects.requireNonNull(lower, "lower"), true, Objects.requireNonNull(upper, "upper"), true);
    }

    /** {@code lower < v < upper}. */
    public static ShardingRange open(Comparable<?> lower, Comparable<?> upper) {
        return new ShardingRange(Objects.requireNonNull(lower, "lower"), false, Objects.requireNonNull(upper, "upper"), false);
    }

    /** {@code lower <= v < upper}. */
    public static ShardingRange closedOpen(Comparable<?> lower, Comparable<?> upper) {
        return new ShardingRange(Objects.requireNonNull(lower, "lower"), true, Objects.requireNonNull(upper, "upper"), false);
    }

    /** {@code lower < v <= upper}. */
    public static ShardingRange openClosed(Comparable<?> lower, Comparable<?> upper) {
        return new ShardingRange(Objects.requireNonNull(lower, "lower"), false, Objects.requireNonNull(upper, "upper"), true);
    }

    /** {@code v >= lower}. */
    public static ShardingRange atLeast(Comparable<?> lower) {
        return new ShardingRange(Objects.requireNonNull(lower, "lower"), true, null, false);
    }

    /** {@code v > lower}. */
    public static ShardingRange greaterThan(Comparable<?> lower) {
        return new ShardingRange(Objects.requireNonNull(lower, "lower"), false, null, false);
    }

    /** {@code v <= upper}. */
    public static ShardingRange atMost(Comparable<?> upper) {
        return new ShardingRange(null, false, Objects.requireNonNull(upper, "upper"), true);
    }

    /** {@code v < upper}. */
    public static ShardingRange lessThan(Comparable<?> upper) {
        return new ShardingRange(null, false, Objects.requireNonNull(upper, "upper"), false);
    }

    public boolean hasLowerBound() {
        return lower != null;
    }

    public boolean hasUpperBound() {
        return upper != null;
    }

    /**
     * The lower end.
     *
     * @throws IllegalStateException if the range has no lower bound
     */
    public Comparable<?> lowerEndpoint() {
        if (lower == null) {
            throw new IllegalStateException("range " + this + " has no lower bound");
        }
        return lower;
    }

    /**
     * The upper end.
     *
     * @throws IllegalStateException if the range has no upper bound
     */
    public Comparable<?> upperEndpoint() {
        if (upper == null) {
            throw new IllegalStateException("range " + this + " has no upper bound");
        }
        return upper;
    }

    /** Whether the lower end is part of the range; {@code false} when there is no lower bound. */
    public boolean isLowerInclusive() {
        return lowerInclusive;
    }

    /** Whether the upper end is part of the range; {@code false} when there is no upper bound. */
    public boolean isUpperInclusive() {
        return upperInclusive;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof ShardingRange that
                && hash == that.hash
                && lowerInclusive == that.lowerInclusive
                && upperInclusive == that.upperInclusive
                && Objects.equals(lower, that.lower)
                && Objects.equals(upper, that.upper);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    /** Interval notation, e.g. {@code [1..10)} or {@code (-inf..5]}. */
    @Override
    public String toString() {
        return (lowerInclusive ? "[" : "(") + (lower == null ? "-inf" : lower) + ".." + (upper == null ? "+inf" : upper) + (upperInclusive ? "]" : ")");
    }
}
