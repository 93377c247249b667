package io.ashlar.frontend.session;

import io.ashlar.backend.execute.ColumnDescription;
import io.ashlar.backend.execute.ErrorFields;
import io.ashlar.backend.execute.ResultSink;
import io.ashlar.backend.pg.ServerLink;
import io.ashlar.backend.session.LoopStatement;
import io.ashlar.protocol.DataRow;
import io.ashlar.protocol.EmptyQueryResponse;
import io.ashlar.protocol.NoData;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client pipeline (Bind, Describe of its portal, Execute, Sync) that the client's event loop runs itself, while the
 * session's thread waits for the client ({@link LoopStatement} says which statements qualify): the shard's answers
 * arrive here on the loop and go to the client as they come, as {@link ExtendedProtocol} would write them (its own
 * BindComplete, the columns in logical terms and the client's formats, the rows as the shard sent them, the tag, an
 * error in logical names followed by the skip to Sync), then the Sync's ReadyForQuery ({@link #ended}).
 *
 * <p>Back-pressure: while the client's socket is full, the shard's connection is not read.
 */
final class LoopRun implements ServerLink.Receiver {

    private static final Logger LOG = LoggerFactory.getLogger(LoopRun.class);

    /** Hand the rows to the client once this much is pending, as {@link OutputBuffer} does. */
    private static final int FLUSH_THRESHOLD = 64 * 1024;

    /** Told on the loop when the statement is over, with whether it failed: the Sync's part is the session's. */
    interface End {
        void ended(LoopRun run, boolean failed);
    }

    private final LoopStatement statement;
    private final OutputBuffer out;
    private final ExtendedProtocol extended;
    private final ResultSink sink;
    private final Channel client;
    private final End end;
    /** The client's result format codes (none, one for all, or one per column). */
    private final short[] requested;
    /** Whether the client described the portal (its columns go out); true for a simple query. */
    private final boolean describe;
    /** Whether it is a simple query (an error does not skip to a Sync; the columns are in text). */
    private final boolean simple;
    /** Whether the client has had anything of the statement's answer beyond BindComplete. */
    private boolean answered;
    private boolean failed;
    private boolean paused;
    private boolean over;

    LoopRun(LoopStatement statement, OutputBuffer out, ExtendedProtocol extended, ResultSink sink, Channel client,
            short[] requested, boolean describe, End end) {
        this(statement, out, extended, sink, client, requested, describe, false, end);
    }

    /** A simple query of one statement: its columns, rows and tag, or its error. */
    static LoopRun query(LoopStatement statement, OutputBuffer out, ExtendedProtocol extended, ResultSink sink, Channel client,
                         End end) {
        return new LoopRun(statement, out, extended, sink, client, NO_FORMATS, true, true, end);
    }

    private static final short[] NO_FORMATS = new short[0];

    private LoopRun(LoopStatement statement, OutputBuffer out, ExtendedProtocol extended, ResultSink sink, Channel client,
                    short[] requested, boolean describe, boolean simple, End end) {
        this.simple = simple;
        this.statement = statement;
        this.out = out;
        this.extended = extended;
        this.sink = sink;
        this.client = client;
        this.requested = requested;
        this.describe = describe;
        this.end = end;
    }

    /** Sends the statement; false (the client told, the statement over) when its connection broke first. */
    boolean start() {
        if (describe && !simple && statement.controlsTransaction()) {
            // The Describe's answer, before the statement runs (a COMMIT goes to the shard as a query: no NoData from it).
            out.write(NoData.INSTANCE);
        }
        String answer = statement.answer();
        if (answer != null) {
            // Transaction control the session answers itself: no shard is asked.
            out.commandComplete(answer);
            finish();
            return true;
        }
        ErrorFields refused = statement.send(this);
        if (refused != null) {
            failed = true;
            over = true;
            fail(refused);
            return false;
        }
        return true;
    }

