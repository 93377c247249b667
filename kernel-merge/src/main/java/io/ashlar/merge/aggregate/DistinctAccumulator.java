package io.ashlar.merge.aggregate;

import io.ashlar.merge.value.GroupKey;
import io.ashlar.merge.value.GroupKeyEncoder;
import io.ashlar.merge.value.IntegerText;

import java.util.HashSet;
import java.util.Set;

/**
 * {@code COUNT(DISTINCT x)}, {@code SUM(DISTINCT x)} and {@code AVG(DISTINCT x)}: the shards
 * return x grouped (each value once per shard and group); the proxy keeps the group's distinct
 * non-NULL values by PostgreSQL equality ({@code 1.0} and {@code 1.00} are one value) and
 * aggregates each the first time it appears.
 */
public final class DistinctAccumulator implements Accumulator {

    /** Which aggregate runs over the distinct values. */
    enum Function {
        COUNT,
        SUM,
        AVG
    }

    private final int argumentColumn;
    private final Function function;
    private final GroupKeyEncoder encoder;
    private final SumState sum;
    private final Set<GroupKey> seen = new HashSet<>();

    DistinctAccumulator(int argumentColumn, Function function, GroupKeyEncoder encoder, SumState.Mode mode, boolean realInput) {
        this.argumentColumn = argumentColumn;
        this.function = function;
        this.encoder = encoder;
        this.sum = new SumState(mode, realInput);
    }

    @Override
    public void reset() {
        seen.clear();
        sum.reset();
    }

    @Override
    public void add(byte[][] row) {
        byte[] value = row[argumentColumn];
        if (value == null || !seen.add(encoder.encodeValue(value))) {
            return;
        }
        if (function != Function.COUNT) {
            sum.add(value);
        }
    }

    @Override
    public byte[] result() {
        return switch (function) {
            case COUNT -> IntegerText.format(seen.size());
            case SUM -> sum.sumText();
            case AVG -> sum.averageText(seen.size());
        };
    }
}
