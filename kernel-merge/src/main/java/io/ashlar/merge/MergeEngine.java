package io.ashlar.merge;

import io.ashlar.merge.plan.MergePlan;
import io.ashlar.merge.plan.SortKey;
import io.ashlar.merge.step.DerivedColumnStripper;
import io.ashlar.merge.step.DistinctMerger;
import io.ashlar.merge.step.GroupByMemoryMerger;
import io.ashlar.merge.step.GroupByStreamMerger;
import io.ashlar.merge.step.HavingFilter;
import io.ashlar.merge.step.IterationMerger;
import io.ashlar.merge.step.LimitDecorator;
import io.ashlar.merge.step.MemorySortMerger;
import io.ashlar.merge.step.MergeStep;
import io.ashlar.merge.step.OrderByStreamMerger;
import io.ashlar.merge.value.ColumnCollations;

import java.util.List;
import java.util.OptionalLong;

/**
 * Compiles a {@link MergePlan} into a tree of {@link MergeStep}s, in the order PostgreSQL
 * evaluates a SELECT (<a href="https://www.postgresql.org/docs/current/sql-select.html#SQL-SELECT-DESCRIPTION">SELECT, Description</a>):
 * read the shards (concatenated, or k-way merged by the ORDER BY), group and aggregate, HAVING,
 * ORDER BY over the merged groups when their order is not already right, DISTINCT, strip the
 * derived columns, LIMIT/OFFSET last.
 *
 * <p>Compile once per statement, when the plan is cached; {@link MergeStep#open} per execution.
 * For a LIMIT or OFFSET that arrives as a parameter, use {@link #withPagination} on the compiled
 * tree rather than recompiling.
 */
public final class MergeEngine {

    private MergeEngine() {
    }

    /** The step tree for a plan. */
    public static MergeStep compile(MergePlan plan) {
        ColumnCollations collations = ColumnCollations.of(plan.collations(), plan.columnCount());
        MergeStep result;
        if (plan.aggregating()) {
            List<SortKey> outputOrder;
            if (plan.groupBy().isEmpty()) {
                result = new GroupByStreamMerger(new IterationMerger(), List.of(), plan.aggregates(), collations);
                outputOrder = List.of();
            } else if (plan.groupsSortedByShards()) {
                result = new GroupByStreamMerger(new OrderByStreamMerger(plan.groupBy(), collations), plan.groupBy(),
                        plan.aggregates(), collations);
                outputOrder = plan.groupBy();
            } else {
                result = new GroupByMemoryMerger(new IterationMerger(), plan.groupBy(), plan.aggregates(), collations);
                outputOrder = List.of();
            }
            if (plan.having().isPresent()) {
                result = new HavingFilter(result, plan.having().get(), collations);
            }
            if (!plan.orderBy().isEmpty() && !alreadySorted(plan.orderBy(), outputOrder, plan.groupBy().isEmpty())) {
                result = new MemorySortMerger(result, plan.orderBy(), collations);
            }
        } else {
            result = plan.orderBy().isEmpty() ? new IterationMerger() : new OrderByStreamMerger(plan.orderBy(), collations);
            if (plan.having().isPresent()) {
                result = new HavingFilter(result, plan.having().get(), collations);
            }
        }
        if (plan.distinct()) {
            result = new DistinctMerger(result, plan.visibleColumnCount(), collations);
        }
        if (plan.visibleColumnCount() < plan.columnCount()) {
            result = new DerivedColumnStripper(result, plan.visibleColumnCount());
        }
        if (plan.offset() > 0 || plan.limit().isPresent()) {
            result = new LimitDecorator(result, plan.offset(), plan.limit());
        }
        return result;
    }

    /**
     * The same tree with another LIMIT/OFFSET (a parameterised {@code LIMIT $1} known only at
     * Bind); the steps below are shared, nothing is recompiled.
     */
    public static MergeStep withPagination(MergeStep compiled, long offset, OptionalLong limit) {
        MergeStep base = compiled instanceof LimitDecorator decorator ? decorator.input() : compiled;
        if (offset == 0 && limit.isEmpty()) {
            return base;
        }
        return new LimitDecorator(base, offset, limit);
    }

    /**
     * Whether rows in {@code produced} order (unique per group key) already satisfy the ORDER BY:
     * it must start with the same keys; keys beyond the group keys cannot reorder unique groups.
     * A plain aggregate yields one row, always sorted.
     */
    private static boolean alreadySorted(List<SortKey> orderBy, List<SortKey> produced, boolean singleRow) {
        if (singleRow) {
            return true;
        }
        if (produced.isEmpty()) {
            return false;
        }
        int common = Math.min(orderBy.size(), produced.size());
        for (int i = 0; i < common; i++) {
            if (!orderBy.get(i).equals(produced.get(i))) {
                return false;
            }
        }
        return true;
    }
}
