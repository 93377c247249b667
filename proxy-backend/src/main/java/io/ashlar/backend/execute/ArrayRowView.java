package io.ashlar.backend.execute;

/**
 * A row of values held as arrays, seen through {@link RowValues}; one instance is reused from
 * row to row (a row read from the backend, a buffered row, a cursor's kept row).
 */
public final class ArrayRowView implements RowValues {
    private byte[][] values;

    /** Shows {@code row} (kept by reference) and returns this view. */
    public ArrayRowView of(byte[][] row) {
        values = row;
        return this;
    }

    @Override
    public int columnCount() {
        return values.length;
    }

    @Override
    public byte[] value(int column) {
        return values[column];
    }
}
