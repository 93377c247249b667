package io.ashlar.sharding;

/**
 * A standard algorithm bound to one sharding column and one list of targets: what the route
 * engine keeps in its compiled rule and calls for every statement. Implementations are immutable
 * and thread-safe; {@link #route} does no map lookup, parsing or allocation for the value types
 * the algorithm expects.
 */
public interface BoundStandardAlgorithm {

    /** Returned by {@link #route} when the value belongs to none of the targets. */
    int NO_TARGET = -1;

    /** The targets the returned indexes point into. */
    ShardingTargets targets();

    /**
     * Routes one value.
     *
     * @param value never {@code null}
     * @return an index into {@link #targets()}, or {@link #NO_TARGET}
     * @throws ShardingAlgorithmException if the value cannot be used by the algorithm
     */
    int route(Comparable<?> value);

    /**
     * Routes a range.
     *
     * @throws ShardingAlgorithmException if the algorithm refuses ranges or cannot use an endpoint
     */
    TargetSet routeRange(ShardingRange range);
}
