package io.ashlar.merge.aggregate;

/**
 * The running state of one aggregate over the shard rows of one group: PostgreSQL's
 * transition state and final function
 * (<a href="https://www.postgresql.org/docs/current/xaggr.html">User-Defined Aggregates</a>),
 * fed with the shards' partial results instead of the raw rows. Mutable; one per aggregate per
 * group (a streaming merge resets and reuses them).
 */
public sealed interface Accumulator
        permits CountAccumulator, SumAccumulator, ExtremeAccumulator, AverageAccumulator, DistinctAccumulator {

    /** Forgets every row added so far. */
    void reset();

    /** Adds one shard row of the group. */
    void add(byte[][] row);

    /** The aggregate's value in PostgreSQL text form, {@code null} for SQL NULL. */
    byte[] result();
}
