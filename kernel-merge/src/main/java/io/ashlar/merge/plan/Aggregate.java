package io.ashlar.merge.plan;

/**
 * An aggregate of the client's select list and how its per-shard parts combine.
 *
 * <p>Every variant names the output {@link #column()} whose value the merge computes; the other
 * columns of a group keep the bytes of the group's first shard row. The shards run the
 * aggregate themselves over their rows (partial aggregation, as ShardingSphere's
 * {@code AggregationUnit}s do), so:
 * <ul>
 *   <li>{@link Count}: the shards return {@code COUNT(..)}; the merge adds the counts.</li>
 *   <li>{@link Sum}: the shards return {@code SUM(x)} (already of SUM's result type); the merge
 *       adds them in that type.</li>
 *   <li>{@link Min}, {@link Max}: the winning shard value, byte for byte.</li>
 *   <li>{@link Avg}: the rewriter appends derived {@code SUM(x)} and {@code COUNT(x)} columns;
 *       the merge divides the total sum by the total count with PostgreSQL's rules. For a
 *       {@code real} argument ask the shards for {@code SUM(x::float8)}, as PostgreSQL's own
 *       {@code avg(real)} accumulates in double precision.</li>
 *   <li>{@link CountDistinct}, {@link SumDistinct}, {@link AvgDistinct}: the shards return the
 *       argument itself, grouped by the group keys and the argument (e.g.
 *       {@code SELECT k, x FROM t GROUP BY k, x}); the merge keeps the distinct non-NULL values
 *       of each group. Other aggregates of the same statement still combine correctly over those
 *       finer shard groups.</li>
 * </ul>
 * See <a href="https://www.postgresql.org/docs/current/functions-aggregate.html">Aggregate
 * Functions</a> for result types.
 */
public sealed interface Aggregate {

    /** The output column whose value the merge computes. */
    int column();

    /** Prints the aggregate for EXPLAIN: {@code #3=AVG(sum #5, count #6)}. */
    String describe();

    /** {@code COUNT(*)} or {@code COUNT(x)}: shard counts at {@code column}. */
    record Count(int column) implements Aggregate {
        public Count {
            checkColumn(column);
        }

        @Override
        public String describe() {
            return "#" + column + "=COUNT";
        }
    }

    /** {@code SUM(x)}: shard sums at {@code column}. */
    record Sum(int column) implements Aggregate {
        public Sum {
            checkColumn(column);
        }

        @Override
        public String describe() {
            return "#" + column + "=SUM";
        }
    }

    /** {@code MIN(x)}: shard minimums at {@code column}. */
    record Min(int column) implements Aggregate {
        public Min {
            checkColumn(column);
        }

        @Override
        public String describe() {
            return "#" + column + "=MIN";
        }
    }

    /** {@code MAX(x)}: shard maximums at {@code column}. */
    record Max(int column) implements Aggregate {
        public Max {
            checkColumn(column);
        }

        @Override
        public String describe() {
            return "#" + column + "=MAX";
        }
    }

    /**
     * {@code AVG(x)}: the result goes to {@code column}; the shards' {@code SUM(x)} is at
     * {@code sumColumn} and their {@code COUNT(x)} at {@code countColumn}.
     */
    record Avg(int column, int sumColumn, int countColumn) implements Aggregate {
        public Avg {
            checkColumn(column);
            checkColumn(sumColumn);
            checkColumn(countColumn);
        }

        @Override
        public String describe() {
            return "#" + column + "=AVG(sum #" + sumColumn + ", count #" + countColumn + ")";
        }
    }

    /** {@code COUNT(DISTINCT x)}: result at {@code column}, the shards' grouped x at {@code argumentColumn}. */
    record CountDistinct(int column, int argumentColumn) implements Aggregate {
        public CountDistinct {
            checkColumn(column);
            checkColumn(argumentColumn);
        }

        @Override
        public String describe() {
            return "#" + column + "=COUNT(DISTINCT #" + argumentColumn + ")";
        }
    }

    /** {@code SUM(DISTINCT x)}: result at {@code column}, the shards' grouped x at {@code argumentColumn}. */
    record SumDistinct(int column, int argumentColumn) implements Aggregate {
        public SumDistinct {
            checkColumn(column);
            checkColumn(argumentColumn);
        }

        @Override
        public String describe() {
            return "#" + column + "=SUM(DISTINCT #" + argumentColumn + ")";
        }
    }

    /** {@code AVG(DISTINCT x)}: result at {@code column}, the shards' grouped x at {@code argumentColumn}. */
    record AvgDistinct(int column, int argumentColumn) implements Aggregate {
        public AvgDistinct {
            checkColumn(column);
            checkColumn(argumentColumn);
        }

        @Override
        public String describe() {
            return "#" + column + "=AVG(DISTINCT #" + argumentColumn + ")";
        }
    }

    private static void checkColumn(int column) {
        if (column < 0) {
            throw new IllegalArgumentException("column must be >= 0: " + column);
        }
    }
}
