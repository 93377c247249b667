package io.ashlar.frontend.session;

import io.ashlar.backend.execute.ColumnDescription;
import io.ashlar.backend.execute.ErrorFields;
import io.ashlar.backend.execute.ResultSink;
import io.ashlar.backend.execute.RowValues;
import io.ashlar.protocol.EmptyQueryResponse;
import io.ashlar.protocol.NotificationResponse;

/**
 * Where the backend session's results go: into the client's output as PostgreSQL's messages
 * (RowDescription and DataRow in text, CommandComplete, EmptyQueryResponse, NoticeResponse,
 * NotificationResponse), in the order they come; ParameterStatus just before the ReadyForQuery
 * ({@link #reportSettings}), where PostgreSQL reports changed settings: after a SET's CommandComplete
 * (r2dbc made one result of a SET whose ParameterStatus came first).
 */
final class ClientResultSink implements ResultSink {

    private final OutputBuffer out;
    private final int processId;
    /** Told the charset of a client_encoding the session changed to. */
    private final java.util.function.Consumer<io.ashlar.backend.execute.ClientEncoding> encodingChanged;
    /** Settings changed since the last ReadyForQuery: name, value, name, value, ... (the last value of each). */
    private final java.util.ArrayList<String> changed = new java.util.ArrayList<>(0);

    /**
     * @param processId the process id the client knows for this session: a NOTIFY the session
     *        sent itself names it
     */
    ClientResultSink(OutputBuffer out, int processId, java.util.function.Consumer<io.ashlar.backend.execute.ClientEncoding> encodingChanged) {
        this.out = out;
        this.processId = processId;
        this.encodingChanged = encodingChanged;
    }

    @Override
    public void columns(ColumnDescription[] columns) {
        out.rowDescription(columns, null);
    }

    @Override
    public void row(RowValues row) {
        out.dataRow(row, null);
    }

    @Override
    public void complete(String commandTag) {
        out.commandComplete(commandTag);
    }

    @Override
    public void empty() {
        out.write(EmptyQueryResponse.INSTANCE);
    }

    @Override
    public void notice(ErrorFields notice) {
        out.notice(notice);
    }

    @Override
    public void parameterStatus(String name, String value) {
        if (name.equals("client_encoding")) {
            io.ashlar.backend.execute.ClientEncoding encoding = io.ashlar.backend.execute.ClientEncoding.find(value);
            if (encoding != null) {
                encodingChanged.accept(encoding);
            }
        }
        for (int i = 0; i < changed.size(); i += 2) {
            if (changed.get(i).equals(name)) {
                changed.set(i + 1, value);
                return;
            }
        }
        changed.add(name);
        changed.add(value);
    }

    /** Writes a ParameterStatus for each setting changed since the last ReadyForQuery: the session writes one next. */
    void reportSettings() {
        if (changed.isEmpty()) {
            return;
        }
        for (int i = 0; i < changed.size(); i += 2) {
            out.parameterStatus(changed.get(i), changed.get(i + 1));
        }
        changed.clear();
    }

    @Override
    public void notification(int processId, boolean self, String channel, String payload) {
        out.write(new NotificationResponse(self ? this.processId : processId, channel, payload));
    }
}
