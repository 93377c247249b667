package io.ashlar.merge;

import java.util.List;
import java.util.Objects;

/**
 * A {@link RowCursor} over rows already in memory: results the proxy computes itself and the
 * stand-in for a shard in tests.
 */
public final class ListRowCursor implements RowCursor {

    private final int[] typeOids;
    private final List<byte[][]> rows;
    private int position = -1;
    private boolean closed;

    /**
     * @param typeOids the type OID of each column
     * @param rows rows of exactly {@code typeOids.length} values each; kept by reference
     */
    public ListRowCursor(int[] typeOids, List<byte[][]> rows) {
        this.typeOids = typeOids.clone();
        this.rows = List.copyOf(Objects.requireNonNull(rows, "rows"));
        for (byte[][] each : this.rows) {
            if (each.length != typeOids.length) {
                throw new IllegalArgumentException("row has " + each.length + " values, expected " + typeOids.length);
            }
        }
    }

    @Override
    public int columnCount() {
        return typeOids.length;
    }

    @Override
    public int typeOid(int column) {
        return typeOids[column];
    }

    @Override
    public boolean next() {
        if (closed || position >= rows.size()) {
            return false;
        }
        position++;
        return position < rows.size();
    }

    @Override
    public byte[] value(int column) {
        return rows.get(position)[column];
    }

    @Override
    public byte[][] row() {
        return rows.get(position);
    }

    /** Whether {@link #close()} was called (tests check that merge steps release shards). */
    public boolean isClosed() {
        return closed;
    }

    @Override
    public void close() {
        closed = true;
    }
}
