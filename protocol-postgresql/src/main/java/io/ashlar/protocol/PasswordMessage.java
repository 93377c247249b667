package io.ashlar.protocol;

import io.netty.buffer.ByteBuf;
import java.util.Arrays;
import java.util.Objects;

/**
 * A {@code 'p'} message: its body means a password, a SASLInitialResponse, a SASLResponse or
 * openGauss's SHA256 reply depending on which authentication request the server sent last, so
 * the decoder keeps it raw and {@code io.ashlar.frontend.auth} interprets it.
 *
 * @param body the bytes after the length (for a password: the password then NUL)
 * @see <a href="https://www.postgresql.org/docs/current/protocol-message-formats.html#PROTOCOL-MESSAGE-FORMATS-PASSWORDMESSAGE">PasswordMessage</a>
 */
public record PasswordMessage(byte[] body) implements FrontendMessage {

    public static final byte TYPE = 'p';

    public PasswordMessage {
        Objects.requireNonNull(body, "body");
    }

    @Override
    public void encode(ByteBuf out) {
        int start = Wire.begin(out, TYPE);
        out.writeBytes(body);
        Wire.end(out, start);
    }

    static FrontendMessage decodeBody(FrameReader body) {
        return body.finish(new PasswordMessage(body.readRemaining()));
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof PasswordMessage that && Arrays.equals(body, that.body);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(body);
    }

    @Override
    public String toString() {
        return "PasswordMessage[" + body.length + " bytes]";
    }
}
