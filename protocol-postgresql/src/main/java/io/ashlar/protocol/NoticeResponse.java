package io.ashlar.protocol;

import io.netty.buffer.ByteBuf;
import java.util.Objects;

/**
 * A warning or notice; the command goes on.
 *
 * @param fields the fields, in wire order
 * @see <a href="https://www.postgresql.org/docs/current/protocol-message-formats.html#PROTOCOL-MESSAGE-FORMATS-NOTICERESPONSE">NoticeResponse</a>
 */
public record NoticeResponse(PgErrorFields fields) implements BackendMessage {

    public static final byte TYPE = 'N';

    public NoticeResponse {
        Objects.requireNonNull(fields, "fields");
    }

    /** A notice made by the proxy: severity in S and V, SQLSTATE, message. */
    public static NoticeResponse of(String severity, String sqlState, String message) {
        return new NoticeResponse(PgErrorFields.of(severity, sqlState, message));
    }

    @Override
    public void encode(ByteBuf out) {
        encode(out, java.nio.charset.StandardCharsets.UTF_8);
    }

    @Override
    public void encode(ByteBuf out, java.nio.charset.Charset text) {
        int start = Wire.begin(out, TYPE);
        fields.encode(out, text);
        Wire.end(out, start);
    }

    public static NoticeResponse decode(ByteBuf in) {
        int end = Wire.readHeader(in, 'N') + in.readerIndex();
        NoticeResponse result = new NoticeResponse(PgErrorFields.decode(in));
        Wire.expectEnd(in, end);
        return result;
    }
}
