package io.ashlar.backend.datasource;

import io.ashlar.backend.execute.ArrayRowView;
import io.ashlar.backend.execute.BackendError;
import io.ashlar.backend.execute.ColumnDescription;
import io.ashlar.backend.execute.ErrorFields;
import io.ashlar.backend.execute.FrameRowView;
import io.ashlar.backend.execute.QueryResult;
import io.ashlar.backend.execute.RowValues;
import io.ashlar.backend.execute.StatementFailure;
import io.ashlar.merge.MemoryBudget;
import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * One unit's answer (one shard's statement), read off its backend connection as its reader asks
 * for rows instead of whole before anything reaches the client. The rows wait in the backend's
 * socket and in the connection's hand-over queue, which stops reading from the backend past a few
 * MB ({@code LinkCall}): a client that does not read stops the backend, and the proxy holds no
 * more than that per connection.
 *
 * <p>Rows are kept in memory only when they must be: the rows of one portal fetch
 * ({@link UnitStreams#portals}), and the rest of an answer when another statement of the session
 * needs the connection before the reader is done (a portal the client reads in pieces while it runs
 * other statements); those are charged to the statement's {@link MemoryBudget}, and past it the
 * unit fails with 53200.
 */
public final class UnitStream implements QueryResult {

    final UnitStreams.Group group;
    final int index;
    final MemoryBudget budget;
    ColumnDescription[] columns;
    String tag = "";
    boolean empty;
    final List<ErrorFields> notices = new ArrayList<>(0);
    SQLException error;
    /** The header is known: columns, or the end of a statement that returns none. */
    boolean headed;
    /** No row is left to read from the backend (the queue may still hold some). */
    boolean complete;
    boolean closed;
    /** Rows read off the connection before the reader asked (a detach, a portal fetch): most units never queue one. */
    final ArrayDeque<byte[][]> queued = new ArrayDeque<>(0);
    private long queuedBytes;
    /** Of {@link #queuedBytes}, those of portal fetches, which hold no budget. */
    private long unchargedBytes;
    private final ArrayRowView view = new ArrayRowView();
    private byte[][] current;
    /**
     * Whether rows read straight off the connection stay DataRow bodies ({@link #relayFrames()}); rows kept
     * in the queue are always split into values.
     */
    boolean frames;
    /** The body of the current row, when {@link #current} is {@link #FRAME}. */
    private byte[] currentFrame;
    private final FrameRowView frameView = new FrameRowView();
    /** Stands for "the current row is {@link #currentFrame}" where a row of values would be. */
    static final byte[][] FRAME = new byte[0][];
    private short[] rowFormats;

    UnitStream(UnitStreams.Group group, int index, MemoryBudget budget) {
        this.group = group;
        this.index = index;
        this.budget = budget;
    }

    /**
     * Reads until the unit's header is known: its columns (a statement returning rows), or its
     * end (a statement returning none). Throws the unit's error, if it failed before any row.
     */
    public void header() throws SQLException {
        while (!headed && error == null) {
            group.header(this);
        }
        if (error != null) {
            throw error;
        }
    }

    /** Whether the unit failed (known once its header was read). */
    public SQLException error() {
        return error;
    }

    /**
     * Rows read between two yields of the session's thread. A session's virtual thread runs on its
     * client's event loop and is never preempted: reading a long answer that is always ready (a fast
     * backend, a fast client, or a merge loading rows to sort) would keep every other client of that
     * loop waiting until it ends. Every so many rows it lets the loop go round.
     */
    private static final int ROWS_PER_YIELD = 4096;

    private int sinceYield;

    /**
     * The next row, or null at the end; throws the unit's error when it failed on the way. A unit that relays
     * frames ({@link #relayFrames()}) answers {@link #FRAME} for a row read straight off the connection.
     */
    public byte[][] nextRow() throws SQLException {
        if (++sinceYield >= ROWS_PER_YIELD) {
            sinceYield = 0;
            Thread.yield();
        }
        while (true) {
            byte[][] row = queued.poll();
            if (row != null) {
                long bytes = MemoryBudget.rowBytes(row);
                queuedBytes -= bytes;
                if (unchargedBytes > 0) {
                    unchargedBytes -= bytes; // a portal fetch's row: its bytes were never charged
                } else {
                    budget.release(bytes);
                }
                return row;
            }
            if (error != null) {
                throw error;
            }
            if (complete || closed) {
                group.unitDone(this);
                if (error != null) {
                    throw error;
                }
                return null;
            }
            row = group.row(this);
            if (row != null) {
                return row;
            }
        }
    }

    /**
     * Keeps a row of a portal fetch: bounded by the fetch's size, it needs no budget. Rows of a
     * fetch are queued before any row a detach keeps (the queue is first in, first out).
     */
    void keepFetched(byte[][] row) {
        if (error != null) {
            return;
        }
        long bytes = MemoryBudget.rowBytes(row);
        queuedBytes += bytes;
        unchargedBytes += bytes;
        queued.add(row);
    }

    /** Keeps a row read ahead of its reader; false (the unit failed with 53200) past the budget. */
    boolean keep(byte[][] row) {
        if (error != null) {
            return false;
        }
        long bytes = MemoryBudget.rowBytes(row);
        try {
            budget.charge(bytes);
        } catch (MemoryBudget.MemoryLimitExceededException e) {
            fail(new BackendError(UnitStreams.outOfMemory(e)));
            return false;
        }
        queuedBytes += bytes;
        queued.add(row);
        return true;
    }

    /** Records the unit's first error; rows read ahead are dropped. */
    void fail(SQLException e) {
        if (error == null) {
            error = e;
        }
        dropQueued();
    }

    private void dropQueued() {
        queued.clear();
        budget.release(queuedBytes - unchargedBytes);
        queuedBytes = 0;
        unchargedBytes = 0;
    }

    /** Back to before the unit's statement was sent (it runs again: its plan went stale). */
    void reset() {
        dropQueued();
        columns = null;
        tag = "";
        empty = false;
        notices.clear();
        error = null;
        headed = false;
        complete = false;
    }

    int queuedRows() {
        return queued.size();
    }

    long queuedBytes() {
        return queuedBytes;
    }

    // ------------------------------------------------------------------ QueryResult

    @Override
    public boolean hasRows() {
        return columns != null;
    }

    @Override
    public ColumnDescription[] columns() {
        return columns;
    }

    @Override
    public boolean next() throws StatementFailure {
        try {
            current = nextRow();
        } catch (SQLException e) {
            current = null;
            close();
            throw new StatementFailure(ErrorFields.from(e), e);
        }
        return current != null;
    }

    @Override
    public RowValues row() {
        return current == FRAME ? frameView.of(currentFrame) : view.of(current);
    }

    @Override
    public String tag() {
        return tag;
    }

    /**
     * Rows this unit's reader takes straight off the connection go on as the DataRows the backend sent, undecoded
     * ({@link FrameRowView}): for the one unit whose answer is the client's. Rows it merges with others' it reads
     * as values ({@link #nextRow()}).
     */
    public void relayFrames() {
        frames = true;
    }

    /** Keeps a row read straight off the connection as its DataRow body: returns {@link #FRAME}. */
    byte[][] frame(byte[] body) {
        currentFrame = body;
        return FRAME;
    }

    /** The rows were asked for in these result format codes (the client's): see {@link QueryResult#rowFormats()}. */
    public void rowFormats(short[] formats) {
        this.rowFormats = formats;
    }

    @Override
    public short[] rowFormats() {
        return rowFormats;
    }

    @Override
    public boolean isEmptyQuery() {
        return empty;
    }

    @Override
    public List<ErrorFields> notices() {
        return notices;
    }

    /**
     * Stops reading: the rows not read are given up, and the connection is left clean (the
     * statement cancelled where that is harmless, or read to its end).
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        dropQueued();
        group.unitClosed(this);
    }
}
