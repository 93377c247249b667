package io.ashlar.protocol;

import io.netty.buffer.ByteBuf;
import java.util.Objects;

/**
 * A simple-protocol query: one or more SQL statements as text.
 *
 * @param sql the query string
 * @see <a href="https://www.postgresql.org/docs/current/protocol-flow.html#PROTOCOL-FLOW-SIMPLE-QUERY">Simple Query</a>
 */
public record Query(String sql) implements FrontendMessage {

    public static final byte TYPE = 'Q';

    public Query {
        Objects.requireNonNull(sql, "sql");
    }

    @Override
    public void encode(ByteBuf out) {
        encode(out, java.nio.charset.StandardCharsets.UTF_8);
    }

    @Override
    public void encode(ByteBuf out, java.nio.charset.Charset text) {
        int start = Wire.begin(out, TYPE);
        Wire.writeCString(out, sql, text);
        Wire.end(out, start);
    }

    static FrontendMessage decodeBody(FrameReader body) {
        String sql = body.readCString();
        return body.finish(new Query(sql));
    }
}
