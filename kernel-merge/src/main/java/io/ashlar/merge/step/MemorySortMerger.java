package io.ashlar.merge.step;

import io.ashlar.merge.MemoryBudget;
import io.ashlar.merge.MergeContext;
import io.ashlar.merge.RowCursor;
import io.ashlar.merge.plan.MergePlan;
import io.ashlar.merge.plan.SortKey;
import io.ashlar.merge.value.ColumnCollations;

import java.util.ArrayList;
import java.util.List;

/**
 * Sorts its whole input in memory (vitess's {@code memory_sort}): for an ORDER BY the shards
 * could not sort by, such as one over aggregates ({@code ORDER BY count(*) DESC}) or over groups
 * merged in memory. Keys are decoded once per row; the sort is stable.
 */
public final class MemorySortMerger implements MergeStep {

    private final MergeStep input;
    private final List<SortKey> keys;
    private final ColumnCollations collations;

    public MemorySortMerger(MergeStep input, List<SortKey> keys, ColumnCollations collations) {
        this.input = input;
        this.keys = List.copyOf(keys);
        this.collations = collations;
        if (this.keys.isEmpty()) {
            throw new IllegalArgumentException("a sort needs keys");
        }
    }

    @Override
    public RowCursor open(List<RowCursor> shards, MergeContext context) {
        RowCursor source = input.open(shards, context);
        try {
            return new Cursor(source, SortKeyLayout.bindForSorting(keys, source, collations), context);
        } catch (RuntimeException e) {
            source.close();
            throw e;
        }
    }

    @Override
    public String label() {
        return "MemorySortMerger keys=" + MergePlan.describeKeys(keys);
    }

    @Override
    public List<MergeStep> inputs() {
        return List.of(input);
    }

    /** A row with its decoded sort keys. */
    private record SortedRow(byte[][] row, long[] slots) {
    }

    private static final class Cursor implements RowCursor {

        private final RowCursor input;
        private final SortKeyLayout layout;
        private final MergeContext context;
        private List<SortedRow> sorted;
        private int position = -1;
        private byte[][] current;
        private long charged;

        Cursor(RowCursor input, SortKeyLayout layout, MergeContext context) {
            this.input = input;
            this.layout = layout;
            this.context = context;
        }

        @Override
        public int columnCount() {
            return input.columnCount();
        }

        @Override
        public int typeOid(int column) {
            return input.typeOid(column);
        }

        @Override
        public boolean next() {
            if (sorted == null) {
                sorted = load();
            }
            if (position >= 0 && position < sorted.size()) {
                SortedRow done = sorted.set(position, null);
                long bytes = bytes(done);
                charged -= bytes;
                context.budget().release(bytes);
            }
            position++;
            if (position >= sorted.size()) {
                current = null;
                return false;
            }
            current = sorted.get(position).row();
            return true;
        }

        /**
         * Reads every row (on this thread: the shards' answers arrive here), charging each to the
         * budget, then sorts them, on the CPU executor when they are many.
         */
        private List<SortedRow> load() {
            List<SortedRow> result = new ArrayList<>();
            while (input.next()) {
                byte[][] row = input.row();
                long[] slots = layout.newSlots();
                SortedRow sortedRow = new SortedRow(row, slots);
                long bytes = bytes(sortedRow);
                context.budget().charge(bytes);
                charged += bytes;
                layout.decode(row, slots);
                result.add(sortedRow);
            }
            input.close();
            return context.compute(result.size(), () -> {
                result.sort((a, b) -> layout.compare(a.row(), a.slots(), b.row(), b.slots()));
                return result;
            });
        }

        /** A kept row's estimated heap: the row, its key slots, the record and its list slot. */
        private static long bytes(SortedRow row) {
            return MemoryBudget.rowBytes(row.row()) + 16 + 8L * row.slots().length + 32;
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
            sorted = List.of();
            position = -1;
            context.budget().release(charged);
            charged = 0;
        }
    }
}
