package io.ashlar.merge.aggregate;

import io.ashlar.merge.value.IntegerText;

/** {@code COUNT}: adds the shards' {@code bigint} counts; 0 for no rows, never NULL. */
public final class CountAccumulator implements Accumulator {

    private final int column;
    private long count;

    CountAccumulator(int column) {
        this.column = column;
    }

    @Override
    public void reset() {
        count = 0;
    }

    @Override
    public void add(byte[][] row) {
        byte[] value = row[column];
        if (value != null) {
            count = Math.addExact(count, IntegerText.parse(value));
        }
    }

    @Override
    public byte[] result() {
        return IntegerText.format(count);
    }
}
