package io.ashlar.merge.step;

import io.ashlar.merge.MergeContext;
import io.ashlar.merge.RowCursor;

import java.util.List;

/**
 * One primitive of a compiled merge: a node of a small tree, as in vitess's
 * {@code vtgate/engine}, that turns the shards' row streams (or the stream of the step below it)
 * into one row stream. Immutable and shared by every execution of the statement; {@link #open}
 * makes the per-execution cursor. {@link #describe()} prints the subtree, which is what EXPLAIN
 * shows.
 */
public sealed interface MergeStep
        permits IterationMerger, OrderByStreamMerger, GroupByStreamMerger, GroupByMemoryMerger, MemorySortMerger,
        HavingFilter, DistinctMerger, DerivedColumnStripper, LimitDecorator {

    /**
     * Starts merging one execution's shard results.
     *
     * @param shards one cursor per shard, all with the same columns; at least one. The returned
     *               cursor owns them: closing it closes every shard.
     * @param context the execution's memory budget (the steps that keep rows charge it) and where
     *                its large sorts run
     */
    RowCursor open(List<RowCursor> shards, MergeContext context);

    /** {@link #open(List, MergeContext)} with no memory limit, all on the caller's thread. */
    default RowCursor open(List<RowCursor> shards) {
        return open(shards, MergeContext.unbounded());
    }

    /** This step alone, one line: name and parameters. */
    String label();

    /** The steps this one reads from (none for the steps that read the shards). */
    List<MergeStep> inputs();

    /** This step and its inputs, one line each, inputs indented below their reader. */
    default String describe() {
        StringBuilder result = new StringBuilder();
        describe(this, 0, result);
        return result.toString();
    }

    private static void describe(MergeStep step, int depth, StringBuilder result) {
        if (depth > 0) {
            result.append('\n');
        }
        result.append("  ".repeat(depth)).append(step.label());
        for (MergeStep each : step.inputs()) {
            describe(each, depth + 1, result);
        }
    }
}
