package io.ashlar.protocol;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/**
 * A SCRAM server-first-message, the server's challenge.
 *
 * @param data the SASL mechanism's message (ASCII for SCRAM)
 * @see <a href="https://www.postgresql.org/docs/current/protocol-message-formats.html#PROTOCOL-MESSAGE-FORMATS-AUTHENTICATIONSASLCONTINUE">AuthenticationSASLContinue</a>
 */
public record AuthenticationSASLContinue(byte[] data) implements BackendMessage {

    static final int CODE = 11;

    public AuthenticationSASLContinue {
        Objects.requireNonNull(data, "data");
        data = data.clone();
    }

    /** The message from its text (SCRAM messages are printable ASCII). */
    public static AuthenticationSASLContinue of(String text) {
        return new AuthenticationSASLContinue(text.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public byte[] data() {
        return data.clone();
    }

    /** The data as text. */
    public String text() {
        return new String(data, StandardCharsets.UTF_8);
    }

    @Override
    public void encode(ByteBuf out) {
        out.writeByte('R');
        out.writeInt(8 + data.length);
        out.writeInt(CODE);
        out.writeBytes(data);
    }

    public static AuthenticationSASLContinue decode(ByteBuf in) {
        int length = Wire.readHeader(in, 'R');
        if (length < 4) {
            throw new IllegalArgumentException("invalid message length");
        }
        AuthenticationMessages.expectCode(in, CODE);
        return new AuthenticationSASLContinue(Wire.readBytes(in, length - 4));
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof AuthenticationSASLContinue that && Arrays.equals(data, that.data);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(data);
    }

    @Override
    public String toString() {
        return "AuthenticationSASLContinue[" + text() + "]";
    }
}
