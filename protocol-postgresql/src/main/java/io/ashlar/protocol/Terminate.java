package io.ashlar.protocol;

import io.netty.buffer.ByteBuf;

/**
 * The client is closing the connection.
 *
 * @see <a href="https://www.postgresql.org/docs/current/protocol-message-formats.html#PROTOCOL-MESSAGE-FORMATS-TERMINATE">Terminate</a>
 */
public final class Terminate implements FrontendMessage {

    public static final byte TYPE = 'X';
    public static final Terminate INSTANCE = new Terminate();
    private static final byte[] BYTES = Wire.fixed('X');

    private Terminate() {
    }

    @Override
    public void encode(ByteBuf out) {
        out.writeBytes(BYTES);
    }

    static FrontendMessage decodeBody(FrameReader body) {
        // PostgreSQL does not look at a Terminate body: neither do we.
        return INSTANCE;
    }

    @Override
    public String toString() {
        return "Terminate";
    }
}
