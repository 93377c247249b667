package io.ashlar.protocol;

import io.netty.buffer.ByteBuf;

/**
 * The key a client must quote in a {@link CancelRequest} to cancel this session's statement.
 * Protocol 3.0 form: a 4-byte secret.
 *
 * @param processId identifies the session (the proxy's own number, not a backend's PID)
 * @param secretKey random, checked on cancel
 * @see <a href="https://www.postgresql.org/docs/current/protocol-message-formats.html#PROTOCOL-MESSAGE-FORMATS-BACKENDKEYDATA">BackendKeyData</a>
 */
public record BackendKeyData(int processId, int secretKey) implements BackendMessage {

    public static final byte TYPE = 'K';

    @Override
    public void encode(ByteBuf out) {
        out.writeByte(TYPE);
        out.writeInt(12);
        out.writeInt(processId);
        out.writeInt(secretKey);
    }

    public static BackendKeyData decode(ByteBuf in) {
        int end = Wire.readHeader(in, 'K') + in.readerIndex();
        BackendKeyData result = new BackendKeyData(in.readInt(), in.readInt());
        Wire.expectEnd(in, end);
        return result;
    }
}
