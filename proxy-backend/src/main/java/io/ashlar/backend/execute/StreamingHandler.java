package io.ashlar.backend.execute;

import java.sql.SQLException;

/**
 * Hands each result of a statement (or of several, for a simple query string) to a
 * {@link ResultSink} as the backend produces it, in order, and keeps the first error.
 */
public final class StreamingHandler implements BackendReplies {

    private final ResultSink sink;
    private SQLException error;
    private boolean settingsChanged;
    private boolean sessionBound;
    private String lastTag = "";

    public StreamingHandler(ResultSink sink) {
        this.sink = sink;
    }

    @Override
    public void columns(ColumnDescription[] columns) {
        sink.columns(columns);
    }

    @Override
    public void row(RowValues row) {
        sink.row(row);
    }

    @Override
    public void complete(String status) {
        lastTag = status;
        CommandTags.Effect effect = CommandTags.effect(status);
        settingsChanged |= effect == CommandTags.Effect.SETTINGS;
        sessionBound |= effect == CommandTags.Effect.SESSION_STATE;
        sink.complete(status);
    }

    @Override
    public void empty() {
        sink.empty();
    }

    @Override
    public void notice(ErrorFields notice) {
        sink.notice(notice);
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
