package io.ashlar.merge.step;

import io.ashlar.merge.MergeContext;
import io.ashlar.merge.RowCursor;

import java.util.List;
import java.util.OptionalLong;

/**
 * LIMIT and OFFSET, applied last (ShardingSphere's {@code LimitDecoratorMergedResult}, vitess's
 * {@code limit}): each shard was asked for {@code LIMIT n+m} because any of them may hold the
 * first rows; the proxy skips {@code m} merged rows and returns {@code n}. Once the limit is
 * reached the input is closed, releasing the shards early
 * (<a href="https://www.postgresql.org/docs/current/queries-limit.html">LIMIT and OFFSET</a>).
 */
public final class LimitDecorator implements MergeStep {

    private final MergeStep input;
    private final long offset;
    private final OptionalLong limit;

    /**
     * @param input the rows
     * @param offset rows to skip
     * @param limit rows to return after them, empty for all
     */
    public LimitDecorator(MergeStep input, long offset, OptionalLong limit) {
        if (offset < 0 || limit.orElse(0) < 0) {
            throw new IllegalArgumentException("negative OFFSET or LIMIT");
        }
        this.input = input;
        this.offset = offset;
        this.limit = limit;
    }

    /** The step this one limits. */
    public MergeStep input() {
        return input;
    }

    @Override
    public RowCursor open(List<RowCursor> shards, MergeContext context) {
        return new Cursor(input.open(shards, context), offset, limit.orElse(Long.MAX_VALUE));
    }

    @Override
    public String label() {
        return "LimitDecorator offset=" + offset + " limit=" + (limit.isPresent() ? Long.toString(limit.getAsLong()) : "ALL");
    }

    @Override
    public List<MergeStep> inputs() {
        return List.of(input);
    }

    private static final class Cursor implements RowCursor {

        private final RowCursor input;
        private long toSkip;
        private long remaining;

        Cursor(RowCursor input, long offset, long limit) {
            this.input = input;
            this.toSkip = offset;
            this.remaining = limit;
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
            if (remaining == 0) {
                // limit reached (or input exhausted): release the shards before they send the rest
                input.close();
                return false;
            }
            while (toSkip > 0) {
                if (!input.next()) {
                    toSkip = 0;
                    remaining = 0;
                    input.close();
                    return false;
                }
                toSkip--;
            }
            if (!input.next()) {
                remaining = 0;
                input.close();
                return false;
            }
            remaining--;
            return true;
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
        }
    }
}
