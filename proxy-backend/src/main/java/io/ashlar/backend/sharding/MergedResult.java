package io.ashlar.backend.sharding;

import io.ashlar.backend.execute.ColumnDescription;
import io.ashlar.backend.execute.ErrorFields;
import io.ashlar.backend.execute.QueryResult;
import io.ashlar.backend.execute.RowValues;
import io.ashlar.backend.execute.StatementFailure;
import io.ashlar.merge.RowCursor;
import java.util.List;

/**
 * The merged result of a query that ran on several shards: the merge engine's cursor, with the
 * columns the client sees (derived columns stripped) and a {@code SELECT n} tag counting the rows
 * the client got.
 */
final class MergedResult implements QueryResult, RowValues {

    private final ColumnDescription[] columns;
    private final RowCursor cursor;
    private final GatheredNotices notices;
    private final String verb;
    /** The result format codes the units' rows were asked for, or null (text): see {@link QueryResult#rowFormats()}. */
    private final short[] rowFormats;
    private long rows;
    private boolean closed;

    MergedResult(ColumnDescription[] columns, RowCursor cursor, GatheredNotices notices, String verb, short[] rowFormats) {
        this.columns = columns;
        this.rowFormats = rowFormats;
        this.cursor = cursor;
        this.notices = notices;
        this.verb = verb;
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
    public boolean next() throws StatementFailure {
        if (closed) {
            return false;
        }
        try {
            if (cursor.next()) {
                rows++;
                return true;
            }
        } catch (io.ashlar.merge.MemoryBudget.MemoryLimitExceededException e) {
            close();
            throw new StatementFailure(io.ashlar.backend.datasource.UnitStreams.outOfMemory(e), e);
        } catch (StreamCursor.ShardFailure e) {
            close();
            throw new StatementFailure(ErrorFields.from(e.getCause()), e.getCause());
        } catch (ArithmeticException e) {
            close();
            throw new StatementFailure(ErrorFields.error("22003", e.getMessage() == null ? "numeric value out of range" : e.getMessage()), e);
        } catch (RuntimeException e) {
            close();
            throw new StatementFailure(ErrorFields.error("0A000", "cannot merge the shards' results: " + e.getMessage()), e);
        }
        close();
        return false;
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
        return cursor.value(column);
    }

    @Override
    public String tag() {
        return verb + " " + rows;
    }

    @Override
    public short[] rowFormats() {
        return rowFormats;
    }

    @Override
    public boolean isEmptyQuery() {
        return false;
    }

    @Override
    public List<ErrorFields> notices() {
        // The shards' notices so far: those raised while the merge read their rows come after the first ones.
        return notices.now();
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            cursor.close();
        }
    }
}
