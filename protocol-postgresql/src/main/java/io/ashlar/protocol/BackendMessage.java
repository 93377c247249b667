package io.ashlar.protocol;

import io.netty.buffer.ByteBuf;

/**
 * A message the proxy sends to a client. Each one encodes itself into the caller's buffer;
 * messages that never change are singletons whose bytes are encoded once. The hottest ones
 * ({@link DataRow}, {@link CommandComplete}) also have static encoders that take plain values
 * and build no message object at all. Each class has a static {@code decode(ByteBuf)} for tests
 * (see {@link BackendMessages#decode}), which throws on bytes it does not expect.
 *
 * @see <a href="https://www.postgresql.org/docs/current/protocol-message-formats.html">Message Formats</a>
 */
public sealed interface BackendMessage
        permits AuthenticationOk, AuthenticationCleartextPassword, AuthenticationMD5Password, AuthenticationSASL,
        AuthenticationSASLContinue, AuthenticationSASLFinal, AuthenticationSHA256Password, ParameterStatus,
        BackendKeyData, ReadyForQuery, RowDescription, DataRow, CommandComplete, EmptyQueryResponse,
        ErrorResponse, ErrorResponseProtocol2, NoticeResponse, ParseComplete, BindComplete, CloseComplete, NoData, ParameterDescription,
        PortalSuspended, CopyInResponse, CopyOutResponse, CopyData, CopyDone, NegotiateProtocolVersion,
        EncryptionRefused, EncryptionAccepted, NotificationResponse {

    /** Writes the message, type byte and length included. */
    void encode(ByteBuf out);

    /**
     * Writes the message with its strings in {@code text}, the session's client_encoding (messages
     * without strings of a client's encoding ignore it).
     */
    default void encode(ByteBuf out, java.nio.charset.Charset text) {
        encode(out);
    }
}
