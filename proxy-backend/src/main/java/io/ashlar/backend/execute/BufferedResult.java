package io.ashlar.backend.execute;

import java.sql.SQLException;
import java.sql.SQLWarning;
import java.util.ArrayList;
import java.util.List;
import org.postgresql.core.Field;
import org.postgresql.core.Query;
import org.postgresql.core.ResultCursor;
import org.postgresql.core.ResultHandlerBase;
import org.postgresql.core.Tuple;
import org.postgresql.util.PSQLWarning;

/**
 * One statement's whole result, kept until the client has read it: the portal of an extended
 * query, which the client may read in pieces (Execute with a row limit). Also the handler that
 * collects it.
 */
public final class BufferedResult extends ResultHandlerBase implements QueryResult {

    private static final List<ErrorFields> NO_NOTICES = List.of();

    private ColumnDescription[] columns;
    private List<Tuple> rows = List.of();
    private String tag = "";
    private boolean empty;
    private List<ErrorFields> notices = NO_NOTICES;
    private SQLException error;
    private final TupleRow view = new TupleRow();
    private int position = -1;

    @Override
    public void handleResultRows(Query fromQuery, Field[] fields, List<Tuple> tuples, ResultCursor cursor) {
        columns = Columns.of(fields);
        rows = tuples;
    }

    @Override
    public void handleCommandStatus(String status, long updateCount, long insertOID) {
        if ("EMPTY".equals(status)) {
            empty = true;
        } else {
            tag = status;
        }
    }

    @Override
    public void handleWarning(SQLWarning warning) {
        if (warning instanceof PSQLWarning w && w.getServerErrorMessage() != null) {
            if (notices == NO_NOTICES) {
                notices = new ArrayList<>(2);
            }
            notices.add(ErrorFields.from(w.getServerErrorMessage()));
        }
    }

    @Override
    public void handleError(SQLException e) {
        if (error == null) {
            error = e;
        }
    }

    @Override
    public void handleCompletion() {
        // Errors are read by the caller from error().
    }

    public SQLException error() {
        return error;
    }

    @Override
    public boolean hasRows() {
        return columns != null;
    }

    @Override
    public ColumnDescription[] columns() {
        return columns;
    }

    public int rowCount() {
        return rows.size();
    }

    /** A view of one row, valid until the next call. */
    public RowValues row(int index) {
        return view.point(rows.get(index));
    }

    @Override
    public boolean next() {
        if (position + 1 < rows.size()) {
            position++;
            return true;
        }
        position = rows.size();
        return false;
    }

    @Override
    public RowValues row() {
        return view.point(rows.get(position));
    }

    @Override
    public String tag() {
        return tag;
    }

    @Override
    public boolean isEmptyQuery() {
        return empty;
    }

    @Override
    public List<ErrorFields> notices() {
        return notices;
    }
}
