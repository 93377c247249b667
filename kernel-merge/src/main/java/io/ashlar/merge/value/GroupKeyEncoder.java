package io.ashlar.merge.value;

import java.util.Arrays;

/**
 * Builds {@link GroupKey}s from rows: for each key column a NULL marker or the canonical form
 * of the value under its {@link ValueOrdering} (a NULL equals a NULL here, as GROUP BY and
 * DISTINCT treat them). Reuses one buffer; one encoder per cursor, not shared between threads.
 */
public final class GroupKeyEncoder {

    private static final byte NULL = 0;
    private static final byte VALUE = 1;

    private final int[] columns;
    private final ValueOrdering[] orderings;
    private final long[] slots = new long[2];
    private byte[] buffer = new byte[64];
    private int length;

    /**
     * @param columns the key columns of the rows to encode
     * @param orderings the ordering of each key column, in the same order
     */
    public GroupKeyEncoder(int[] columns, ValueOrdering[] orderings) {
        if (columns.length != orderings.length) {
            throw new IllegalArgumentException("one ordering per column");
        }
        this.columns = columns.clone();
        this.orderings = orderings.clone();
    }

    /** The key of a row's key columns. */
    public GroupKey encode(byte[][] row) {
        length = 0;
        for (int i = 0; i < columns.length; i++) {
            appendValue(row[columns[i]], orderings[i]);
        }
        return new GroupKey(Arrays.copyOf(buffer, length));
    }

    /** The key of one non-NULL value under the first ordering (distinct aggregate arguments). */
    public GroupKey encodeValue(byte[] value) {
        length = 0;
        orderings[0].appendCanonical(value, this);
        return new GroupKey(Arrays.copyOf(buffer, length));
    }

    private void appendValue(byte[] value, ValueOrdering ordering) {
        if (value == null) {
            ensure(1);
            buffer[length++] = NULL;
            return;
        }
        ensure(1);
        buffer[length++] = VALUE;
        ordering.appendCanonical(value, this);
    }

    long[] slots() {
        return slots;
    }

    void appendLong(long value) {
        ensure(8);
        for (int shift = 56; shift >= 0; shift -= 8) {
            buffer[length++] = (byte) (value >>> shift);
        }
    }

    void appendBytes(byte[] value, int from, int to) {
        int count = to - from;
        ensure(4 + count);
        buffer[length++] = (byte) (count >>> 24);
        buffer[length++] = (byte) (count >>> 16);
        buffer[length++] = (byte) (count >>> 8);
        buffer[length++] = (byte) count;
        System.arraycopy(value, from, buffer, length, count);
        length += count;
    }

    private void ensure(int more) {
        if (length + more > buffer.length) {
            buffer = Arrays.copyOf(buffer, Math.max(buffer.length * 2, length + more));
        }
    }
}
