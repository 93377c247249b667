package io.ashlar.protocol;

import io.netty.buffer.ByteBuf;
import java.util.Objects;

/**
 * A NOTIFY on a channel the session LISTENs to, passed on as the backend delivered it.
 *
 * @param processId the process that sent the NOTIFY (the client's own BackendKeyData process id when it was this session)
 * @param channel the channel
 * @param payload the payload, empty when none was given
 * @see <a href="https://www.postgresql.org/docs/current/protocol-flow.html#PROTOCOL-ASYNC">Asynchronous Operations</a>
 */
public record NotificationResponse(int processId, String channel, String payload) implements BackendMessage {

    public static final byte TYPE = 'A';

    public NotificationResponse {
        Objects.requireNonNull(channel, "channel");
        Objects.requireNonNull(payload, "payload");
    }

    @Override
    public void encode(ByteBuf out) {
        encode(out, java.nio.charset.StandardCharsets.UTF_8);
    }

    @Override
    public void encode(ByteBuf out, java.nio.charset.Charset text) {
        int start = Wire.begin(out, TYPE);
        out.writeInt(processId);
        Wire.writeCString(out, channel, text);
        Wire.writeCString(out, payload, text);
        Wire.end(out, start);
    }

    public static NotificationResponse decode(ByteBuf in) {
        int end = Wire.readHeader(in, 'A') + in.readerIndex();
        NotificationResponse result = new NotificationResponse(in.readInt(), Wire.readCString(in), Wire.readCString(in));
        Wire.expectEnd(in, end);
        return result;
    }
}
