package io.ashlar.merge.step;

import io.ashlar.merge.MergeContext;
import io.ashlar.merge.RowCursor;

import java.util.Arrays;
import java.util.List;

/**
 * Hides the derived columns the rewriter appended for the merge (ORDER BY keys not selected,
 * AVG's SUM and COUNT, HAVING aggregates), so the client sees exactly the columns it selected.
 * {@link RowCursor#value(int)} reads through without copying; {@link RowCursor#row()} copies
 * the visible prefix once per row, on demand.
 */
public final class DerivedColumnStripper implements MergeStep {

    private final MergeStep input;
    private final int visibleColumnCount;

    public DerivedColumnStripper(MergeStep input, int visibleColumnCount) {
        this.input = input;
        this.visibleColumnCount = visibleColumnCount;
    }

    @Override
    public RowCursor open(List<RowCursor> shards, MergeContext context) {
        return new Cursor(input.open(shards, context), visibleColumnCount);
    }

    @Override
    public String label() {
        return "DerivedColumnStripper visible=" + visibleColumnCount;
    }

    @Override
    public List<MergeStep> inputs() {
        return List.of(input);
    }

    private static final class Cursor implements RowCursor {

        private final RowCursor input;
        private final int visibleColumnCount;
        private byte[][] visibleRow;

        Cursor(RowCursor input, int visibleColumnCount) {
            this.input = input;
            this.visibleColumnCount = visibleColumnCount;
        }

        @Override
        public int columnCount() {
            return visibleColumnCount;
        }

        @Override
        public int typeOid(int column) {
            return input.typeOid(column);
        }

        @Override
        public boolean next() {
            visibleRow = null;
            return input.next();
        }

        @Override
        public byte[] value(int column) {
            return input.value(column);
        }

        @Override
        public byte[][] row() {
            if (visibleRow == null) {
                visibleRow = Arrays.copyOf(input.row(), visibleColumnCount);
            }
            return visibleRow;
        }

        @Override
        public void close() {
            input.close();
        }
    }
}
