package io.ashlar.backend.session;

import io.ashlar.backend.datasource.BackendConnection;
import io.ashlar.backend.datasource.ParameterValues;
import io.ashlar.backend.execute.BackendError;
import io.ashlar.backend.execute.ColumnDescription;
import io.ashlar.backend.execute.ErrorFields;
import io.ashlar.backend.execute.ResultSink;
import io.ashlar.backend.execute.StatementFailure;
import io.ashlar.backend.pg.BackendFrames;
import io.ashlar.backend.pg.ServerLink;
import io.ashlar.backend.sharding.ShardedExecution;
import io.netty.buffer.ByteBuf;
import io.ashlar.parser.statement.TransactionStatement;
import java.sql.SQLException;

/**
 * A statement of a sharded session that its client's event loop runs itself, without waking the session's thread: one
 * routed to one unit on one data source (a read outside a transaction, or a read or write inside the client's block,
 * the block's first there with a BEGIN sent ahead of it), whose answer goes to the client as the shard sends it; or
 * transaction control: a BEGIN the session keeps ({@link #answer}), the COMMIT or ROLLBACK of a block one data source
 * joined, sent there ({@link ShardedSession#loopStatement} says which qualify). The loop sends it ({@link #send}), is told each
 * answer as it arrives (a {@link ServerLink.Receiver} of its own), asks this class what each becomes for the client
 * (columns, errors and notices in logical names, rows with their type OIDs patched), and ends it here ({@link
 * #finish}) as the session's own run ends a statement: the connection goes back, settings it was given are reported.
 *
 * <p>Used on the client's event loop only, while the session's thread waits for the client's next message.
 */
public final class LoopStatement {

    private final ShardedSession session;
    private final io.ashlar.backend.sharding.Plan plan;
    /** Its route; null for transaction control. */
    private final ShardedExecution execution;
    /** Null for an answer of the session's own ({@link #answer}). */
    private final BackendConnection connection;
    private final BackendConnection.Statement unit;
    private final int dataSource;
    private final long runStarted;
    /** Whether a statement whose plan went stale may run again: outside a transaction (inside, the error aborted it). */
    private final boolean mayRunAgain;
    /** Where the statement starts in the client's query string: its errors' positions are moved by it. */
    private final int offset;
    /** BEGIN, START TRANSACTION, COMMIT or ROLLBACK (what the session's transaction does at the end), or null. */
    private final TransactionStatement control;
    /** The tag the session answers itself, no shard asked (a BEGIN, the end of a block no data source joined), or null. */
    private final String answer;
    /** Whether a BEGIN goes to the shard ahead of the statement (its first in the client's block there). */
    private final boolean begins;
    /** Whether the answers of that BEGIN are still to come (skipped, up to its ReadyForQuery). */
    private boolean beginPending;
    private ServerLink.Receiver receiver;
    private ServerLink.PreparedKey key;
    /** The backend found the statement prepared before DDL changed its result: it runs again, once, prepared anew. */
    private boolean runAgain;
    private boolean ranAgain;
    /** What the client is told at the end although the shard did not fail the statement ({@link #afterAnswer}). */
    private ErrorFields afterAnswer;

    /** A statement routed to one unit; {@code begins}: the client's block starts on its data source with it. */
    LoopStatement(ShardedSession session, io.ashlar.backend.sharding.Plan plan, ShardedExecution execution,
                  BackendConnection.Statement unit, BackendConnection connection, int dataSource, boolean mayRunAgain,
                  boolean begins, int offset, long runStarted) {
        this(session, plan, execution, unit, connection, dataSource, mayRunAgain, offset, runStarted, null, null, begins);
    }

    private LoopStatement(ShardedSession session, io.ashlar.backend.sharding.Plan plan, ShardedExecution execution,
                          BackendConnection.Statement unit, BackendConnection connection, int dataSource, boolean mayRunAgain,
                          int offset, long runStarted, TransactionStatement control, String answer, boolean begins) {
        this.session = session;
        this.offset = offset;
        this.plan = plan;
        this.mayRunAgain = mayRunAgain;
        this.execution = execution;
        this.connection = connection;
        this.unit = unit;
        this.dataSource = dataSource;
        this.runStarted = runStarted;
        this.control = control;
        this.answer = answer;
        this.begins = begins;
    }

    /** Transaction control the session answers itself with {@code tag}: BEGIN, or the end of a block no data source joined. */
    static LoopStatement answered(ShardedSession session, io.ashlar.backend.sharding.Plan plan, TransactionStatement control,
                                  String tag) {
        return new LoopStatement(session, plan, null, null, null, -1, false, 0, 0, control, tag, false);
    }

    /** The COMMIT or ROLLBACK of a block that only {@code dataSource} joined, sent there. */
    static LoopStatement transactionEnd(ShardedSession session, io.ashlar.backend.sharding.Plan plan, TransactionStatement control,
                                        BackendConnection connection, int dataSource, boolean commit) {
        BackendConnection.Statement unit = new BackendConnection.Statement(commit ? "COMMIT" : "ROLLBACK", ParameterValues.NONE, true);
        return new LoopStatement(session, plan, null, unit, connection, dataSource, false, 0, 0, control, null, false);
    }

    /** Whether it is transaction control (no rows: a Describe of its portal is answered NoData before it runs). */
    public boolean controlsTransaction() {
        return control != null;
    }

    /** The tag of a statement the session answers itself, with no shard asked ({@link #finish} ends it); null for none. */
    public String answer() {
        return answer;
    }

