package io.ashlar.protocol;

import io.netty.buffer.ByteBuf;
import java.util.Arrays;

/**
 * The reply to an empty query string, in place of CommandComplete.
 *
 * @see <a href="https://www.postgresql.org/docs/current/protocol-message-formats.html#PROTOCOL-MESSAGE-FORMATS-EMPTYQUERYRESPONSE">EmptyQueryResponse</a>
 */
public final class EmptyQueryResponse implements BackendMessage {

    public static final EmptyQueryResponse INSTANCE = new EmptyQueryResponse();
    private static final byte[] BYTES = Wire.fixed('I');

    private EmptyQueryResponse() {
    }

    @Override
    public void encode(ByteBuf out) {
        out.writeBytes(BYTES);
    }

    public static EmptyQueryResponse decode(ByteBuf in) {
        if (in.readableBytes() < BYTES.length) {
            throw new IllegalArgumentException("truncated EmptyQueryResponse");
        }
        byte[] actual = new byte[BYTES.length];
        in.readBytes(actual);
        if (!Arrays.equals(actual, BYTES)) {
            throw new IllegalArgumentException("not a EmptyQueryResponse: " + Wire.hex(actual));
        }
        return INSTANCE;
    }

    @Override
    public String toString() {
        return "EmptyQueryResponse";
    }
}
