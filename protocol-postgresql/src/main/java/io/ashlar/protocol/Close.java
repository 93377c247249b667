package io.ashlar.protocol;

import io.netty.buffer.ByteBuf;
import java.util.Objects;

/**
 * Extended protocol: close a prepared statement ({@code 'S'}) or a portal ({@code 'P'}).
 *
 * @param kind {@link #STATEMENT} or {@link #PORTAL}
 * @param name the statement or portal name, empty for the unnamed one
 * @see <a href="https://www.postgresql.org/docs/current/protocol-message-formats.html#PROTOCOL-MESSAGE-FORMATS-CLOSE">Close</a>
 */
public record Close(byte kind, String name) implements FrontendMessage {

    public static final byte TYPE = 'C';
    public static final byte STATEMENT = 'S';
    public static final byte PORTAL = 'P';

    public Close {
        Objects.requireNonNull(name, "name");
    }

    public boolean isStatement() {
        return kind == STATEMENT;
    }

    @Override
    public void encode(ByteBuf out) {
        encode(out, java.nio.charset.StandardCharsets.UTF_8);
    }

    @Override
    public void encode(ByteBuf out, java.nio.charset.Charset text) {
        int start = Wire.begin(out, TYPE);
        out.writeByte(kind);
        Wire.writeCString(out, name, text);
        Wire.end(out, start);
    }

    static FrontendMessage decodeBody(FrameReader body) {
        byte kind = body.readByte();
        String name = body.readName();
        // The subtype is judged after the whole body is read, as in PostgreSQL's postgres.c.
        FrontendMessage result = body.finish(new Close(kind, name));
        if (result instanceof Close && kind != STATEMENT && kind != PORTAL) {
            return new Malformed("invalid CLOSE message subtype " + kind);
        }
        return result;
    }
}
