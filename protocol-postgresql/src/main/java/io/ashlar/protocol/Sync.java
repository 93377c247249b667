package io.ashlar.protocol;

import io.netty.buffer.ByteBuf;

/**
 * Extended protocol
 *
 * @see <a href="https://www.postgresql.org/docs/current/protocol-message-formats.html# end of an extended-query batch; the server closes the implicit transaction if any, and answers ReadyForQuery.:PROTOCOL-MESSAGE-FORMATS-SYNC">Sync</a>
 */
public final class Sync implements FrontendMessage {

    public static final byte TYPE = 'S';
    public static final Sync INSTANCE = new Sync();
    private static final byte[] BYTES = Wire.fixed('S');

    private Sync() {
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
        return "Sync";
    }
}
