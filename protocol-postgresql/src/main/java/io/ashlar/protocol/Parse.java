package io.ashlar.protocol;

import io.netty.buffer.ByteBuf;
import java.util.Arrays;
import java.util.Objects;

/**
 * Extended protocol: create a prepared statement. The array is the decoder's own and is not
 * copied; treat it as read-only.
 *
 * @param statementName the prepared statement's name, empty for the unnamed statement
 * @param sql the query string
 * @param parameterTypeOids parameter type OIDs the client specified; 0 means unspecified
 * @see <a href="https://www.postgresql.org/docs/current/protocol-message-formats.html#PROTOCOL-MESSAGE-FORMATS-PARSE">Parse</a>
 */
public record Parse(String statementName, String sql, int[] parameterTypeOids) implements FrontendMessage {

    public static final byte TYPE = 'P';

    public Parse {
        Objects.requireNonNull(statementName, "statementName");
        Objects.requireNonNull(sql, "sql");
        Objects.requireNonNull(parameterTypeOids, "parameterTypeOids");
    }

    @Override
    public void encode(ByteBuf out) {
        encode(out, java.nio.charset.StandardCharsets.UTF_8);
    }

    @Override
    public void encode(ByteBuf out, java.nio.charset.Charset text) {
        int start = Wire.begin(out, TYPE);
        Wire.writeCString(out, statementName, text);
        Wire.writeCString(out, sql, text);
        out.writeShort(parameterTypeOids.length);
        for (int each : parameterTypeOids) {
            out.writeInt(each);
        }
        Wire.end(out, start);
    }

    static FrontendMessage decodeBody(FrameReader body) {
        String name = body.readName();
        String sql = body.readCString();
        int count = body.readCount16();
        int[] oids = body.readInt32Array(count);
        return body.finish(new Parse(name, sql, oids));
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Parse that && statementName.equals(that.statementName) && sql.equals(that.sql)
                && Arrays.equals(parameterTypeOids, that.parameterTypeOids);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * statementName.hashCode() + sql.hashCode()) + Arrays.hashCode(parameterTypeOids);
    }

    @Override
    public String toString() {
        return "Parse[statementName=" + statementName + ", sql=" + sql + ", parameterTypeOids="
                + Arrays.toString(parameterTypeOids) + "]";
    }
}