    /**
     * Whether an answer the shard sent is one of the BEGIN that went ahead of the statement ({@link #begins}), which the
     * client does not see: true up to and with its ReadyForQuery. The BEGIN's ErrorResponse is the statement's error
     * (the caller reads it with {@link #error} and ends the statement: it may have run outside the block).
     */
    public boolean beginAnswer(byte type) {
        if (!beginPending || type == 'E') {
            return false;
        }
        if (type == 'Z') {
            beginPending = false;
        }
        return true;
    }

    /** Whether the error just read ({@link #error}) was the BEGIN's that went ahead of the statement. */
    public boolean beganFailed() {
        return beginPending;
    }

    /**
     * Sends the statement; its answers go to {@code answers} on the loop. On failure (the connection broke) the
     * statement has ended ({@link #finish} was called as failed): the client gets the error returned.
     */
    public ErrorFields send(ServerLink.Receiver answers) {
        this.receiver = answers;
        beginPending = begins;
        try {
            key = connection.sendOnLoop(unit, answers, begins);
            return null;
        } catch (SQLException e) {
            ErrorFields error = ErrorFields.from(e);
            finish(true, ResultSink.DISCARD);
            return error;
        }
    }

    /** The RowDescription at {@code [start, start + length)} of {@code in}, in logical terms. */
    public ColumnDescription[] columns(ByteBuf in, int start, int length) {
        return session.logicalColumns(dataSource, connection.columnsOf(in, start, length));
    }

    /** Whether the rows need their type OIDs rewritten before they go to the client ({@link #patchedRow}). */
    public boolean patchesRows() {
        return connection.patchesRows();
    }

    /** The body of a DataRow, type OIDs rewritten as the client was told them. */
    public byte[] patchedRow(ByteBuf in, int start, int length) {
        return connection.patchedBody(in, start, length);
    }

    /** A CommandComplete's tag. */
    public String tag(ByteBuf in, int start, int length) {
        return BackendFrames.tag(in, start, length);
    }

    /** A NotificationResponse: kept on the connection (one LISTENs for the session), passed on as its reader's are. */
    public void notification(ByteBuf in, int start, int length) {
        connection.notification(in, start, length);
    }

    /** A NoticeResponse, in logical names. */
    public ErrorFields notice(ByteBuf in, int start, int length) {
        return session.lateNotice(BackendFrames.errorFields(in, start, length, connection.textCharset()));
    }

    /**
     * An ErrorResponse, as the client reads it (logical names, its position in the client's text); null when the
     * statement runs again at the ReadyForQuery ({@link #again}): its plan was prepared before DDL changed its result
     * and no answer of it reached the client yet.
     *
     * @param answered whether its columns were described to the client already
     */
    public ErrorFields error(ByteBuf in, int start, int length, boolean answered) {
        BackendError error = new BackendError(BackendFrames.errorFields(in, start, length, connection.textCharset()));
        if (beginPending) {
            return session.logicalFailure(new StatementFailure(error.fields(), error)).fields();
        }
        if (key != null) {
            connection.retire(key); // parsed again next time, closed first
        }
        if (mayRunAgain && !ranAgain && !answered && BackendConnection.isStalePlan(error)) {
            runAgain = true;
            return null;
        }
        ErrorFields fields = session.logicalFailure(execution == null ? new StatementFailure(error.fields(), error)
                : execution.onlyUnitFailure(error)).fields();
        return fields.shifted(offset);
    }

    /**
     * At the ReadyForQuery: true when the statement was sent again ({@link #error} returned null), its answers to the
     * same receiver; false when it is over.
     */
    public boolean again() {
        if (!runAgain) {
            return false;
        }
        runAgain = false;
        ranAgain = true;
        try {
            key = connection.sendOnLoop(unit, receiver, false);
            return true;
        } catch (SQLException e) {
            afterAnswer = ErrorFields.from(e);
            return false;
        }
    }

    /**
     * At the ReadyForQuery that ends it, what the statement's client must be told although the shard did not fail it:
     * a run again that could not be sent; a write that left its connection in a client_encoding the proxy cannot read
     * or with standard_conforming_strings off (a function's set_config: the session's own run refuses it with 0A000
     * and sets it back; here the connection is closed instead, which fails the client's block, as nothing on the loop
     * may wait for the SET). Null for nothing.
     */
    public ErrorFields afterAnswer() {
        if (afterAnswer == null && !connection.readsText()) {
            connection.close("its statement left it writing text the proxy cannot read");
            afterAnswer = ErrorFields.error("0A000", "the statement changed client_encoding or standard_conforming_strings"
                    + " in a way Ashlar does not support on a sharded database; its connection is closed");
        }
        return afterAnswer;
    }

    /** Stops reading the backend's answers while the client cannot take more (true), or reads on (false). */
    public void pause(boolean paused) {
        connection.pauseReading(paused);
    }

    /**
     * The statement ended (its ReadyForQuery came, or the connection ended): its connection goes back, settings given
     * to it are reported to {@code sink}, a failure fails the session's transaction state as the session's own run does.
     */
    public void finish(boolean failed, ResultSink sink) {
        if (connection != null) {
            connection.endLoopExchange();
        }
        session.loopFinished(this, failed, sink);
    }

    io.ashlar.backend.sharding.Plan plan() {
        return plan;
    }

    TransactionStatement control() {
        return control;
    }

    boolean begins() {
        return begins;
    }

    int dataSource() {
        return dataSource;
    }

    long runStarted() {
        return runStarted;
    }
}
