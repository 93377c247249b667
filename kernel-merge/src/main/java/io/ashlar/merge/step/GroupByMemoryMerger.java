package io.ashlar.merge.step;

import io.ashlar.merge.MemoryBudget;
import io.ashlar.merge.MergeContext;
import io.ashlar.merge.RowCursor;
import io.ashlar.merge.aggregate.Accumulator;
import io.ashlar.merge.aggregate.AggregateLayout;
import io.ashlar.merge.plan.Aggregate;
import io.ashlar.merge.plan.MergePlan;
import io.ashlar.merge.plan.SortKey;
import io.ashlar.merge.value.ColumnCollations;
import io.ashlar.merge.value.GroupKey;
import io.ashlar.merge.value.GroupKeyEncoder;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Merges groups in memory (ShardingSphere's {@code GroupByMemoryMergedResult}): for shard rows
 * in no useful order, every row is added to its group in a hash map keyed by an immutable
 * {@link GroupKey} with a cached hash, then the groups are emitted in the order they first
 * appeared. Memory: every group. The input is drained (and its shards closed) on the first
 * {@link RowCursor#next()}.
 */
public final class GroupByMemoryMerger implements MergeStep {

    private final MergeStep input;
    private final List<SortKey> keys;
    private final List<Aggregate> aggregates;
    private final ColumnCollations collations;

    /**
     * @param input rows in any order
     * @param keys the group keys, at least one (their direction is irrelevant here)
     * @param aggregates the aggregates to merge per group
     * @param collations the text collation of each column
     */
    public GroupByMemoryMerger(MergeStep input, List<SortKey> keys, List<Aggregate> aggregates, ColumnCollations collations) {
        this.input = input;
        this.keys = List.copyOf(keys);
        this.aggregates = List.copyOf(aggregates);
        this.collations = collations;
        if (this.keys.isEmpty()) {
            throw new IllegalArgumentException("an in-memory GROUP BY merge needs group keys");
        }
    }

    @Override
    public RowCursor open(List<RowCursor> shards, MergeContext context) {
        RowCursor source = input.open(shards, context);
        try {
            SortKeyLayout layout = SortKeyLayout.bind(keys, source, collations);
            return new Cursor(source, new GroupKeyEncoder(layout.columns(), layout.orderings()),
                    AggregateLayout.bind(aggregates, source, collations), context);
        } catch (RuntimeException e) {
            source.close();
            throw e;
        }
    }

    @Override
    public String label() {
        return "GroupByMemoryMerger keys=" + MergePlan.describeKeys(keys) + " aggregates=" + AggregateLayout.describe(aggregates);
    }

    @Override
    public List<MergeStep> inputs() {
        return List.of(input);
    }

    /** One group: the row whose other columns it reports, and its accumulators. */
    private record Group(byte[][] firstRow, Accumulator[] accumulators) {
    }

    private static final class Cursor implements RowCursor {

        private final RowCursor input;
        private final GroupKeyEncoder encoder;
        private final AggregateLayout layout;
        private final int[] types;
        private final MergeContext context;
        private Iterator<Group> groups;
        private byte[][] current;
        private long charged;

        Cursor(RowCursor input, GroupKeyEncoder encoder, AggregateLayout layout, MergeContext context) {
            this.input = input;
            this.encoder = encoder;
            this.layout = layout;
            this.types = layout.outputTypes(input);
            this.context = context;
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
            if (groups == null) {
                groups = load().values().iterator();
            }
            if (!groups.hasNext()) {
                current = null;
                return false;
            }
            Group group = groups.next();
            groups.remove();
            current = layout.finish(group.accumulators(), group.firstRow());
            return true;
        }

        private Map<GroupKey, Group> load() {
            Map<GroupKey, Group> result = new LinkedHashMap<>();
            while (input.next()) {
                byte[][] row = input.row();
                GroupKey key = encoder.encode(row);
                Group group = result.get(key);
                if (group == null) {
                    group = new Group(row, layout.newAccumulators());
                    // The group's first row, its key (about as large again), its accumulators, the map's entry.
                    long bytes = 2 * MemoryBudget.rowBytes(row) + 64L * group.accumulators().length + 64;
                    context.budget().charge(bytes);
                    charged += bytes;
                    result.put(key, group);
                }
                AggregateLayout.add(group.accumulators(), row);
            }
            input.close();
            return result;
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
            groups = List.<Group>of().iterator();
            context.budget().release(charged);
            charged = 0;
        }
    }
}
