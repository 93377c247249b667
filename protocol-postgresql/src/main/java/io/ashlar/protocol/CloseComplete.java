package io.ashlar.protocol;

import io.netty.buffer.ByteBuf;
import java.util.Arrays;

/**
 * Extended protocol: the Close succeeded (also when there was nothing to close).
 *
 * @see <a href="https://www.postgresql.org/docs/current/protocol-message-formats.html#PROTOCOL-MESSAGE-FORMATS-CLOSECOMPLETE">CloseComplete</a>
 */
public final class CloseComplete implements BackendMessage {

    public static final CloseComplete INSTANCE = new CloseComplete();
    private static final byte[] BYTES = Wire.fixed('3');

    private CloseComplete() {
    }

    @Override
    public void encode(ByteBuf out) {
        out.writeBytes(BYTES);
    }

    public static CloseComplete decode(ByteBuf in) {
        if (in.readableBytes() < BYTES.length) {
            throw new IllegalArgumentException("truncated CloseComplete");
        }
        byte[] actual = new byte[BYTES.length];
        in.readBytes(actual);
        if (!Arrays.equals(actual, BYTES)) {
            throw new IllegalArgumentException("not a CloseComplete: " + Wire.hex(actual));
        }
        return INSTANCE;
    }

    @Override
    public String toString() {
        return "CloseComplete";
    }
}
