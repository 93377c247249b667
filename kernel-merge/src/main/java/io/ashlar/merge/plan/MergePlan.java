package io.ashlar.merge.plan;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;

/**
 * What the router and rewriter tell the merge engine about one statement spread over several
 * shards: the shape of the shard rows and which of PostgreSQL's
 * <a href="https://www.postgresql.org/docs/current/queries-overview.html">query stages</a>
 * (grouping, HAVING, DISTINCT, ORDER BY, LIMIT/OFFSET) the proxy must finish itself. Built once
 * per statement text, compiled once by {@code MergeEngine}, reused for every execution.
 *
 * <p>Column indexes refer to the shard rows: the {@code visibleColumnCount} columns the client
 * asked for, followed by derived columns the rewriter appended for the merge (ORDER BY keys not
 * selected, AVG's SUM and COUNT, HAVING aggregates), which are stripped before output.
 *
 * @param columnCount columns of a shard row, derived ones included
 * @param visibleColumnCount leading columns the client sees
 * @param orderBy the client's ORDER BY; when there is no grouping the shards must return their
 *                rows sorted by these keys (the rewriter keeps the ORDER BY in the shard SQL)
 * @param groupBy GROUP BY key columns; the direction and NULLS placement of each key say how the
 *                shards sort their groups when {@code groupsSortedByShards}
 * @param groupsSortedByShards the shard SQL orders its rows by {@code groupBy}, so groups can be
 *                             merged while streaming; otherwise they are merged in memory
 * @param aggregates the aggregated output columns; without {@code groupBy} the statement is a
 *                   plain aggregate with exactly one result row
 * @param distinct {@code SELECT DISTINCT} over the visible columns
 * @param having the HAVING condition over merged groups, if any
 * @param offset rows to skip after everything else (shards were asked for {@code LIMIT n+m})
 * @param limit rows to return after the offset, empty for no LIMIT
 * @param collations text collation per column index; columns not listed use {@link TextCollation#C}
 */
