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
    /** The rows read, while the portal may move backwards; null once it may not (or never could). */
    private ArrayList<byte[][]> kept;
    /** Whether the cursor was declared SCROLL: past the memory limit it fails rather than lose its way back. */
    private final boolean scrollDeclared;
    /** Bytes {@link #kept} may hold: the statement memory limit. */
    private final long keepLimit;
    private long keptBytes;
    private final ArrayRowView keptView = new ArrayRowView();
    /** The row at the position when it was the last one read (forward-only portals). */
    private RowValues current;
    private long position;
    private long read;
    private boolean exhausted;

    /** A portal that only moves forward. */
    PortalRows(QueryResult source) {
        this(source, false, false, 0);
    }

    /**
     * @param scrollable whether the portal may move backwards (it then keeps the rows it read)
     * @param scrollDeclared whether the cursor was declared SCROLL: past {@code keepLimit} bytes of kept rows its
     *        FETCH fails with 53200; a cursor declared with neither SCROLL nor NO SCROLL then stops keeping rows and
     *        scans forward only, as a PostgreSQL cursor whose plan cannot go back (a backward FETCH: 55000)
     * @param keepLimit bytes the kept rows may take (the statement memory limit)
     */
    PortalRows(QueryResult source, boolean scrollable, boolean scrollDeclared, long keepLimit) {
        this.source = source;
        this.kept = scrollable ? new ArrayList<>() : null;
        this.scrollDeclared = scrollDeclared;
        this.keepLimit = keepLimit;
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
            keep(row);
        }
        current = row;
        out.accept(row);
        return true;
    }

    /** Keeps a copy of the row for moves backwards, within the memory limit. */
    private void keep(RowValues row) throws StatementFailure {
        byte[][] copy = new byte[row.columnCount()][];
        long bytes = ROW_OVERHEAD + 16L * copy.length;
        for (int i = 0; i < copy.length; i++) {
            byte[] value = row.value(i);
            copy[i] = value;
            if (value != null) {
                bytes += value.length;
            }
        }
        keptBytes += bytes;
        if (keptBytes > keepLimit) {
            if (scrollDeclared) {
                throw new StatementFailure(ErrorFields.error("53200", "out of memory",
                        "A SCROLL cursor keeps the rows it read in the proxy; they passed proxy-statement-memory-limit ("
                                + keepLimit + " bytes) at row " + read + ". Declare it NO SCROLL, or read fewer rows."));
            }
            // From here on it scans forward only: the rows kept so far go (position == read: none is needed now).
            kept = null;
            keptBytes = 0;
            return;
        }
        kept.add(copy);
    }

    /** What a kept row costs beyond its values: the array and its slot in the list. */
    private static final long ROW_OVERHEAD = 32;

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
