package io.ashlar.protocol;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * The ErrorResponse of protocol 2.0: {@code 'E'} and one NUL-terminated text, no length and no
 * fields. PostgreSQL answers a startup packet for protocol 1.x or 2.x in this format (its
 * {@code FrontendProtocol} is already the client's when it refuses the version), so that an old
 * client (pgjdbc 9.3 with {@code protocolVersion=2}) shows the reason instead of an empty message.
 * The text is PostgreSQL's: {@code "FATAL:  "}, the message, a newline.
 *
 * @param text the whole text, as sent
 * @see <a href="https://www.postgresql.org/docs/7.3/protocol-message-formats.html">PostgreSQL 7.3: Message Formats (protocol 2.0)</a>
 */
public record ErrorResponseProtocol2(String text) implements BackendMessage {

    public ErrorResponseProtocol2 {
        Objects.requireNonNull(text, "text");
    }

    /** A FATAL error as PostgreSQL's {@code send_message_to_frontend} words it for a protocol-2 client. */
    public static ErrorResponseProtocol2 fatal(String message) {
        return new ErrorResponseProtocol2("FATAL:  " + message + "\n");
    }

    @Override
    public void encode(ByteBuf out) {
        out.writeByte(ErrorResponse.TYPE);
        Wire.writeCString(out, text);
    }

    /** Reads one such message, for tests; it cannot be told from a protocol 3 ErrorResponse by its bytes alone. */
    public static ErrorResponseProtocol2 decode(ByteBuf in) {
        byte type = in.readByte();
        if (type != ErrorResponse.TYPE) {
            throw new IllegalArgumentException("not an ErrorResponse: " + (type & 0xff));
        }
        int end = in.bytesBefore((byte) 0);
        if (end < 0) {
            throw new IllegalArgumentException("protocol 2 ErrorResponse without its terminating NUL");
        }
        String result = in.readCharSequence(end, StandardCharsets.UTF_8).toString();
        in.skipBytes(1);
        return new ErrorResponseProtocol2(result);
    }
}