public record MergePlan(int columnCount, int visibleColumnCount, List<SortKey> orderBy, List<SortKey> groupBy,
                        boolean groupsSortedByShards, List<Aggregate> aggregates, boolean distinct,
                        Optional<HavingPredicate> having, long offset, OptionalLong limit,
                        Map<Integer, TextCollation> collations) {

    public MergePlan {
        orderBy = List.copyOf(orderBy);
        groupBy = List.copyOf(groupBy);
        aggregates = List.copyOf(aggregates);
        Objects.requireNonNull(having, "having");
        Objects.requireNonNull(limit, "limit");
        collations = Map.copyOf(collations);
        if (visibleColumnCount < 0 || visibleColumnCount > columnCount) {
            throw new IllegalArgumentException("visibleColumnCount " + visibleColumnCount + " outside 0.." + columnCount);
        }
        if (offset < 0 || limit.orElse(0) < 0) {
            throw new IllegalArgumentException("negative OFFSET or LIMIT");
        }
        if (groupsSortedByShards && groupBy.isEmpty()) {
            throw new IllegalArgumentException("groupsSortedByShards needs GROUP BY keys");
        }
        for (SortKey each : orderBy) {
            checkColumn(each.column(), columnCount, "ORDER BY");
        }
        for (SortKey each : groupBy) {
            checkColumn(each.column(), columnCount, "GROUP BY");
        }
        Set<Integer> computed = new HashSet<>();
        for (Aggregate each : aggregates) {
            checkAggregate(each, columnCount);
            if (!computed.add(each.column())) {
                throw new IllegalArgumentException("two aggregates write column #" + each.column());
            }
        }
        for (int each : collations.keySet()) {
            checkColumn(each, columnCount, "collation");
        }
        having.ifPresent(predicate -> checkPredicate(predicate, columnCount));
    }

    /** Whether the proxy must group shard rows (GROUP BY keys or aggregates). */
    public boolean aggregating() {
        return !groupBy.isEmpty() || !aggregates.isEmpty();
    }

    /** Starts a plan of {@code columnCount} shard columns, all visible, nothing to merge but the streams. */
    public static Builder builder(int columnCount) {
        return new Builder(columnCount);
    }

    /** Prints the plan's inputs, one line (the compiled step tree is what EXPLAIN shows). */
    public String describe() {
        StringBuilder result = new StringBuilder("columns=").append(columnCount).append(" visible=").append(visibleColumnCount);
        if (!orderBy.isEmpty()) {
            result.append(" orderBy=").append(describeKeys(orderBy));
        }
        if (!groupBy.isEmpty()) {
            result.append(" groupBy=").append(describeKeys(groupBy)).append(groupsSortedByShards ? " (sorted)" : " (unsorted)");
        }
        for (Aggregate each : aggregates) {
            result.append(' ').append(each.describe());
        }
        if (distinct) {
            result.append(" distinct");
        }
        having.ifPresent(predicate -> result.append(" having=").append(predicate.describe()));
        if (offset > 0) {
            result.append(" offset=").append(offset);
        }
        limit.ifPresent(count -> result.append(" limit=").append(count));
        return result.toString();
    }

    /** Joins sort keys as {@code [#0 ASC NULLS LAST, #1 DESC NULLS FIRST]}. */
    public static String describeKeys(List<SortKey> keys) {
        StringBuilder result = new StringBuilder("[");
        for (int i = 0; i < keys.size(); i++) {
            if (i > 0) {
                result.append(", ");
            }
            result.append(keys.get(i).describe());
        }
        return result.append(']').toString();
    }

    private static void checkAggregate(Aggregate aggregate, int columnCount) {
        checkColumn(aggregate.column(), columnCount, "aggregate");
        switch (aggregate) {
            case Aggregate.Avg avg -> {
                checkColumn(avg.sumColumn(), columnCount, "AVG sum");
                checkColumn(avg.countColumn(), columnCount, "AVG count");
            }
            case Aggregate.CountDistinct count -> checkColumn(count.argumentColumn(), columnCount, "COUNT(DISTINCT)");
            case Aggregate.SumDistinct sum -> checkColumn(sum.argumentColumn(), columnCount, "SUM(DISTINCT)");
            case Aggregate.AvgDistinct avg -> checkColumn(avg.argumentColumn(), columnCount, "AVG(DISTINCT)");
            case Aggregate.Count ignored -> { }
            case Aggregate.Sum ignored -> { }
            case Aggregate.Min ignored -> { }
            case Aggregate.Max ignored -> { }
        }
    }

    private static void checkPredicate(HavingPredicate predicate, int columnCount) {
        switch (predicate) {
            case HavingPredicate.Comparison comparison -> {
                if (comparison.left() instanceof HavingPredicate.Column column) {
                    checkColumn(column.index(), columnCount, "HAVING");
                }
                if (comparison.right() instanceof HavingPredicate.Column column) {
                    checkColumn(column.index(), columnCount, "HAVING");
                }
            }
            case HavingPredicate.NullTest test -> checkColumn(test.column(), columnCount, "HAVING");
            case HavingPredicate.And and -> and.operands().forEach(each -> checkPredicate(each, columnCount));
            case HavingPredicate.Or or -> or.operands().forEach(each -> checkPredicate(each, columnCount));
            case HavingPredicate.Not not -> checkPredicate(not.operand(), columnCount);
        }
    }

    private static void checkColumn(int column, int columnCount, String what) {
        if (column < 0 || column >= columnCount) {
            throw new IllegalArgumentException(what + " column #" + column + " outside the " + columnCount + " shard columns");
        }
    }

    /** Assembles a {@link MergePlan} step by step; every setter returns the builder. */
    public static final class Builder {

        private final int columnCount;
        private int visibleColumnCount;
        private final List<SortKey> orderBy = new ArrayList<>();
        private final List<SortKey> groupBy = new ArrayList<>();
        private boolean groupsSortedByShards;
        private final List<Aggregate> aggregates = new ArrayList<>();
        private boolean distinct;
        private Optional<HavingPredicate> having = Optional.empty();
        private long offset;
        private OptionalLong limit = OptionalLong.empty();
        private final Map<Integer, TextCollation> collations = new TreeMap<>();

        private Builder(int columnCount) {
            this.columnCount = columnCount;
            this.visibleColumnCount = columnCount;
        }

        /** The client sees only the first {@code count} columns. */
        public Builder visibleColumns(int count) {
            visibleColumnCount = count;
            return this;
        }

        public Builder orderBy(SortKey... keys) {
            orderBy.addAll(List.of(keys));
            return this;
        }

        /** GROUP BY keys whose groups the shards return unsorted: merged in memory. */
        public Builder groupBy(SortKey... keys) {
            groupBy.addAll(List.of(keys));
            groupsSortedByShards = false;
            return this;
        }

        /** GROUP BY keys the shards also ORDER BY: merged while streaming. */
        public Builder groupBySorted(SortKey... keys) {
            groupBy.addAll(List.of(keys));
            groupsSortedByShards = true;
            return this;
        }

        public Builder aggregate(Aggregate... each) {
            aggregates.addAll(List.of(each));
            return this;
        }

        public Builder distinct() {
            distinct = true;
            return this;
        }

        public Builder having(HavingPredicate predicate) {
            having = Optional.of(predicate);
            return this;
        }

        public Builder offset(long rows) {
            offset = rows;
            return this;
        }

        public Builder limit(long rows) {
            limit = OptionalLong.of(rows);
            return this;
        }

        public Builder collation(int column, TextCollation collation) {
            collations.put(column, Objects.requireNonNull(collation, "collation"));
            return this;
        }

        public MergePlan build() {
            return new MergePlan(columnCount, visibleColumnCount, orderBy, groupBy, groupsSortedByShards, aggregates,
                    distinct, having, offset, limit, collations);
        }
    }
}
