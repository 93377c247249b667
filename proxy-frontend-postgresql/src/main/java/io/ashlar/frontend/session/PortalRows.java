package io.ashlar.frontend.session;

import io.ashlar.backend.execute.ErrorFields;
import io.ashlar.backend.execute.QueryResult;
import io.ashlar.backend.execute.ArrayRowView;
import io.ashlar.backend.execute.RowValues;
import io.ashlar.backend.execute.StatementFailure;
import java.util.ArrayList;

/**
 * The rows of a portal read by position, as PostgreSQL's portals are: an Execute with a row limit,
 * and FETCH and MOVE in every direction, move one position through them.
 *
 * <p>The position is 0 before the first row, k on row k, and one past the last row once the rows
 * ran out ({@code portalPos} and {@code atEnd} in PostgreSQL's pquery.c). A scrollable portal keeps
 * the rows it has read so that it can go back; a forward-only one keeps none, and answers a move
 * backwards with PostgreSQL's error.
 *
 * @see <a href="https://www.postgresql.org/docs/current/sql-fetch.html">FETCH</a>
 */
final class PortalRows {

    /** Where each row read goes. */
    interface RowConsumer {
        /** Takes one row; the view is valid until the next call. */
        void accept(RowValues row);
    }

    /** MOVE: rows are counted, not sent. */
    static final RowConsumer SKIP = row -> { };

    private final QueryResult source;
    private final ArrayList<byte[][]> kept;
    private final ArrayRowView keptView = new ArrayRowView();
    /** The row at the position when it was the last one read (forward-only portals). */
    private RowValues current;
    private long position;
    private long read;
    private boolean exhausted;

    /**
     * @param scrollable whether the portal may move backwards (it then keeps every row it read)
     */
    PortalRows(QueryResult source, boolean scrollable) {
        this.source = source;
        this.kept = scrollable ? new ArrayList<>() : null;
    }

    /** Whether a move stopped because the rows ran out (an Execute then completes). */
    boolean atEnd() {
        return exhausted && position > read;
    }

    /** The position before the latest move started: 0 when nothing was read yet. */
    long position() {
        return position;
    }

    /** FETCH FORWARD count: the next rows, up to {@code count}; how many there were. */
    long forward(long count, RowConsumer out) throws StatementFailure {
        long result = 0;
        while (result < count && step(out)) {
            result++;
        }
        return result;
    }

    /** FETCH BACKWARD count: the rows before the position, nearest first; how many there were. */
    long backward(long count, RowConsumer out) throws StatementFailure {
        requireScroll();
        long result = 0;
        while (result < count && position > 1) {
            position--;
            out.accept(keptRow(position));
            result++;
        }
        if (result < count) {
            position = 0;
        }
        return result;
    }

    /**
     * FETCH ABSOLUTE target: row {@code target} (from the end when negative), or nothing when there
     * is no such row (the position is then before the first or after the last row).
     */
    long absolute(long target, RowConsumer out) throws StatementFailure {
        if (target > 0) {
            if (target > position) {
                forward(target - position - 1, SKIP);
                return forward(1, out);
            }
            requireScroll();
            position = target;
            out.accept(keptRow(target));
            return 1;
        }
        requireScroll();
        if (target == 0) {
            position = 0;
            return 0;
        }
        forward(Long.MAX_VALUE, SKIP);
        long row = read + 1 + target;
        if (row < 1) {
            position = 0;
            return 0;
        }
        position = row;
        out.accept(keptRow(row));
        return 1;
    }

    /** FETCH RELATIVE offset: the row {@code offset} rows away; RELATIVE 0 is the current row again. */
    long relative(long offset, RowConsumer out) throws StatementFailure {
        if (offset > 0) {
            forward(offset - 1, SKIP);
            return forward(1, out);
        }
        if (offset == 0) {
            if (position < 1 || position > read) {
                return 0;
            }
            out.accept(kept != null ? keptRow(position) : current);
            return 1;
        }
        long target = position + offset;
        if (target < 1) {
            backward(Long.MAX_VALUE, SKIP);
            return 0;
        }
        return absolute(target, out);
    }

    /** Releases the source (its backend resources, if any). */
    void close() {
        source.close();
    }

    /** Moves one row forward and hands it over; false (position after the last row) when there is none. */
    private boolean step(RowConsumer out) throws StatementFailure {
        if (kept != null && position < read) {
            position++;
            out.accept(keptRow(position));
            return true;
        }
        if (exhausted || !source.next()) {
            exhausted = true;
            position = read + 1;
            return false;
        }
        read++;
        position = read;
        RowValues row = source.row();
        if (kept != null) {
            byte[][] copy = new byte[row.columnCount()][];
            for (int i = 0; i < copy.length; i++) {
                copy[i] = row.value(i);
            }
            kept.add(copy);
        }
        current = row;
        out.accept(row);
        return true;
    }

    private RowValues keptRow(long row) {
        return keptView.of(kept.get((int) (row - 1)));
    }

    private void requireScroll() throws StatementFailure {
        if (kept == null) {
            throw new StatementFailure(ErrorFields.error("55000", "cursor can only scan forward",
                    "Declare it with SCROLL option to enable backward scan."));
        }
    }
}
