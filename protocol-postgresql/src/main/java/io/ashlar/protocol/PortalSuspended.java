package io.ashlar.protocol;

import io.netty.buffer.ByteBuf;
import java.util.Arrays;

/**
 * Extended protocol: Execute reached its row limit before the portal ran out; the client may Execute again.
 *
 * @see <a href="https://www.postgresql.org/docs/current/protocol-message-formats.html#PROTOCOL-MESSAGE-FORMATS-PORTALSUSPENDED">PortalSuspended</a>
 */
public final class PortalSuspended implements BackendMessage {

    public static final PortalSuspended INSTANCE = new PortalSuspended();
    private static final byte[] BYTES = Wire.fixed('s');

    private PortalSuspended() {
    }

    @Override
    public void encode(ByteBuf out) {
        out.writeBytes(BYTES);
    }

    public static PortalSuspended decode(ByteBuf in) {
        if (in.readableBytes() < BYTES.length) {
            throw new IllegalArgumentException("truncated PortalSuspended");
        }
        byte[] actual = new byte[BYTES.length];
        in.readBytes(actual);
        if (!Arrays.equals(actual, BYTES)) {
            throw new IllegalArgumentException("not a PortalSuspended: " + Wire.hex(actual));
        }
        return INSTANCE;
    }

    @Override
    public String toString() {
        return "PortalSuspended";
    }
}
