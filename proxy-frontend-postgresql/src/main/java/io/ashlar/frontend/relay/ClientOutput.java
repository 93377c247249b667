package io.ashlar.frontend.relay;

import io.ashlar.backend.execute.ErrorFields;
import io.ashlar.backend.pg.ServerLink;
import io.ashlar.protocol.BackendMessage;
import io.ashlar.protocol.ErrorResponse;
import io.ashlar.protocol.PgErrorFields;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import java.nio.charset.StandardCharsets;

/**
 * What a {@link RelaySession} sends its client: the bytes gathered for one write (the backend's
 * answers as it sent them, and the proxy's own messages), written and flushed at once, with the
 * reading of the backend following the client's socket (a client that does not read stops it).
 * Counts what it relays while metrics are on. Once the session has ended, nothing more is written.
 */
final class ClientOutput {

    private final Channel client;
    /** Where statements, errors and bytes sent are counted; null while metrics are off. */
    private io.ashlar.backend.metrics.SessionCounters counters;
    private io.ashlar.backend.metrics.DatabaseMetrics metrics;
    private ByteBuf toClient;
    private boolean closed;

    ClientOutput(Channel client) {
        this.client = client;
    }

    /** Counts what goes to the client; {@code metrics} null: nothing is counted. */
    void metrics(io.ashlar.backend.metrics.DatabaseMetrics metrics, io.ashlar.backend.metrics.SessionCounters counters) {
        this.metrics = metrics;
        this.counters = counters;
    }

    /** Whether metrics are on: what is relayed is counted. */
    boolean counts() {
        return counters != null;
    }

    /** The bytes gathered for the client's next write. */
    ByteBuf buffer() {
        ByteBuf result = toClient;
        if (result == null) {
            result = client.alloc().ioBuffer(1024);
            toClient = result;
        }
        return result;
    }

    /**
     * A backend message passed on as it came; a large enough gathering goes out at once.
     *
     * @param reading the connection whose reading follows the client's socket, or null
     */
    void relay(ByteBuf buf, int start, int length, ServerLink reading) {
        if (closed) {
            return;
        }
        buffer().writeBytes(buf, start, length);
        if (toClient.readableBytes() >= 64 * 1024) {
            flush(reading);
        }
    }

    void write(BackendMessage message) {
        if (closed) {
            return;
        }
        message.encode(buffer());
    }

    /** A CommandComplete (its tag's first letters) or an ErrorResponse (its SQLSTATE) on its way to the client. */
    void countRelayed(byte type, ByteBuf buf, int start, int length) {
        int body = start + 5;
        int end = start + length;
        if (type == 'C') {
            int c0 = body < end ? buf.getByte(body) : 0;
            int c1 = c0 != 0 && body + 1 < end ? buf.getByte(body + 1) : 0;
            int c2 = c1 != 0 && body + 2 < end ? buf.getByte(body + 2) : 0;
            counters.statement(c0, c1, c2);
            return;
        }
        for (int i = body; i < end && buf.getByte(i) != 0; ) {
            byte field = buf.getByte(i++);
            int zero = buf.indexOf(i, end, (byte) 0);
            if (zero < 0) {
                return;
            }
            if (field == 'C') {
                metrics.error(buf.toString(i, zero - i, java.nio.charset.StandardCharsets.US_ASCII));
                return;
            }
            i = zero + 1;
        }
    }

    void error(ErrorFields error) {
        if (metrics != null) {
            metrics.error(error.sqlState());
        }
        write(new ErrorResponse(PgErrorFields.of(error.codes(), error.values())));
    }

    /**
     * The error of a DO block the proxy ran to raise its own, without the PL/pgSQL context line:
     * the other fields copied byte for byte (they are in the session's client_encoding).
     */
    void relayWithoutContext(ByteBuf buf, int start, int length) {
        if (closed) {
            return;
        }
        ByteBuf out = buffer();
        int begin = out.writerIndex();
        out.writeByte('E');
        out.writeInt(0);
        int at = start + 5;
        int end = start + length;
        while (at < end && buf.getByte(at) != 0) {
            byte code = buf.getByte(at);
            int stringEnd = buf.indexOf(at + 1, end, (byte) 0);
            if (stringEnd < 0) {
                break;
            }
            if (code != PgErrorFields.WHERE && code != PgErrorFields.FILE && code != PgErrorFields.LINE
                    && code != PgErrorFields.ROUTINE) {
                out.writeBytes(buf, at, stringEnd + 1 - at);
            }
            at = stringEnd + 1;
        }
        out.writeByte(0);
        out.setInt(begin + 1, out.writerIndex() - begin - 1);
    }

    /**
     * A NotificationResponse whose body starts at {@code body}.
     *
     * @param backendProcessId the process id of the backend that sent it
     * @param processId the process id the client knows its session by
     */
    void notification(ByteBuf buf, int body, int backendProcessId, int processId) {
        int nameEnd = buf.indexOf(body + 4, buf.writerIndex(), (byte) 0);
        int payloadEnd = nameEnd < 0 ? -1 : buf.indexOf(nameEnd + 1, buf.writerIndex(), (byte) 0);
        if (payloadEnd < 0) {
            return;
        }
        if (closed) {
            return;
        }
        // Passed on as the backend sent it (channel and payload in the session's client_encoding),
        // but a NOTIFY of this session's own backend names the process id the client knows.
        int pid = buf.getInt(body);
        ByteBuf out = buffer();
        out.writeByte('A');
        out.writeInt(4 + 4 + payloadEnd + 1 - (body + 4));
        out.writeInt(pid == backendProcessId ? processId : pid);
        out.writeBytes(buf, body + 4, payloadEnd + 1 - (body + 4));
    }

    /**
     * What was gathered goes out in one write.
     *
     * @param reading the connection whose reading stops while the client's socket is full, or null
     */
    void flush(ServerLink reading) {
        ByteBuf out = toClient;
        if (out == null) {
            return;
        }
        toClient = null;
        if (!client.isActive()) {
            out.release();
            return;
        }
        if (counters != null) {
            counters.sent(out.readableBytes());
        }
        client.writeAndFlush(out, client.voidPromise());
        if (!client.isWritable() && reading != null) {
            reading.autoRead(false);
        }
    }

    /** The client's socket can take more (or not): reading from {@code reading} (null: none) follows. */
    void writabilityChanged(ServerLink reading) {
        if (reading != null) {
            reading.autoRead(client.isWritable());
        }
    }

    /** The session ended: what was gathered is dropped, and nothing more is written. */
    void close() {
        closed = true;
        if (toClient != null) {
            toClient.release();
            toClient = null;
        }
    }
}
