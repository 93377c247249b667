package io.ashlar.sharding;

import java.util.List;

/** A hint algorithm bound to one list of targets; thread-safe. */
public interface BoundHintAlgorithm {

    ShardingTargets targets();

    /**
     * Routes the hint values of one statement.
     *
     * @param hintValues the values; empty when the client gave none
     * @throws ShardingAlgorithmException if a value cannot be used by the algorithm
     */
    TargetSet route(List<? extends Comparable<?>> hintValues);
}
