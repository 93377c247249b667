package io.ashlar.protocol;

import io.netty.buffer.ByteBuf;

/**
 * A client asking to switch to TLS before its real startup packet. A proxy with TLS answers the
 * single byte {@code S} ({@link EncryptionAccepted}) and the TLS handshake follows; one without
 * answers {@code N} ({@link EncryptionRefused}) and the client sends its StartupMessage in the
 * clear on the same connection.
 *
 * @see <a href="https://www.postgresql.org/docs/current/protocol-flow.html#PROTOCOL-FLOW-SSL">SSL Session Encryption</a>
 */
public final class SSLRequest implements FrontendMessage {

    public static final int CODE = 80877103;
    public static final SSLRequest INSTANCE = new SSLRequest();

    private SSLRequest() {
    }

    @Override
    public void encode(ByteBuf out) {
        out.writeInt(8);
        out.writeInt(CODE);
    }

    @Override
    public String toString() {
        return "SSLRequest";
    }
}
