package io.ashlar.protocol;

import io.netty.buffer.ByteBuf;

/**
 * End of COPY data, in either direction.
 *
 * @see <a href="https://www.postgresql.org/docs/current/protocol-message-formats.html#PROTOCOL-MESSAGE-FORMATS-COPYDONE">CopyDone</a>
 */
public final class CopyDone implements FrontendMessage, BackendMessage {

    public static final byte TYPE = 'c';
    public static final CopyDone INSTANCE = new CopyDone();
    private static final byte[] BYTES = Wire.fixed('c');

    private CopyDone() {
    }

    @Override
    public void encode(ByteBuf out, java.nio.charset.Charset text) {
        encode(out); // bytes only: no text of an encoding
    }

    @Override
    public void encode(ByteBuf out) {
        out.writeBytes(BYTES);
    }

    static FrontendMessage decodeBody(FrameReader body) {
        // PostgreSQL does not look at a CopyDone body, in a COPY or out of one: neither do we.
        body.skipRemaining();
        return INSTANCE;
    }

    public static CopyDone decode(ByteBuf in) {
        int end = Wire.readHeader(in, 'c') + in.readerIndex();
        Wire.expectEnd(in, end);
        return INSTANCE;
    }

    @Override
    public String toString() {
        return "CopyDone";
    }
}
