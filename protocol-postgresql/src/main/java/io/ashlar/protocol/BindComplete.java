package io.ashlar.protocol;

import io.netty.buffer.ByteBuf;
import java.util.Arrays;

/**
 * Extended protocol: the Bind succeeded.
 *
 * @see <a href="https://www.postgresql.org/docs/current/protocol-message-formats.html#PROTOCOL-MESSAGE-FORMATS-BINDCOMPLETE">BindComplete</a>
 */
public final class BindComplete implements BackendMessage {

    public static final BindComplete INSTANCE = new BindComplete();
    private static final byte[] BYTES = Wire.fixed('2');

    private BindComplete() {
    }

    @Override
    public void encode(ByteBuf out) {
        out.writeBytes(BYTES);
    }

    public static BindComplete decode(ByteBuf in) {
        if (in.readableBytes() < BYTES.length) {
            throw new IllegalArgumentException("truncated BindComplete");
        }
        byte[] actual = new byte[BYTES.length];
        in.readBytes(actual);
        if (!Arrays.equals(actual, BYTES)) {
            throw new IllegalArgumentException("not a BindComplete: " + Wire.hex(actual));
        }
        return INSTANCE;
    }

    @Override
    public String toString() {
        return "BindComplete";
    }
}
