package io.ashlar.backend.session;

import io.ashlar.backend.execute.ColumnDescription;
import io.ashlar.backend.execute.ErrorFields;
import io.ashlar.backend.execute.QueryResult;
import io.ashlar.backend.execute.RowValues;
import io.ashlar.backend.execute.StatementFailure;
import java.util.List;

/**
 * A result that still reads its backend connections after the statement returned it (its rows
 * stream to the client as the shards send them). Its end, read to the end, closed or failed on the
 * way, is told once to the session: the connections it read may then go back to their pools, and
 * a failure fails the session's transaction as any statement's does (the backend's part of it
 * failed: a COMMIT must not commit the others).
 */
final class StreamedResult implements QueryResult {

    /** Told when the result ends. */
    interface End {
        /** @param failure whether reading the result failed */
        void ended(boolean failure);

        /** The failure the client gets for one reading the result met (after {@link #ended}). */
        default StatementFailure failure(StatementFailure failure) {
            return failure;
        }
    }

    private final QueryResult result;
    private final End end;
    private boolean ended;

    StreamedResult(QueryResult result, End end) {
        this.result = result;
        this.end = end;
    }

    private void ended(boolean failure) {
        if (ended) {
            return;
        }
        ended = true;
        end.ended(failure);
    }

    @Override
    public boolean hasRows() {
        return result.hasRows();
    }

    @Override
    public ColumnDescription[] columns() {
        return result.columns();
    }

    @Override
    public boolean next() throws StatementFailure {
        boolean more;
        try {
            more = result.next();
        } catch (StatementFailure failure) {
            result.close();
            ended(true);
            throw end.failure(failure);
        }
        if (!more) {
            result.close();
            ended(false);
        }
        return more;
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
        return result.notices();
    }

    @Override
    public void close() {
        result.close();
        ended(false);
    }
}
