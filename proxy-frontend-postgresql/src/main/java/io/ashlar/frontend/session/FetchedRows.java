package io.ashlar.frontend.session;

import io.ashlar.backend.execute.ColumnDescription;
import io.ashlar.backend.execute.ErrorFields;
import io.ashlar.backend.execute.QueryResult;
import io.ashlar.backend.execute.RowValues;
import java.util.List;

/**
 * What one FETCH returned from a cursor: its rows, with the cursor's columns and, for a simple
 * query, the cursor's formats (a BINARY cursor's rows are binary).
 */
final class FetchedRows implements QueryResult, RowValues {

    private final ColumnDescription[] columns;
    private final short[] cursorFormats;
    private final List<byte[][]> rows;
    private final String tag;
    private int index = -1;

    FetchedRows(ColumnDescription[] columns, short[] cursorFormats, List<byte[][]> rows, String tag) {
        this.columns = columns;
        this.cursorFormats = cursorFormats;
        this.rows = rows;
        this.tag = tag;
    }

    /** The formats the cursor was declared with: all binary for DECLARE ... BINARY, else text. */
    short[] cursorFormats() {
        return cursorFormats;
    }

    @Override
    public boolean hasRows() {
        return true;
    }

    @Override
    public ColumnDescription[] columns() {
        return columns;
    }

    @Override
    public boolean next() {
        return ++index < rows.size();
    }

    @Override
    public RowValues row() {
        return this;
    }

    @Override
    public int columnCount() {
        return columns.length;
    }

    @Override
    public byte[] value(int column) {
        return rows.get(index)[column];
    }

    @Override
    public String tag() {
        return tag;
    }

    @Override
    public boolean isEmptyQuery() {
        return false;
    }

    @Override
    public List<ErrorFields> notices() {
        return List.of();
    }
}
