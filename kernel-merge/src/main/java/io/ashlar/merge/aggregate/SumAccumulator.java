package io.ashlar.merge.aggregate;

/**
 * {@code SUM}: adds the shards' sums in SUM's result type (the shards' column type);
 * NULL when every shard's sum is NULL.
 */
public final class SumAccumulator implements Accumulator {

    private final int column;
    private final SumState sum;

    SumAccumulator(int column, SumState.Mode mode) {
        this.column = column;
        this.sum = new SumState(mode, false);
    }

    @Override
    public void reset() {
        sum.reset();
    }

    @Override
    public void add(byte[][] row) {
        byte[] value = row[column];
        if (value != null) {
            sum.add(value);
        }
    }

    @Override
    public byte[] result() {
        return sum.sumText();
    }
}
