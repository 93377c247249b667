package io.ashlar.protocol;

import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.List;

/**
 * Starts SASL authentication by listing the mechanisms the server accepts: {@code SCRAM-SHA-256},
 * preceded over TLS by {@code SCRAM-SHA-256-PLUS} (channel binding), as PostgreSQL 11+ lists them.
 *
 * @param mechanisms mechanism names, in order of preference
 * @see <a href="https://www.postgresql.org/docs/current/protocol-message-formats.html#PROTOCOL-MESSAGE-FORMATS-AUTHENTICATIONSASL">AuthenticationSASL</a>
 * @see <a href="https://www.postgresql.org/docs/current/sasl-authentication.html">SASL Authentication</a>
 */
public record AuthenticationSASL(List<String> mechanisms) implements BackendMessage {

    static final int CODE = 10;

    public AuthenticationSASL {
        mechanisms = List.copyOf(mechanisms);
    }

    @Override
    public void encode(ByteBuf out) {
        int start = Wire.begin(out, (byte) 'R');
        out.writeInt(CODE);
        for (String each : mechanisms) {
            Wire.writeCString(out, each);
        }
        out.writeByte(0);
        Wire.end(out, start);
    }

    public static AuthenticationSASL decode(ByteBuf in) {
        int end = Wire.readHeader(in, 'R') + in.readerIndex();
        AuthenticationMessages.expectCode(in, CODE);
        List<String> mechanisms = new ArrayList<>();
        for (String each = Wire.readCString(in); !each.isEmpty(); each = Wire.readCString(in)) {
            mechanisms.add(each);
        }
        Wire.expectEnd(in, end);
        return new AuthenticationSASL(mechanisms);
    }
}
