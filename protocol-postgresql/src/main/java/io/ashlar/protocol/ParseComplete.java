package io.ashlar.protocol;

import io.netty.buffer.ByteBuf;
import java.util.Arrays;

/**
 * Extended protocol: the Parse succeeded.
 *
 * @see <a href="https://www.postgresql.org/docs/current/protocol-message-formats.html#PROTOCOL-MESSAGE-FORMATS-PARSECOMPLETE">ParseComplete</a>
 */
public final class ParseComplete implements BackendMessage {

    public static final ParseComplete INSTANCE = new ParseComplete();
    private static final byte[] BYTES = Wire.fixed('1');

    private ParseComplete() {
    }

    @Override
    public void encode(ByteBuf out) {
        out.writeBytes(BYTES);
    }

    public static ParseComplete decode(ByteBuf in) {
        if (in.readableBytes() < BYTES.length) {
            throw new IllegalArgumentException("truncated ParseComplete");
        }
        byte[] actual = new byte[BYTES.length];
        in.readBytes(actual);
        if (!Arrays.equals(actual, BYTES)) {
            throw new IllegalArgumentException("not a ParseComplete: " + Wire.hex(actual));
        }
        return INSTANCE;
    }

    @Override
    public String toString() {
        return "ParseComplete";
    }
}
