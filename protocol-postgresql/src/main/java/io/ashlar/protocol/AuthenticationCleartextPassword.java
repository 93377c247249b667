package io.ashlar.protocol;

import io.netty.buffer.ByteBuf;
import java.util.Arrays;

/**
 * Asks the client for its password in clear text.
 *
 * @see <a href="https://www.postgresql.org/docs/current/protocol-message-formats.html#PROTOCOL-MESSAGE-FORMATS-AUTHENTICATIONCLEARTEXTPASSWORD">AuthenticationCleartextPassword</a>
 */
public final class AuthenticationCleartextPassword implements BackendMessage {

    public static final AuthenticationCleartextPassword INSTANCE = new AuthenticationCleartextPassword();
    private static final byte[] BYTES = Wire.fixed('R', 0, 0, 0, 3);

    private AuthenticationCleartextPassword() {
    }

    @Override
    public void encode(ByteBuf out) {
        out.writeBytes(BYTES);
    }

    public static AuthenticationCleartextPassword decode(ByteBuf in) {
        if (in.readableBytes() < BYTES.length) {
            throw new IllegalArgumentException("truncated AuthenticationCleartextPassword");
        }
        byte[] actual = new byte[BYTES.length];
        in.readBytes(actual);
        if (!Arrays.equals(actual, BYTES)) {
            throw new IllegalArgumentException("not a AuthenticationCleartextPassword: " + Wire.hex(actual));
        }
        return INSTANCE;
    }

    @Override
    public String toString() {
        return "AuthenticationCleartextPassword";
    }
}
