package io.ashlar.sharding;

/** A complex algorithm bound to its sharding columns and one list of targets; thread-safe. */
public interface BoundComplexAlgorithm {

    ShardingTargets targets();

    /**
     * Routes the values of one statement.
     *
     * @throws ShardingAlgorithmException if the values cannot be used by the algorithm
     */
    TargetSet route(ComplexShardingValues values);
}
