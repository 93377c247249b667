package io.ashlar.protocol;

import io.netty.buffer.ByteBuf;
import java.util.Objects;

/**
 * An error: the current command (ERROR) or the session (FATAL) failed. The session then waits for Sync in the extended protocol, or sends ReadyForQuery in the simple one.
 *
 * @param fields the fields, in wire order
 * @see <a href="https://www.postgresql.org/docs/current/protocol-message-formats.html#PROTOCOL-MESSAGE-FORMATS-ERRORRESPONSE">ErrorResponse</a>
 */
public record ErrorResponse(PgErrorFields fields) implements BackendMessage {

    public static final byte TYPE = 'E';

    public ErrorResponse {
        Objects.requireNonNull(fields, "fields");
    }

    /** An error made by the proxy: severity in S and V, SQLSTATE, message. */
    public static ErrorResponse of(String severity, String sqlState, String message) {
        return new ErrorResponse(PgErrorFields.of(severity, sqlState, message));
    }

    /** An ERROR: the command fails, the session goes on. */
    public static ErrorResponse error(String sqlState, String message) {
        return of(PgErrorFields.ERROR, sqlState, message);
    }

    /** A FATAL error: send it, then close the connection. */
    public static ErrorResponse fatal(String sqlState, String message) {
        return of(PgErrorFields.FATAL, sqlState, message);
    }

    /** A FATAL protocol violation for a {@link FrontendMessage.Malformed} input. */
    public static ErrorResponse fatal(FrontendMessage.Malformed malformed) {
        return fatal(malformed.sqlState(), malformed.reason());
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

    public static ErrorResponse decode(ByteBuf in) {
        int end = Wire.readHeader(in, 'E') + in.readerIndex();
        ErrorResponse result = new ErrorResponse(PgErrorFields.decode(in));
        Wire.expectEnd(in, end);
        return result;
    }
}
