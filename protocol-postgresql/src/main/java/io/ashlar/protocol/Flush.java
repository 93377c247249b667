package io.ashlar.protocol;

import io.netty.buffer.ByteBuf;

/**
 * Extended protocol
 *
 * @see <a href="https://www.postgresql.org/docs/current/protocol-message-formats.html# send whatever replies are pending without waiting for Sync.:PROTOCOL-MESSAGE-FORMATS-FLUSH">Flush</a>
 */
public final class Flush implements FrontendMessage {

    public static final byte TYPE = 'H';
    public static final Flush INSTANCE = new Flush();
    private static final byte[] BYTES = Wire.fixed('H');

    private Flush() {
    }

    @Override
    public void encode(ByteBuf out) {
        out.writeBytes(BYTES);
    }

    static FrontendMessage decodeBody(FrameReader body) {
        return body.finish(INSTANCE);
    }

    @Override
    public String toString() {
        return "Flush";
    }
}
