package io.ashlar.protocol;

import io.netty.buffer.ByteBuf;
import java.util.Objects;

/**
 * Extended protocol: run a portal.
 *
 * @param portal the portal name, empty for the unnamed portal
 * @param maxRows the most rows to return; 0 (or less) means no limit
 * @see <a href="https://www.postgresql.org/docs/current/protocol-message-formats.html#PROTOCOL-MESSAGE-FORMATS-EXECUTE">Execute</a>
 */
public record Execute(String portal, int maxRows) implements FrontendMessage {

    public static final byte TYPE = 'E';

    /** Run the unnamed portal to its end: what nearly every client sends, decoded without allocating. */
    public static final Execute UNNAMED_ALL = new Execute("", 0);

    public Execute {
        Objects.requireNonNull(portal, "portal");
    }

    @Override
    public void encode(ByteBuf out) {
        encode(out, java.nio.charset.StandardCharsets.UTF_8);
    }

    @Override
    public void encode(ByteBuf out, java.nio.charset.Charset text) {
        int start = Wire.begin(out, TYPE);
        Wire.writeCString(out, portal, text);
        out.writeInt(maxRows);
        Wire.end(out, start);
    }

    static FrontendMessage decodeBody(FrameReader body) {
        String portal = body.readName();
        int maxRows = body.readInt32();
        return body.finish(portal.isEmpty() && maxRows == 0 ? UNNAMED_ALL : new Execute(portal, maxRows));
    }
}
