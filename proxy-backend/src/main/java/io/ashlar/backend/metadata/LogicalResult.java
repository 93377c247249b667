package io.ashlar.backend.metadata;

import io.ashlar.backend.execute.ColumnDescription;
import io.ashlar.backend.execute.ErrorFields;
import io.ashlar.backend.execute.QueryResult;
import io.ashlar.backend.execute.RowValues;
import io.ashlar.backend.execute.StatementFailure;
import java.util.List;

/**
 * A result seen through other columns and notices: a data source's, in logical names. The notices
 * raised before its rows are the renamed ones; those the result gathers later (raised row by row)
 * follow as raised, and the session renames them as it sends them ({@code BackendSession.lateNotice}).
 */
final class LogicalResult implements QueryResult {
    private final QueryResult result;
    private final ColumnDescription[] columns;
    private List<ErrorFields> notices;
    /** How many of the result's own notices {@link #notices} stands for (-1: it is the result's own list). */
    private int taken;
    private boolean owned;

    LogicalResult(QueryResult result, ColumnDescription[] columns, List<ErrorFields> notices) {
        this.result = result;
        this.columns = columns;
        this.notices = notices;
        this.taken = notices == result.notices() ? -1 : result.notices().size();
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
        if (taken < 0) {
            return result.notices();
        }
        List<ErrorFields> raised = result.notices();
        int size = raised.size();
        if (size > taken) {
            if (!owned) {
                notices = new java.util.ArrayList<>(notices);
                owned = true;
            }
            notices.addAll(raised.subList(taken, size));
            taken = size;
        }
        return notices;
    }

    @Override
    public void close() {
        result.close();
    }
}
