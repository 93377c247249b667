package io.ashlar.protocol;

import io.netty.buffer.ByteBuf;

/**
 * The single byte {@code N} that answers an {@link SSLRequest} or a {@link GSSENCRequest}: no
 * encryption, carry on with a StartupMessage in the clear. Not a typed message (no length).
 *
 * @see <a href="https://www.postgresql.org/docs/current/protocol-flow.html#PROTOCOL-FLOW-SSL">SSL Session Encryption</a>
 */
public final class EncryptionRefused implements BackendMessage {

    public static final EncryptionRefused INSTANCE = new EncryptionRefused();
    public static final byte BYTE = 'N';

    private EncryptionRefused() {
    }

    @Override
    public void encode(ByteBuf out) {
        out.writeByte(BYTE);
    }

    public static EncryptionRefused decode(ByteBuf in) {
        byte actual = in.readByte();
        if (actual != BYTE) {
            throw new IllegalArgumentException("not an encryption refusal: " + (actual & 0xff));
        }
        return INSTANCE;
    }

    @Override
    public String toString() {
        return "EncryptionRefused";
    }
}
