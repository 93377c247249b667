package io.ashlar.backend.metadata;

import io.ashlar.backend.execute.ColumnDescription;
import io.ashlar.backend.execute.ErrorFields;
import io.ashlar.backend.execute.QueryResult;
import io.ashlar.backend.execute.RowValues;
import io.ashlar.backend.execute.StatementFailure;
import java.util.List;

/** A result seen through other columns and notices: a data source's, in logical names. */
final class LogicalResult implements QueryResult {
    private final QueryResult result;
    private final ColumnDescription[] columns;
    private final List<ErrorFields> notices;

    LogicalResult(QueryResult result, ColumnDescription[] columns, List<ErrorFields> notices) {
        this.result = result;
        this.columns = columns;
        this.notices = notices;
    }

    @Override
    public boolean hasRows() {
        return result.hasRows();
    }

    @Override
    public ColumnDescription[] columns() {
        return columns == null ? result.columns() : columns;
    }

    @Override
    public boolean next() throws StatementFailure {
        return result.next();
    }

    @Override
    public RowValues row() {
        return result.row();
    }

    @Override
    public String tag() {
        return result.tag();
    }

    @Override
    public boolean isEmptyQuery() {
        return result.isEmptyQuery();
    }

    @Override
    public short[] rowFormats() {
        return result.rowFormats();
    }

    @Override
    public List<ErrorFields> notices() {
        return notices;
    }

    @Override
    public void close() {
        result.close();
    }
}
