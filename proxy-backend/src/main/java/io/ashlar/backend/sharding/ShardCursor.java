package io.ashlar.backend.sharding;

import io.ashlar.backend.execute.BufferedResult;
import io.ashlar.backend.execute.ColumnDescription;
import io.ashlar.backend.execute.RowValues;
import io.ashlar.merge.RowCursor;

/** One shard's buffered result as the merge engine reads it. */
final class ShardCursor implements RowCursor {

    private final BufferedResult result;
    private final int[] types;
    private byte[][] row;

    ShardCursor(BufferedResult result) {
        this.result = result;
        ColumnDescription[] columns = result.columns();
        this.types = new int[columns.length];
        for (int i = 0; i < columns.length; i++) {
            types[i] = columns[i].typeOid();
        }
    }

    @Override
    public int columnCount() {
        return types.length;
    }

    @Override
    public int typeOid(int column) {
        return types[column];
    }

    @Override
    public boolean next() {
        if (!result.next()) {
            row = null;
            return false;
        }
        RowValues values = result.row();
        byte[][] copy = new byte[types.length][];
        for (int i = 0; i < copy.length; i++) {
            copy[i] = values.value(i);
        }
        row = copy;
        return true;
    }

    @Override
    public byte[] value(int column) {
        return row[column];
    }

    @Override
    public byte[][] row() {
        return row;
    }

    @Override
    public void close() {
        row = null;
    }
}
