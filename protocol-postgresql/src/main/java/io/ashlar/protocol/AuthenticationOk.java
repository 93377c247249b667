package io.ashlar.protocol;

import io.netty.buffer.ByteBuf;
import java.util.Arrays;

/**
 * Authentication succeeded. Sent once, after the method's last exchange.
 *
 * @see <a href="https://www.postgresql.org/docs/current/protocol-message-formats.html#PROTOCOL-MESSAGE-FORMATS-AUTHENTICATIONOK">AuthenticationOk</a>
 */
public final class AuthenticationOk implements BackendMessage {

    public static final AuthenticationOk INSTANCE = new AuthenticationOk();
    private static final byte[] BYTES = Wire.fixed('R', 0, 0, 0, 0);

    private AuthenticationOk() {
    }

    @Override
    public void encode(ByteBuf out) {
        out.writeBytes(BYTES);
    }

    public static AuthenticationOk decode(ByteBuf in) {
        if (in.readableBytes() < BYTES.length) {
            throw new IllegalArgumentException("truncated AuthenticationOk");
        }
        byte[] actual = new byte[BYTES.length];
        in.readBytes(actual);
        if (!Arrays.equals(actual, BYTES)) {
            throw new IllegalArgumentException("not a AuthenticationOk: " + Wire.hex(actual));
        }
        return INSTANCE;
    }

    @Override
    public String toString() {
        return "AuthenticationOk";
    }
}
