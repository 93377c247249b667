package io.ashlar.protocol;

import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.List;

/**
 * Tells a client that asked for a newer 3.x minor version (PostgreSQL 18's libpq asks for 3.2)
 * or for {@code _pq_.} protocol options which version the server speaks and which options it
 * does not know. Sent right after the StartupMessage, before authentication; the session then
 * goes on in 3.0.
 *
 * @param newestMinorVersion the newest minor version the server supports (0)
 * @param unrecognizedOptions the client's {@code _pq_.} options the server does not know
 * @see <a href="https://www.postgresql.org/docs/current/protocol-message-formats.html#PROTOCOL-MESSAGE-FORMATS-NEGOTIATEPROTOCOLVERSION">NegotiateProtocolVersion</a>
 */
public record NegotiateProtocolVersion(int newestMinorVersion, List<String> unrecognizedOptions)
        implements BackendMessage {

    public static final byte TYPE = 'v';

    public NegotiateProtocolVersion {
        unrecognizedOptions = List.copyOf(unrecognizedOptions);
    }

    @Override
    public void encode(ByteBuf out) {
        int start = Wire.begin(out, TYPE);
        out.writeInt(newestMinorVersion);
        out.writeInt(unrecognizedOptions.size());
        for (String each : unrecognizedOptions) {
            Wire.writeCString(out, each);
        }
        Wire.end(out, start);
    }

    public static NegotiateProtocolVersion decode(ByteBuf in) {
        int end = Wire.readHeader(in, 'v') + in.readerIndex();
        int minor = in.readInt();
        int count = in.readInt();
        if (count < 0 || count > end - in.readerIndex()) {
            throw new IllegalArgumentException("invalid option count " + count);
        }
        List<String> options = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            options.add(Wire.readCString(in));
        }
        Wire.expectEnd(in, end);
        return new NegotiateProtocolVersion(minor, options);
    }
}