    @Override
    public void message(ServerLink link, byte type, ByteBuf buf, int start, int length) {
        if (over || statement.beginAnswer(type)) {
            return;
        }
        try {
            switch (type) {
                case 'D' -> row(buf, start, length);
                case 'T' -> {
                    answered = true;
                    ColumnDescription[] columns = statement.columns(buf, start, length);
                    if (simple) {
                        out.rowDescriptionOf(columns, NO_FORMATS);
                    } else if (describe) {
                        out.rowDescriptionOf(columns, requested);
                    }
                }
                case 'n' -> {
                    answered = true;
                    if (describe) {
                        out.write(NoData.INSTANCE);
                    }
                }
                case 'C' -> {
                    answered = true;
                    out.commandComplete(statement.tag(buf, start, length));
                }
                case 'I' -> {
                    answered = true;
                    out.write(EmptyQueryResponse.INSTANCE);
                }
                case 'N' -> out.notice(statement.notice(buf, start, length));
                case 'A' -> statement.notification(buf, start, length);
                case 'E' -> {
                    ErrorFields error = statement.error(buf, start, length, answered);
                    if (statement.beganFailed()) {
                        // The BEGIN ahead of it failed: what the backend says next is not the client's to read.
                        failed = true;
                        fail(error);
                        link.close("the BEGIN of its client's block failed");
                        finish();
                    } else if (error != null) {
                        failed = true;
                        fail(error);
                    }
                }
                case 'Z' -> {
                    if (statement.again()) {
                        return;
                    }
                    ErrorFields after = statement.afterAnswer();
                    if (after != null && !failed) {
                        failed = true;
                        fail(after);
                    }
                    finish();
                }
                default -> {
                    // ParseComplete, BindComplete (the client's was the proxy's), CloseComplete, ParameterStatus (the
                    // link keeps it).
                }
            }
        } catch (RuntimeException e) {
            LOG.error("unexpected failure relaying a backend answer", e);
            if (over) {
                return; // it failed ending the statement: the client had its answer, the session went on
            }
            failed = true;
            fail(ErrorFields.error("XX000", "internal error in Ashlar: " + e));
            link.close("the proxy failed relaying its answer");
            finish();
        }
    }

    /**
     * The statement failed: its error goes out; in the extended protocol at once, and the rest up to the Sync is skipped
     * ({@link ExtendedProtocol#fail}). The session's transaction fails with it when it ends ({@link LoopStatement#finish}).
     */
    private void fail(ErrorFields error) {
        if (simple) {
            out.error(error);
        } else {
            extended.fail(error);
        }
    }

    /** Whether it is a simple query. */
    boolean simple() {
        return simple;
    }

    private void row(ByteBuf buf, int start, int length) {
        ByteBuf pending = out.buffer();
        if (statement.patchesRows()) {
            byte[] body = statement.patchedRow(buf, start, length);
            pending.writeByte(DataRow.TYPE);
            pending.writeInt(body.length + 4);
            pending.writeBytes(body);
        } else {
            pending.writeBytes(buf, start, length);
        }
        if (pending.writerIndex() >= FLUSH_THRESHOLD) {
            out.flush();
            if (!client.isWritable() && client.isActive() && !paused) {
                paused = true;
                statement.pause(true);
            }
        }
    }

    @Override
    public void readComplete(ServerLink link) {
        // The rows go out with the ReadyForQuery, or at the flush threshold.
    }

    @Override
    public void closed(ServerLink link, String reason) {
        if (over) {
            return;
        }
        if (!failed) {
            // (After a FATAL the backend sent, which the client has, nothing more: the end was its.)
            failed = true;
            fail(ErrorFields.error("08006", "the backend connection ended during the statement"
                    + (reason == null || reason.isEmpty() ? "" : ": " + reason)));
        }
        finish();
    }

    /** The client's socket can take more, or the client is gone: reading the shard resumes (to the end, then). */
    void writabilityChanged() {
        if (paused && (client.isWritable() || !client.isActive())) {
            paused = false;
            statement.pause(false);
        }
    }

    private void finish() {
        if (over) {
            return;
        }
        over = true;
        if (paused) {
            // The rest of its answer came in the read that filled the client's socket: the connection reads again.
            paused = false;
            statement.pause(false);
        }
        try {
            statement.finish(failed, sink);
        } finally {
            end.ended(this, failed);
        }
    }
}
