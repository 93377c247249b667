package io.ashlar.merge.step;

import io.ashlar.merge.MemoryBudget;
import io.ashlar.merge.MergeContext;
import io.ashlar.merge.RowCursor;
import io.ashlar.merge.value.ColumnCollations;
import io.ashlar.merge.value.GroupKey;
import io.ashlar.merge.value.GroupKeyEncoder;
import io.ashlar.merge.value.ValueOrdering;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * {@code SELECT DISTINCT} across shards: each shard's rows are distinct already, but the same
 * row may come from several shards. Passes each row whose visible columns were not seen before,
 * by PostgreSQL equality ({@code 1.0} and {@code 1.00} are the same, NULL equals NULL as
 * DISTINCT treats it, per <a href="https://www.postgresql.org/docs/current/sql-select.html#SQL-DISTINCT">DISTINCT Clause</a>).
 * Streams, and keeps its input's order, so it may sit above a sorted merge; memory: the distinct
 * rows seen.
 */
public final class DistinctMerger implements MergeStep {

    private final MergeStep input;
    private final int columnCount;
    private final ColumnCollations collations;

    /**
     * @param input the rows
     * @param columnCount the leading columns that make a row distinct (the visible ones)
     * @param collations the text collation of each column
     */
    public DistinctMerger(MergeStep input, int columnCount, ColumnCollations collations) {
        this.input = input;
        this.columnCount = columnCount;
        this.collations = collations;
    }

    @Override
    public RowCursor open(List<RowCursor> shards, MergeContext context) {
        RowCursor source = input.open(shards, context);
        int[] columns = new int[columnCount];
        ValueOrdering[] orderings = new ValueOrdering[columnCount];
        for (int i = 0; i < columnCount; i++) {
            columns[i] = i;
            orderings[i] = collations.ordering(i, source.typeOid(i));
        }
        return new Cursor(source, new GroupKeyEncoder(columns, orderings), context);
    }

    @Override
    public String label() {
        return "DistinctMerger columns=" + columnCount;
    }

    @Override
    public List<MergeStep> inputs() {
        return List.of(input);
    }

    private static final class Cursor implements RowCursor {

        private final RowCursor input;
        private final GroupKeyEncoder encoder;
        private final Set<GroupKey> seen = new HashSet<>();
        private final MergeContext context;
        private long charged;

        Cursor(RowCursor input, GroupKeyEncoder encoder, MergeContext context) {
            this.input = input;
            this.encoder = encoder;
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
            while (input.next()) {
                byte[][] row = input.row();
                if (seen.add(encoder.encode(row))) {
                    long bytes = MemoryBudget.rowBytes(row) + 48; // the key and the set's entry
                    context.budget().charge(bytes);
                    charged += bytes;
                    return true;
                }
            }
            return false;
        }

        @Override
        public byte[] value(int column) {
            return input.value(column);
        }

        @Override
        public byte[][] row() {
            return input.row();
        }

        @Override
        public void close() {
            input.close();
            seen.clear();
            context.budget().release(charged);
            charged = 0;
        }
    }
}
