package io.ashlar.bench.jmh;

import io.ashlar.merge.RowCursor;

/**
 * One shard's rows held in memory, rewound before each benchmark operation so that the merge is
 * measured without building the rows again. Rows are never modified, as {@link RowCursor}
 * requires.
 */
final class ArrayRowCursor implements RowCursor {

    private final int[] typeOids;
    private final byte[][][] rows;
    private int position;
    private boolean closed;

    ArrayRowCursor(int[] typeOids, byte[][][] rows) {
        this.typeOids = typeOids;
        this.rows = rows;
        rewind();
    }

    /** Back to before the first row, open again. */
    void rewind() {
        position = -1;
        closed = false;
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
        if (closed || position >= rows.length) {
            return false;
        }
        position++;
        return position < rows.length;
    }

    @Override
    public byte[] value(int column) {
        return rows[position][column];
    }

    @Override
    public byte[][] row() {
        return rows[position];
    }

    @Override
    public void close() {
        closed = true;
    }
}
