package io.ashlar.protocol;

import io.netty.buffer.ByteBuf;
import java.util.Objects;

/**
 * The client aborts a COPY FROM STDIN.
 *
 * @param message the reason, reported in the resulting error
 * @see <a href="https://www.postgresql.org/docs/current/protocol-message-formats.html#PROTOCOL-MESSAGE-FORMATS-COPYFAIL">CopyFail</a>
 */
public record CopyFail(String message) implements FrontendMessage {

    public static final byte TYPE = 'f';

    public CopyFail {
        Objects.requireNonNull(message, "message");
    }

    @Override
    public void encode(ByteBuf out) {
        encode(out, java.nio.charset.StandardCharsets.UTF_8);
    }

    @Override
    public void encode(ByteBuf out, java.nio.charset.Charset text) {
        int start = Wire.begin(out, TYPE);
        Wire.writeCString(out, message, text);
        Wire.end(out, start);
    }

    static FrontendMessage decodeBody(FrameReader body) {
        String message = body.readCString();
        return body.finish(new CopyFail(message));
    }
}
