package io.ashlar.protocol;

import io.netty.buffer.ByteBuf;
import java.util.Objects;

/**
 * A message a client sends, as {@link PgFrontendDecoder} decodes it: plain Java values
 * ({@code String}, {@code byte[]}), never a {@code ByteBuf}. Each record is named as the
 * <a href="https://www.postgresql.org/docs/current/protocol-message-formats.html">Message
 * Formats</a> page names it and carries its own {@code encode}, used by tests and by the trace
 * printer to build real client bytes.
 *
 * <p>Input that is not a valid message becomes one {@link Malformed} value instead of an
 * exception; the decoder then discards everything after it, and the session answers FATAL and
 * closes, as PostgreSQL does.
 */
public sealed interface FrontendMessage
        permits StartupMessage, SSLRequest, GSSENCRequest, CancelRequest, Query, Parse, Bind, Describe,
        Execute, Close, Sync, Flush, Terminate, PasswordMessage, CopyData, CopyDone, CopyFail,
        FunctionCall, BatchBind, FrontendMessage.Malformed {

    /** Writes the message as a client would send it. */
    void encode(ByteBuf out);

    /**
     * Writes the message with its strings (SQL text, names) in {@code text}: what a relay that
     * carries a client's text byte for byte sends on (ISO-8859-1 gives back each byte the decoder
     * read, whatever the client's encoding). Messages without strings write as {@link #encode(ByteBuf)}.
     */
    default void encode(ByteBuf out, java.nio.charset.Charset text) {
        encode(out);
    }

    /**
     * Bytes that are not a valid message: a bad length, an unknown type byte, a field running past
     * the end of its frame. Answer with a FATAL ErrorResponse carrying {@link #sqlState()} and
     * {@link #reason()}, then close the connection.
     *
     * @param reason what was wrong, in PostgreSQL's wording where it has one
     *     ({@code invalid frontend message type 120}, {@code invalid message length})
     * @param sqlState {@value #PROTOCOL_VIOLATION} (protocol_violation), or 0A000 for an
     *     unsupported protocol version
     * @param protocol2 the startup packet asked for protocol 1.x or 2.x: the answer is
     *     {@link ErrorResponseProtocol2}, which such a client can read, as PostgreSQL answers it
     */
    record Malformed(String reason, String sqlState, boolean protocol2) implements FrontendMessage {

        public static final String PROTOCOL_VIOLATION = "08P01";
        public static final String FEATURE_NOT_SUPPORTED = "0A000";

        public Malformed {
            Objects.requireNonNull(reason, "reason");
            Objects.requireNonNull(sqlState, "sqlState");
        }

        /** Bad input from a protocol 3 client. */
        public Malformed(String reason, String sqlState) {
            this(reason, sqlState, false);
        }

        /** A protocol violation (08P01). */
        public Malformed(String reason) {
            this(reason, PROTOCOL_VIOLATION);
        }

        /** Writes nothing: a malformed input is not a message. */
        @Override
        public void encode(ByteBuf out) {
        }
    }
}
