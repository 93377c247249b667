package io.ashlar.backend.sharding;

import io.ashlar.backend.datasource.UnitStream;
import io.ashlar.backend.execute.ColumnDescription;
import io.ashlar.merge.RowCursor;
import java.sql.SQLException;

/** One shard's streamed answer as the merge engine reads it: each row as the merge asks for it. */
final class StreamCursor implements RowCursor {

    /** A shard's failure on the way (a backend error, a lost connection), carried through the merge. */
    static final class ShardFailure extends RuntimeException {
        ShardFailure(SQLException cause) {
            super(cause.getMessage(), cause, false, false);
        }

        @Override
        public synchronized SQLException getCause() {
            return (SQLException) super.getCause();
        }
    }

    private final UnitStream unit;
    private final int[] types;
    private byte[][] row;

    StreamCursor(UnitStream unit) {
        this.unit = unit;
        ColumnDescription[] columns = unit.columns();
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
        try {
            row = unit.nextRow();
        } catch (SQLException e) {
            row = null;
            throw new ShardFailure(e);
        }
        return row != null;
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
        unit.close();
    }
}
