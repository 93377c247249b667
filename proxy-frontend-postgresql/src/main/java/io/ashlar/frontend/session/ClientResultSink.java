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
 * ParameterStatus, NotificationResponse), in the order they come.
 */
final class ClientResultSink implements ResultSink {

    private final OutputBuffer out;
    private final int processId;

    /**
     * @param processId the process id the client knows for this session: a NOTIFY the session
     *        sent itself names it
     */
    ClientResultSink(OutputBuffer out, int processId) {
        this.out = out;
        this.processId = processId;
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
        out.parameterStatus(name, value);
    }

    @Override
    public void notification(int processId, boolean self, String channel, String payload) {
        out.write(new NotificationResponse(self ? this.processId : processId, channel, payload));
    }
}
