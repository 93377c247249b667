package io.ashlar.protocol;

import io.netty.buffer.ByteBuf;
import java.util.Objects;

/**
 * Extended protocol: describe a prepared statement ({@code 'S'}) or a portal ({@code 'P'}).
 *
 * @param kind {@link #STATEMENT} or {@link #PORTAL}
 * @param name the statement or portal name, empty for the unnamed one
 * @see <a href="https://www.postgresql.org/docs/current/protocol-message-formats.html#PROTOCOL-MESSAGE-FORMATS-DESCRIBE">Describe</a>
 */
public record Describe(byte kind, String name) implements FrontendMessage {

    public static final byte TYPE = 'D';
    public static final byte STATEMENT = 'S';
    public static final byte PORTAL = 'P';

    /** Describe the unnamed portal / statement: decoded without allocating. */
    public static final Describe UNNAMED_PORTAL = new Describe(PORTAL, "");
    public static final Describe UNNAMED_STATEMENT = new Describe(STATEMENT, "");

    public Describe {
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
        FrontendMessage result = body.finish(!name.isEmpty() ? new Describe(kind, name)
                : kind == PORTAL ? UNNAMED_PORTAL : UNNAMED_STATEMENT);
        if (result instanceof Describe && kind != STATEMENT && kind != PORTAL) {
            return new Malformed("invalid DESCRIBE message subtype " + kind);
        }
        return result;
    }
}
