package io.ashlar.frontend.session;

import io.ashlar.backend.execute.ColumnDescription;
import io.ashlar.backend.execute.ErrorFields;
import io.ashlar.backend.execute.RowValues;
import io.ashlar.protocol.BackendMessage;
import io.ashlar.protocol.CommandComplete;
import io.ashlar.protocol.DataRow;
import io.ashlar.protocol.ErrorResponse;
import io.ashlar.protocol.NoticeResponse;
import io.ashlar.protocol.ParameterStatus;
import io.ashlar.protocol.PgErrorFields;
import io.ashlar.protocol.RowDescription;
import io.ashlar.frontend.types.ValueEncoder;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import java.util.concurrent.locks.LockSupport;

/**
 * The session's pending output: messages are encoded into one buffer on the session's thread and
 * handed to Netty in one write when the client must see them (ReadyForQuery, Flush, or a large
 * result). While the client's socket is not writable, the session waits, so a slow client with a
 * huge result costs bounded memory.
 */
final class OutputBuffer {

    /** Hand over to Netty once this much is pending, even mid-result. */
    private static final int FLUSH_THRESHOLD = 64 * 1024;

    /** The tag of the last CommandComplete written. */
    private String lastTag = "";
    /** A tag written several times running, and its encoded CommandComplete. */
    private String repeatedTag;
    private byte[] repeatedFrame;

    private final Channel channel;
    /**
     * The session's client_encoding: the charset of the strings the proxy writes (messages, column names, settings).
     * Rows are the backends' bytes, which they convert themselves.
     */
    private java.nio.charset.Charset text = java.nio.charset.StandardCharsets.UTF_8;
    private ByteBuf buffer;
    /** The last RowDescription {@link #rowDescriptionOf} wrote: its columns (by identity), formats, charset and bytes. */
    private ColumnDescription[] describedColumns;
    private short[] describedFormats;
    private java.nio.charset.Charset describedText;
    private byte[] described;
    private volatile Thread writableWaiter;
    /** Flushes of the session's thread queued to the event loop and not run yet. */
    private final java.util.concurrent.atomic.AtomicInteger queuedFlushes = new java.util.concurrent.atomic.AtomicInteger();
    private final Runnable flushed = queuedFlushes::decrementAndGet;
    /** Where statements, errors and bytes sent are counted; null while metrics are off. */
    private io.ashlar.backend.metrics.SessionCounters counters;
    private io.ashlar.backend.metrics.DatabaseMetrics metrics;

    OutputBuffer(Channel channel) {
        this.channel = channel;
    }

    void metrics(io.ashlar.backend.metrics.DatabaseMetrics metrics, io.ashlar.backend.metrics.SessionCounters counters) {
        this.metrics = metrics;
        this.counters = counters;
    }

    /** The charset strings are written in from now on (the session's client_encoding). */
    void text(java.nio.charset.Charset charset) {
        text = charset;
    }

    java.nio.charset.Charset text() {
        return text;
    }

    ByteBuf buffer() {
        ByteBuf result = buffer;
        if (result == null) {
            result = channel.alloc().ioBuffer(512);
            buffer = result;
        }
        return result;
    }

    void write(BackendMessage message) {
        message.encode(buffer(), text);
    }

    void error(ErrorFields fields) {
        if (metrics != null) {
            metrics.error(fields.sqlState());
        }
        new ErrorResponse(PgErrorFields.of(fields.codes(), fields.values())).encode(buffer(), text);
    }

    void notice(ErrorFields fields) {
        new NoticeResponse(PgErrorFields.of(fields.codes(), fields.values())).encode(buffer(), text);
    }

    void commandComplete(String tag) {
        if (counters != null) {
            counters.statement(tag);
        }
        ByteBuf out = buffer();
        if (tag != lastTag) {
            CommandComplete.encode(out, tag);
        } else if (tag == repeatedTag) {
            out.writeBytes(repeatedFrame);
        } else {
            // The same tag twice running (one String: a batch's rows share it): its frame is kept
            // for the rest of the batch's thousands.
            int start = out.writerIndex();
            CommandComplete.encode(out, tag);
            repeatedFrame = io.netty.buffer.ByteBufUtil.getBytes(out, start, out.writerIndex() - start);
            repeatedTag = tag;
        }
        lastTag = tag;
    }

