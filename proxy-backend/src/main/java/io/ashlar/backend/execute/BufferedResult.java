package io.ashlar.backend.execute;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * One statement's whole result, kept until the client has read it: the portal of an extended
 * query, which the client may read in pieces (Execute with a row limit). Also the replies that
 * collect it.
 */
public final class BufferedResult implements BackendReplies, QueryResult {

    private static final List<ErrorFields> NO_NOTICES = List.of();

    private ColumnDescription[] columns;
    private final List<byte[][]> rows = new ArrayList<>();
    private String tag = "";
    private boolean empty;
    private List<ErrorFields> notices = NO_NOTICES;
    private SQLException error;
    private final ArrayRowView view = new ArrayRowView();
    private int position = -1;
    private final io.ashlar.merge.MemoryBudget budget;
    private short[] rowFormats;

    /** A result kept whole with no limit (the proxy's own small answers). */
    public BufferedResult() {
        this(null);
    }

    /**
     * A result kept whole within a statement's budget: past it the result fails with 53200 and
     * keeps no more rows (the rest of the answer is still read, so the connection stays usable).
     */
    public BufferedResult(io.ashlar.merge.MemoryBudget budget) {
        this.budget = budget;
    }

    @Override
    public void columns(ColumnDescription[] columns) {
        this.columns = columns;
    }

    @Override
    public void row(RowValues row) {
        if (error != null && budget != null) {
            return;
        }
        byte[][] copy = new byte[row.columnCount()][];
        for (int i = 0; i < copy.length; i++) {
            copy[i] = row.value(i);
        }
        if (budget != null) {
            try {
                budget.charge(io.ashlar.merge.MemoryBudget.rowBytes(copy) + 8);
            } catch (io.ashlar.merge.MemoryBudget.MemoryLimitExceededException e) {
                rows.clear();
                handleError(new BackendError(io.ashlar.backend.datasource.UnitStreams.outOfMemory(e)));
                return;
            }
        }
        rows.add(copy);
    }

    @Override
    public void complete(String commandTag) {
        tag = commandTag;
    }

    @Override
    public void empty() {
        empty = true;
    }

    @Override
    public void notice(ErrorFields notice) {
        if (notices == NO_NOTICES) {
            notices = new ArrayList<>(2);
        }
        notices.add(notice);
    }

    @Override
    public void handleError(SQLException e) {
        if (error == null) {
            error = e;
        }
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
        return view.of(rows.get(index));
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
        return view.of(rows.get(position));
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

    /** The rows were asked for in these result format codes (the client's): see {@link QueryResult#rowFormats()}. */
    public void rowFormats(short[] formats) {
        this.rowFormats = formats;
    }

    @Override
    public short[] rowFormats() {
        return rowFormats;
    }
}
