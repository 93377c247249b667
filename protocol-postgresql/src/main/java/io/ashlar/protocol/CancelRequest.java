package io.ashlar.protocol;

import io.netty.buffer.ByteBuf;

/**
 * Sent on a new connection instead of a startup packet, to cancel the statement running in the
 * session that {@link BackendKeyData} identified. The server answers nothing and closes.
 *
 * @param processId the process ID from BackendKeyData
 * @param secretKey the secret key from BackendKeyData (4 bytes: the proxy speaks protocol 3.0)
 * @see <a href="https://www.postgresql.org/docs/current/protocol-flow.html#PROTOCOL-FLOW-CANCELING-REQUESTS">Canceling Requests in Progress</a>
 */
public record CancelRequest(int processId, int secretKey) implements FrontendMessage {

    public static final int CODE = 80877102;
    static final int LENGTH = 16;

    @Override
    public void encode(ByteBuf out) {
        out.writeInt(LENGTH);
        out.writeInt(CODE);
        out.writeInt(processId);
        out.writeInt(secretKey);
    }
}
