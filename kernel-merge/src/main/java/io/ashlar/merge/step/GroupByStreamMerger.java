package io.ashlar.merge.step;

import io.ashlar.merge.MergeContext;
import io.ashlar.merge.RowCursor;
import io.ashlar.merge.aggregate.Accumulator;
import io.ashlar.merge.aggregate.AggregateLayout;
import io.ashlar.merge.plan.Aggregate;
import io.ashlar.merge.plan.MergePlan;
import io.ashlar.merge.plan.SortKey;
import io.ashlar.merge.value.ColumnCollations;

import java.util.Arrays;
import java.util.List;

/**
 * Merges groups while streaming (ShardingSphere's {@code GroupByStreamMergedResult}, vitess's
 * {@code ordered_aggregate}): its input is sorted by the group keys, so the shard rows of one
 * group arrive together; each group is aggregated as its rows pass and emitted when the next
 * group starts. Memory: one group.
 *
 * <p>With no group keys it is the plain aggregate of {@code SELECT count(*) FROM t}: every row
 * is one group, and no rows at all still give the one row PostgreSQL returns ({@code count} 0,
 * other aggregates NULL, as
 * <a href="https://www.postgresql.org/docs/current/functions-aggregate.html">Aggregate Functions</a>
 * specifies).
 */
public final class GroupByStreamMerger implements MergeStep {

    private final MergeStep input;
    private final List<SortKey> keys;
    private final List<Aggregate> aggregates;
    private final ColumnCollations collations;

    /**
     * @param input rows sorted by {@code keys} (any order when there are no keys)
     * @param keys the group keys, possibly none
     * @param aggregates the aggregates to merge per group
     * @param collations the text collation of each column
     */
    public GroupByStreamMerger(MergeStep input, List<SortKey> keys, List<Aggregate> aggregates, ColumnCollations collations) {
        this.input = input;
        this.keys = List.copyOf(keys);
        this.aggregates = List.copyOf(aggregates);
        this.collations = collations;
    }

    @Override
    public RowCursor open(List<RowCursor> shards, MergeContext context) {
        RowCursor source = input.open(shards, context);
        try {
            return new Cursor(source, SortKeyLayout.bind(keys, source, collations),
                    AggregateLayout.bind(aggregates, source, collations));
        } catch (RuntimeException e) {
            source.close();
            throw e;
        }
    }

    @Override
    public String label() {
        return "GroupByStreamMerger keys=" + MergePlan.describeKeys(keys) + " aggregates=" + AggregateLayout.describe(aggregates);
    }

    @Override
    public List<MergeStep> inputs() {
        return List.of(input);
    }

    private static final class Cursor implements RowCursor {

        private final RowCursor input;
        private final SortKeyLayout keys;
        private final AggregateLayout layout;
        private final Accumulator[] accumulators;
        private final int[] types;
        private boolean started;
        private byte[][] pending;
        private byte[][] current;

        Cursor(RowCursor input, SortKeyLayout keys, AggregateLayout layout) {
            this.input = input;
            this.keys = keys;
            this.layout = layout;
            this.accumulators = layout.newAccumulators();
            this.types = layout.outputTypes(input);
        }

        @Override
        public int columnCount() {
            return types.length;
        }

        @Override
        public int typeOid(int column) {
            return types[column];
        }

        @Override
        public boolean next() {
            if (!started) {
                started = true;
                if (input.next()) {
                    pending = input.row();
                } else if (keys.size() == 0) {
                    AggregateLayout.reset(accumulators);
                    current = layout.finish(accumulators, new byte[types.length][]);
                    return true;
                }
            }
            if (pending == null) {
                current = null;
                return false;
            }
            byte[][] first = pending;
            pending = null;
            AggregateLayout.reset(accumulators);
            AggregateLayout.add(accumulators, first);
            while (input.next()) {
                byte[][] row = input.row();
                if (keys.sameKeys(first, row)) {
                    AggregateLayout.add(accumulators, row);
                } else {
                    pending = row;
                    break;
                }
            }
            current = layout.finish(accumulators, first);
            return true;
        }

        @Override
        public byte[] value(int column) {
            return current[column];
        }

        @Override
        public byte[][] row() {
            return current;
        }

        @Override
        public void close() {
            input.close();
        }

        @Override
        public String toString() {
            return "GroupByStreamMerger.Cursor" + Arrays.toString(types);
        }
    }
}
