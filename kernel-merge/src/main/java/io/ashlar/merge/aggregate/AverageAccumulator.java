package io.ashlar.merge.aggregate;

import io.ashlar.merge.value.IntegerText;

/**
 * {@code AVG}: the total of the shards' derived {@code SUM(x)} divided by the total of their
 * {@code COUNT(x)}, with the arithmetic and digits of PostgreSQL's {@code avg} for the argument
 * type (see {@link SumState#averageText(long)}); NULL when the count is 0.
 */
public final class AverageAccumulator implements Accumulator {

    private final int sumColumn;
    private final int countColumn;
    private final SumState sum;
    private long count;

    AverageAccumulator(int sumColumn, int countColumn, SumState.Mode mode, boolean realInput) {
        this.sumColumn = sumColumn;
        this.countColumn = countColumn;
        this.sum = new SumState(mode, realInput);
    }

    @Override
    public void reset() {
        sum.reset();
        count = 0;
    }

    @Override
    public void add(byte[][] row) {
        byte[] partialSum = row[sumColumn];
        if (partialSum != null) {
            sum.add(partialSum);
        }
        byte[] partialCount = row[countColumn];
        if (partialCount != null) {
            count = Math.addExact(count, IntegerText.parse(partialCount));
        }
    }

    @Override
    public byte[] result() {
        return sum.averageText(count);
    }
}
