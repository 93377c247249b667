package io.ashlar.merge.step;

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
    public RowCursor open(List<RowCursor> shards) {
        RowCursor source = input.open(shards);
        try {
            return new Cursor(source, SortKeyLayout.bindForSorting(keys, source, collations));
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
        private List<SortedRow> sorted;
        private int position = -1;
        private byte[][] current;

        Cursor(RowCursor input, SortKeyLayout layout) {
            this.input = input;
            this.layout = layout;
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
                sorted.set(position, null);
            }
            position++;
            if (position >= sorted.size()) {
                current = null;
                return false;
            }
            current = sorted.get(position).row();
            return true;
        }

        private List<SortedRow> load() {
            List<SortedRow> result = new ArrayList<>();
            while (input.next()) {
                byte[][] row = input.row();
                long[] slots = layout.newSlots();
                layout.decode(row, slots);
                result.add(new SortedRow(row, slots));
            }
            input.close();
            result.sort((a, b) -> layout.compare(a.row(), a.slots(), b.row(), b.slots()));
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
        }
    }
}
