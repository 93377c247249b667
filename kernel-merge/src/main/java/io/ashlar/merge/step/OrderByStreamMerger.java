package io.ashlar.merge.step;

import io.ashlar.merge.MergeContext;
import io.ashlar.merge.RowCursor;
import io.ashlar.merge.plan.MergePlan;
import io.ashlar.merge.plan.SortKey;
import io.ashlar.merge.value.ColumnCollations;

import java.util.List;

/**
 * k-way merge of shard streams that are each sorted by the same keys (ShardingSphere's
 * {@code OrderByStreamMergedResult}): a binary min-heap of the shards' current rows, built
 * bottom-up in O(k) once every shard has its first row, then one sift-down per output row.
 *
 * <p>Each shard's current row has its sort keys decoded once, when the shard advances; the
 * comparisons read those slots and never allocate. Rows with equal keys come out in shard
 * order, so the result is deterministic. A single shard is passed through untouched.
 */
public final class OrderByStreamMerger implements MergeStep {

    private final List<SortKey> keys;
    private final ColumnCollations collations;

    /**
     * @param keys the order every shard returns its rows in, and the output order
     * @param collations the text collation of each column
     */
    public OrderByStreamMerger(List<SortKey> keys, ColumnCollations collations) {
        this.keys = List.copyOf(keys);
        this.collations = collations;
        if (this.keys.isEmpty()) {
            throw new IllegalArgumentException("an ORDER BY merge needs sort keys");
        }
    }

    @Override
    public RowCursor open(List<RowCursor> shards, MergeContext context) {
        RowCursor[] cursors = Shards.toArray(shards);
        if (cursors.length == 1) {
            return new IterationMerger().open(shards, context);
        }
        try {
            return new Cursor(cursors, SortKeyLayout.bindForSorting(keys, cursors[0], collations));
        } catch (RuntimeException e) {
            Shards.closeAll(cursors);
            throw e;
        }
    }

    @Override
    public String label() {
        return "OrderByStreamMerger keys=" + MergePlan.describeKeys(keys);
    }

    @Override
    public List<MergeStep> inputs() {
        return List.of();
    }

    private static final class Cursor implements RowCursor {

        private final RowCursor[] shards;
        private final SortKeyLayout layout;
        private final byte[][][] rows;
        private final long[][] slots;
        private final int[] heap;
        private int heapSize;
        private boolean started;
        private byte[][] current;

        Cursor(RowCursor[] shards, SortKeyLayout layout) {
            this.shards = shards;
            this.layout = layout;
            this.rows = new byte[shards.length][][];
            this.slots = new long[shards.length][];
            this.heap = new int[shards.length];
            for (int i = 0; i < shards.length; i++) {
                slots[i] = layout.newSlots();
            }
        }

        @Override
        public int columnCount() {
            return shards[0].columnCount();
        }

        @Override
        public int typeOid(int column) {
            return shards[0].typeOid(column);
        }

        @Override
        public boolean next() {
            if (!started) {
                started = true;
                for (int i = 0; i < shards.length; i++) {
                    if (advance(i)) {
                        heap[heapSize++] = i;
                    }
                }
                for (int i = heapSize / 2 - 1; i >= 0; i--) {
                    siftDown(i);
                }
            } else if (heapSize > 0) {
                int top = heap[0];
                if (!advance(top)) {
                    heap[0] = heap[--heapSize];
                }
                if (heapSize > 0) {
                    siftDown(0);
                }
            }
            if (heapSize == 0) {
                current = null;
                return false;
            }
            current = rows[heap[0]];
            return true;
        }

        /** Moves a shard to its next row and decodes its keys; closes it when exhausted. */
        private boolean advance(int shard) {
            RowCursor cursor = shards[shard];
            if (cursor.next()) {
                byte[][] row = cursor.row();
                rows[shard] = row;
                layout.decode(row, slots[shard]);
                return true;
            }
            rows[shard] = null;
            cursor.close();
            return false;
        }

        private void siftDown(int position) {
            int index = position;
            int shard = heap[index];
            int half = heapSize >>> 1;
            while (index < half) {
                int child = 2 * index + 1;
                int right = child + 1;
                if (right < heapSize && before(heap[right], heap[child])) {
                    child = right;
                }
                if (!before(heap[child], shard)) {
                    break;
                }
                heap[index] = heap[child];
                index = child;
            }
            heap[index] = shard;
        }

        /** Whether shard {@code a}'s row comes out before shard {@code b}'s; ties by shard order. */
        private boolean before(int a, int b) {
            int result = layout.compare(rows[a], slots[a], rows[b], slots[b]);
            return result < 0 || (result == 0 && a < b);
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
            Shards.closeAll(shards);
        }
    }
}
