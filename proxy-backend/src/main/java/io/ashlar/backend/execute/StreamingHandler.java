package io.ashlar.backend.execute;

import java.sql.SQLException;
import java.sql.SQLWarning;
import java.util.List;
import org.postgresql.core.Field;
import org.postgresql.core.Query;
import org.postgresql.core.ResultCursor;
import org.postgresql.core.ResultHandlerBase;
import org.postgresql.core.Tuple;
import org.postgresql.util.PSQLWarning;

/**
 * Hands each result of a statement (or of several, for a simple query string) to a
 * {@link ResultSink} as the backend produces it, in order, and keeps the first error.
 */
public final class StreamingHandler extends ResultHandlerBase {

    private final ResultSink sink;
    private final TupleRow row = new TupleRow();
    private SQLException error;
    private boolean settingsChanged;
    private boolean sessionBound;
    private String lastTag = "";

    public StreamingHandler(ResultSink sink) {
        this.sink = sink;
    }

    @Override
    public void handleResultRows(Query fromQuery, Field[] fields, List<Tuple> tuples, ResultCursor cursor) {
        sink.columns(Columns.of(fields));
        for (int i = 0, n = tuples.size(); i < n; i++) {
            sink.row(row.point(tuples.get(i)));
        }
    }

    @Override
    public void handleCommandStatus(String status, long updateCount, long insertOID) {
        if ("EMPTY".equals(status)) {
            sink.empty();
            return;
        }
        lastTag = status;
        CommandTags.Effect effect = CommandTags.effect(status);
        settingsChanged |= effect == CommandTags.Effect.SETTINGS;
        sessionBound |= effect == CommandTags.Effect.SESSION_STATE;
        sink.complete(status);
    }

    @Override
    public void handleWarning(SQLWarning warning) {
        if (warning instanceof PSQLWarning w && w.getServerErrorMessage() != null) {
            sink.notice(ErrorFields.from(w.getServerErrorMessage()));
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

    /** A statement changed the session's settings (SET, RESET, DISCARD). */
    public boolean settingsChanged() {
        return settingsChanged;
    }

    /** A statement created state that binds the session to its backend connection (temp table, LISTEN, PREPARE). */
    public boolean sessionBound() {
        return sessionBound;
    }

    public String lastTag() {
        return lastTag;
    }
}
