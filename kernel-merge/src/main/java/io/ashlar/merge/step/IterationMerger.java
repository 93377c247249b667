package io.ashlar.merge.step;

import io.ashlar.merge.MergeContext;
import io.ashlar.merge.RowCursor;

import java.util.List;

/**
 * Reads the shards one after another: the merge for statements whose result has no order to
 * keep (ShardingSphere's {@code IteratorStreamMergedResult}). Each shard is closed as soon as it
 * is exhausted, which releases its connection early.
 */
public final class IterationMerger implements MergeStep {

    @Override
    public RowCursor open(List<RowCursor> shards, MergeContext context) {
        return new Cursor(Shards.toArray(shards));
    }

    @Override
    public String label() {
        return "IterationMerger";
    }

    @Override
    public List<MergeStep> inputs() {
        return List.of();
    }

    private static final class Cursor implements RowCursor {

        private final RowCursor[] shards;
        private int index;
        private RowCursor current;

        Cursor(RowCursor[] shards) {
            this.shards = shards;
            this.current = shards[0];
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
            while (index < shards.length) {
                if (current.next()) {
                    return true;
                }
                current.close();
                index++;
                if (index < shards.length) {
                    current = shards[index];
                }
            }
            return false;
        }

        @Override
        public byte[] value(int column) {
            return current.value(column);
        }

        @Override
        public byte[][] row() {
            return current.row();
        }

        @Override
        public void close() {
            Shards.closeAll(shards);
        }
    }
}
