package io.ashlar.protocol;

import io.netty.buffer.ByteBuf;
import java.util.Arrays;
import java.util.Objects;

/**
 * A message a client sends, as {@link PgFrontendDecoder} decodes it: plain Java values
 * ({@code String}, {@code byte[]}), never a {@code ByteBuf}. Each record is named as the
 * <a href="https://www.postgresql.org/docs/current/protocol-message-formats.html">Message
 * Formats</a> page names it and carries its own {@code encode}, used by tests and by the trace
 * printer to build real client bytes.
 *
 * <p>Input that is not a valid message becomes one {@link Malformed} value instead of an
 * exception. As in PostgreSQL, broken framing (an unknown type byte, an impossible length) is
 * FATAL and nothing after it is read; a well-framed message whose body does not read is an ERROR
 * at its place in the stream, and the messages after it are decoded as usual. A message larger
 * than the proxy lets a client make it hold is read past and becomes a {@link TooLarge}.
 */
public sealed interface FrontendMessage
        permits StartupMessage, SSLRequest, GSSENCRequest, CancelRequest, Query, Parse, Bind, Describe,
        Execute, Close, Sync, Flush, Terminate, PasswordMessage, CopyData, CopyDone, CopyFail,
        FunctionCall, BatchBind, FrontendMessage.Malformed, FrontendMessage.TooLarge {

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
     * Bytes that are not a valid message, in one of two kinds, as PostgreSQL's {@code postgres.c}
     * and {@code pqformat.c} tell them apart:
     * <ul>
     * <li><b>fatal</b> ({@link #type()} 0): the framing is broken (a bad startup packet, an unknown
     * message type, a length below 4 or over the type's cap), so no later byte can be trusted.
     * Answer with a FATAL ErrorResponse carrying {@link #sqlState()} and {@link #reason()}, then
     * close the connection.</li>
     * <li><b>a malformed body</b> ({@link #type()} the message's type byte): the frame is whole but
     * its fields do not read ({@code insufficient data left in message}, {@code invalid string in
     * message}, {@code invalid message format}, a bad Describe or Close subtype, a Bind whose
     * parameter format count matches neither 0, 1 nor its values). PostgreSQL answers ERROR
     * (08P01) at the message's place and goes on: after an extended-protocol message it skips to
     * Sync, after a Query or FunctionCall it sends ReadyForQuery, and while it skips to Sync it
     * does not read bodies at all. {@link #frame()} holds the whole message as the client sent it,
     * so that a relay can let the server judge it.</li>
     * </ul>
     *
     * @param reason what was wrong, in PostgreSQL's wording ({@code invalid frontend message type
     *     120}, {@code invalid message length}, {@code insufficient data left in message})
     * @param sqlState {@value #PROTOCOL_VIOLATION} (protocol_violation), or 0A000 for an
     *     unsupported protocol version
     * @param protocol2 the startup packet asked for protocol 1.x or 2.x: the answer is
     *     {@link ErrorResponseProtocol2}, which such a client can read, as PostgreSQL answers it
     * @param type 0 when the framing is broken; else the type byte of the message whose body is malformed
     * @param frame a malformed body's whole message (type byte, length, body); empty when fatal
     */
    record Malformed(String reason, String sqlState, boolean protocol2, byte type, byte[] frame) implements FrontendMessage {

        public static final String PROTOCOL_VIOLATION = "08P01";
        public static final String FEATURE_NOT_SUPPORTED = "0A000";

        public Malformed {
            Objects.requireNonNull(reason, "reason");
            Objects.requireNonNull(sqlState, "sqlState");
            Objects.requireNonNull(frame, "frame");
        }

        /** Broken framing from a client of any protocol version. */
        public Malformed(String reason, String sqlState, boolean protocol2) {
            this(reason, sqlState, protocol2, (byte) 0, Wire.EMPTY_BYTES);
        }

        /** Broken framing from a protocol 3 client. */
        public Malformed(String reason, String sqlState) {
            this(reason, sqlState, false);
        }

        /** Broken framing: a protocol violation (08P01). */
        public Malformed(String reason) {
            this(reason, PROTOCOL_VIOLATION);
        }

        /** A malformed body of a message of {@code type}: an ERROR (08P01) at its place. */
        public static Malformed body(byte type, String reason, byte[] frame) {
            return new Malformed(reason, PROTOCOL_VIOLATION, false, type, frame);
        }

        /** A body that does not read for another reason than its framing (22021: text not in the session's encoding). */
        public static Malformed body(byte type, String reason, String sqlState, byte[] frame) {
            return new Malformed(reason, sqlState, false, type, frame);
        }

        /** Whether the framing is broken: the session answers FATAL and closes. */
        public boolean fatal() {
            return type == 0;
        }

        /** Writes the message as the client sent it (nothing when the framing was broken). */
        @Override
        public void encode(ByteBuf out) {
            out.writeBytes(frame);
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof Malformed that && reason.equals(that.reason) && sqlState.equals(that.sqlState)
                    && protocol2 == that.protocol2 && type == that.type && Arrays.equals(frame, that.frame);
        }

        @Override
        public int hashCode() {
            return Objects.hash(reason, sqlState, protocol2, type, Arrays.hashCode(frame));
        }

        @Override
        public String toString() {
            return "Malformed[" + (fatal() ? "fatal" : "type=" + (char) type) + ", " + sqlState + " " + reason + "]";
        }
    }

    /**
     * A message the proxy did not keep: larger than a statement's memory budget, or than the memory
     * left to all clients' messages now ({@value #OUT_OF_MEMORY} either way, see {@link MessageMemory}).
     * Its bytes were read and dropped, so the stream stays in step, as
     * PostgreSQL's {@code pq_getmessage} discards a message it cannot allocate and raises its
     * ERROR; answer that ERROR at the message's place, as for a {@link Malformed} body.
     *
     * @param type the message's type byte
     * @param length its length as the client declared it (counting the length itself)
     * @param sqlState {@value #OUT_OF_MEMORY}
     * @param detail PostgreSQL's detail for the case
     * @param hint what the client or the operator can do
     */
    record TooLarge(byte type, int length, String sqlState, String detail, String hint) implements FrontendMessage {

        public static final String OUT_OF_MEMORY = "53200";
        /** PostgreSQL's message when {@code palloc} fails. */
        public static final String MESSAGE = "out of memory";

        public TooLarge {
            Objects.requireNonNull(sqlState, "sqlState");
            Objects.requireNonNull(detail, "detail");
            Objects.requireNonNull(hint, "hint");
        }

        /** Writes nothing: the message was not kept. */
        @Override
        public void encode(ByteBuf out) {
        }
    }
}
