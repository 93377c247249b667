package io.ashlar.protocol;

import io.netty.buffer.ByteBuf;

/**
 * A client asking for GSSAPI encryption before its startup packet. Refused with the byte
 * {@code N} ({@link EncryptionRefused}); libpq then tries SSL or plain text.
 *
 * @see <a href="https://www.postgresql.org/docs/current/protocol-flow.html#PROTOCOL-FLOW-GSSAPI">GSSAPI Session Encryption</a>
 */
public final class GSSENCRequest implements FrontendMessage {

    public static final int CODE = 80877104;
    public static final GSSENCRequest INSTANCE = new GSSENCRequest();

    private GSSENCRequest() {
    }

    @Override
    public void encode(ByteBuf out) {
        out.writeInt(8);
        out.writeInt(CODE);
    }

    @Override
    public String toString() {
        return "GSSENCRequest";
    }
}