    /**
     * The tag of the last CommandComplete written: whether the statement that ended a transaction
     * committed it ({@code COMMIT}) or not ({@code ROLLBACK}, also what a COMMIT of a failed
     * transaction answers).
     */
    String lastTag() {
        return lastTag;
    }

    void parameterStatus(String name, String value) {
        ParameterStatus.encode(buffer(), name, value, text);
    }

    /** RowDescription with each column in the given format (0 text, 1 binary; null: all text). */
    void rowDescription(ColumnDescription[] columns, short[] formats) {
        RowDescription.encode(buffer(), columns, formats, text);
    }

    /**
     * A RowDescription of columns that come as the same array for as long as they do not change (a backend's
     * description in logical terms, which RowDescriptionCache and LogicalSession keep): when the last one written here
     * had the same columns, result formats and charset, its bytes are written again rather than encoded (a prepared
     * statement's every execution describes its portal: 3% of the proxy's CPU on pgbench's select).
     *
     * @param resultFormats the Bind's result format codes (none: all text; one: for every column; else one each)
     */
    void rowDescriptionOf(ColumnDescription[] columns, short[] resultFormats) {
        ByteBuf out = buffer();
        if (columns == describedColumns && text == describedText && java.util.Arrays.equals(resultFormats, describedFormats)) {
            out.writeBytes(described);
            return;
        }
        int start = out.writerIndex();
        RowDescription.encode(out, columns, resultFormats.length == 0 ? null : Portal.formats(resultFormats, columns.length), text);
        described = io.netty.buffer.ByteBufUtil.getBytes(out, start, out.writerIndex() - start);
        describedColumns = columns;
        describedFormats = resultFormats.clone();
        describedText = text;
    }

    /**
     * One DataRow; a column whose encoder is not null is converted from the backend's text to
     * binary on the way. A large pending output goes to the client, which the session then waits
     * for while its socket is full.
     */
    void dataRow(RowValues row, ValueEncoder[] encoders) {
        ByteBuf out = buffer();
        int start = out.writerIndex();
        try {
            DataRow.encode(out, row, encoders);
        } catch (IllegalArgumentException e) {
            out.writerIndex(start); // no half DataRow: the client reads the error that follows
            throw e;
        }
        if (out.writerIndex() >= FLUSH_THRESHOLD) {
            flush();
            awaitWritable();
        }
    }

    /**
     * Hands what is pending to the channel: at once on the event loop; from the session's thread Netty queues the write
     * as a task of the loop, counted until it ran, so that the loop does not write ahead of it ({@link #flushQueued}).
     */
    void flush() {
        ByteBuf pending = buffer;
        if (pending != null) {
            buffer = null;
            if (counters != null) {
                counters.sent(pending.readableBytes());
            }
            io.netty.channel.EventLoop loop = channel.eventLoop();
            boolean queued = !loop.inEventLoop();
            if (queued) {
                queuedFlushes.incrementAndGet();
            }
            if (channel.isActive()) {
                channel.writeAndFlush(pending, channel.voidPromise());
            } else {
                pending.release();
            }
            if (queued) {
                try {
                    loop.execute(flushed); // after Netty's write task: the loop runs its tasks in order
                } catch (java.util.concurrent.RejectedExecutionException stopped) {
                    queuedFlushes.decrementAndGet(); // the proxy stops: nothing runs on the loop any more
                }
            }
        }
    }

    /** Whether output of the session's thread is queued to the loop and not written yet. */
    boolean flushQueued() {
        return queuedFlushes.get() != 0;
    }

    /** Drops what is pending (the client is gone). */
    void discard() {
        ByteBuf pending = buffer;
        buffer = null;
        if (pending != null) {
            pending.release();
        }
    }

    private void awaitWritable() {
        while (channel.isActive() && !channel.isWritable()) {
            writableWaiter = Thread.currentThread();
            if (channel.isActive() && !channel.isWritable()) {
                LockSupport.parkNanos(this, 100_000_000L);
            }
            writableWaiter = null;
        }
    }

    /** Called by the event loop when the channel's writability changed. */
    void writabilityChanged() {
        Thread waiter = writableWaiter;
        if (waiter != null) {
            LockSupport.unpark(waiter);
        }
    }
}
