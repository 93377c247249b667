package io.ashlar.protocol;

import io.netty.buffer.ByteBuf;

/**
 * The single byte {@code S} that answers an {@link SSLRequest} when the server speaks TLS: the
 * client starts a TLS handshake on the same connection, and everything after it (the
 * StartupMessage first) is encrypted. Not a typed message (no length).
 *
 * @see <a href="https://www.postgresql.org/docs/current/protocol-flow.html#PROTOCOL-FLOW-SSL">SSL Session Encryption</a>
 */
public final class EncryptionAccepted implements BackendMessage {

    public static final EncryptionAccepted INSTANCE = new EncryptionAccepted();
    public static final byte BYTE = 'S';

    private EncryptionAccepted() {
    }

    @Override
    public void encode(ByteBuf out) {
        out.writeByte(BYTE);
    }

    /** Reads the answer to an SSLRequest; throws on any byte but {@code S}. */
    public static EncryptionAccepted decode(ByteBuf in) {
        byte actual = in.readByte();
        if (actual != BYTE) {
            throw new IllegalArgumentException("not an encryption acceptance: " + (actual & 0xff));
        }
        return INSTANCE;
    }

    @Override
    public String toString() {
        return "EncryptionAccepted";
    }
}
