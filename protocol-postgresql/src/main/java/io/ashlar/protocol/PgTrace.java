package io.ashlar.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * One line per message in the spirit of libpq's {@code PQtrace}: direction ({@code F} from the
 * client, {@code B} to it), message name, the length field's value, then the fields
 * ({@code "strings"} in double quotes, raw bytes in single quotes with non-printable bytes as
 * {@code \xNN}, numbers in decimal). For example {@code F Parse 27 "s1" "select $1" 2 23 0} or
 * {@code B ReadyForQuery 5 I}. Tests compare a whole exchange with a golden text; nothing on the
 * hot path uses it.
 *
 * @see <a href="https://www.postgresql.org/docs/current/libpq-control.html#LIBPQ-PQTRACE">PQtrace</a>
 */
public final class PgTrace {

    private static final HexFormat HEX = HexFormat.of();

    private PgTrace() {
    }

    /** The trace line of a message the client sent. */
    public static String describe(FrontendMessage message) {
        StringBuilder result = new StringBuilder("F ");
        switch (message) {
            case StartupMessage m -> {
                frontHeader(result, "StartupMessage", message).append(' ').append(m.majorVersion()).append(' ')
                        .append(m.minorVersion());
                for (Map.Entry<String, String> each : m.parameters().entrySet()) {
                    string(result, each.getKey());
                    string(result, each.getValue());
                }
                for (String each : m.protocolOptions()) {
                    string(result, each);
                }
            }
            case SSLRequest m -> frontHeader(result, "SSLRequest", m);
            case GSSENCRequest m -> frontHeader(result, "GSSENCRequest", m);
            case CancelRequest m -> frontHeader(result, "CancelRequest", m).append(' ').append(m.processId()).append(' ')
                    .append(m.secretKey());
            case Query m -> string(frontHeader(result, "Query", m), m.sql());
            case Parse m -> {
                string(string(frontHeader(result, "Parse", m), m.statementName()), m.sql());
                result.append(' ').append(m.parameterTypeOids().length);
                for (int each : m.parameterTypeOids()) {
                    result.append(' ').append(each);
                }
            }
            case Bind m -> {
                string(string(frontHeader(result, "Bind", m), m.portal()), m.statement());
                shorts(result, m.parameterFormats());
                values(result.append(' ').append(m.parameterValues().length), m.parameterValues());
                shorts(result, m.resultFormats());
            }
            case Describe m -> string(frontHeader(result, "Describe", m).append(' ').append((char) m.kind()), m.name());
            case Execute m -> string(frontHeader(result, "Execute", m), m.portal()).append(' ').append(m.maxRows());
            case Close m -> string(frontHeader(result, "Close", m).append(' ').append((char) m.kind()), m.name());
            case Sync m -> frontHeader(result, "Sync", m);
            case Flush m -> frontHeader(result, "Flush", m);
            case Terminate m -> frontHeader(result, "Terminate", m);
            case PasswordMessage m -> bytes(frontHeader(result, "PasswordMessage", m), m.body());
            case CopyData m -> bytes(frontHeader(result, "CopyData", m), m.data());
            case CopyDone m -> frontHeader(result, "CopyDone", m);
            case CopyFail m -> string(frontHeader(result, "CopyFail", m), m.message());
            case FunctionCall m -> frontHeader(result, "FunctionCall", m).append(' ').append(m.functionOid());
            case BatchBind m -> {
                frontHeader(result, "BatchBind", m).append(' ').append(m.rows().size());
                string(string(result, m.portal()), m.statement());
                shorts(result, m.parameterFormats());
                shorts(result, m.resultFormats());
                result.append(' ').append(m.parametersPerRow());
                for (int i = 0; i < m.rows().size(); i++) {
                    values(result, m.rows().get(i));
                }
                string(result.append(" E"), m.executePortal()).append(' ').append(m.maxRows());
            }
            case FrontendMessage.Malformed m -> string(string(result.append("Malformed"), m.sqlState()), m.reason());
            case FrontendMessage.TooLarge m -> result.append("TooLarge ").append((char) m.type()).append(' ')
                    .append(m.length()).append(' ').append(m.sqlState());
        }
        return result.toString();
    }

    /** The trace line of a message sent to the client. */
    public static String describe(BackendMessage message) {
        StringBuilder result = new StringBuilder("B ");
        switch (message) {
            case AuthenticationOk m -> backHeader(result, "AuthenticationOk", m);
            case AuthenticationCleartextPassword m -> backHeader(result, "AuthenticationCleartextPassword", m);
            case AuthenticationMD5Password m -> bytes(backHeader(result, "AuthenticationMD5Password", m), m.salt());
            case AuthenticationSASL m -> {
                backHeader(result, "AuthenticationSASL", m);
                for (String each : m.mechanisms()) {
                    string(result, each);
                }
            }
            case AuthenticationSASLContinue m -> bytes(backHeader(result, "AuthenticationSASLContinue", m), m.data());
            case AuthenticationSASLFinal m -> bytes(backHeader(result, "AuthenticationSASLFinal", m), m.data());
            case AuthenticationSHA256Password m -> {
                backHeader(result, "AuthenticationSHA256Password", m).append(' ')
                        .append(AuthenticationSHA256Password.STORED_METHOD_SHA256);
                string(string(result, HEX.formatHex(m.salt())), HEX.formatHex(m.token()));
                m.iterations().ifPresent(each -> result.append(' ').append(each));
            }
            case ParameterStatus m -> string(string(backHeader(result, "ParameterStatus", m), m.name()), m.value());
            case NotificationResponse m -> string(string(backHeader(result, "NotificationResponse", m).append(' ')
                    .append(m.processId()), m.channel()), m.payload());
            case BackendKeyData m -> backHeader(result, "BackendKeyData", m).append(' ').append(m.processId()).append(' ')
                    .append(m.secretKey());
            case ReadyForQuery m -> backHeader(result, "ReadyForQuery", m).append(' ').append(m.status());
            case RowDescription m -> {
                backHeader(result, "RowDescription", m).append(' ').append(m.fields().size());
                for (RowDescription.Field each : m.fields()) {
                    string(result, each.name()).append(' ').append(each.tableOid()).append(' ')
                            .append(each.columnNumber()).append(' ').append(each.typeOid()).append(' ')
                            .append(each.typeSize()).append(' ').append(each.typeModifier()).append(' ')
                            .append(each.format());
                }
            }
            case DataRow m -> values(backHeader(result, "DataRow", m).append(' ').append(m.values().length), m.values());
            case CommandComplete m -> string(backHeader(result, "CommandComplete", m), m.tag());
            case EmptyQueryResponse m -> backHeader(result, "EmptyQueryResponse", m);
            case ErrorResponse m -> fields(backHeader(result, "ErrorResponse", m), m.fields());
            case ErrorResponseProtocol2 m -> string(backHeader(result, "ErrorResponseProtocol2", m), m.text());
            case NoticeResponse m -> fields(backHeader(result, "NoticeResponse", m), m.fields());
            case ParseComplete m -> backHeader(result, "ParseComplete", m);
            case BindComplete m -> backHeader(result, "BindComplete", m);
            case CloseComplete m -> backHeader(result, "CloseComplete", m);
            case NoData m -> backHeader(result, "NoData", m);
            case ParameterDescription m -> {
                backHeader(result, "ParameterDescription", m).append(' ').append(m.parameterTypeOids().length);
                for (int each : m.parameterTypeOids()) {
                    result.append(' ').append(each);
                }
            }
            case PortalSuspended m -> backHeader(result, "PortalSuspended", m);
            case CopyInResponse m -> shorts(backHeader(result, "CopyInResponse", m).append(' ').append(m.overallFormat()),
                    m.columnFormats());
            case CopyOutResponse m -> shorts(backHeader(result, "CopyOutResponse", m).append(' ')
                    .append(m.overallFormat()), m.columnFormats());
            case CopyData m -> bytes(backHeader(result, "CopyData", m), m.data());
            case CopyDone m -> backHeader(result, "CopyDone", m);
            case NegotiateProtocolVersion m -> {
                backHeader(result, "NegotiateProtocolVersion", m).append(' ').append(m.newestMinorVersion()).append(' ')
                        .append(m.unrecognizedOptions().size());
                for (String each : m.unrecognizedOptions()) {
                    string(result, each);
                }
            }
            case EncryptionRefused m -> result.append("EncryptionRefused N");
            case EncryptionAccepted m -> result.append("EncryptionAccepted S");
        }
        return result.toString();
    }

    /** The trace of every backend message in {@code in}, one line each, each ending in a newline. */
    public static String describeBackend(ByteBuf in) {
        StringBuilder result = new StringBuilder();
        for (BackendMessage each : BackendMessages.decodeAll(in)) {
            result.append(describe(each)).append('\n');
        }
        return result.toString();
    }

    /** The trace of these frontend messages, one line each, each ending in a newline. */
    public static String describeFrontend(List<? extends FrontendMessage> messages) {
        StringBuilder result = new StringBuilder();
        for (FrontendMessage each : messages) {
            result.append(describe(each)).append('\n');
        }
        return result.toString();
    }

    private static StringBuilder frontHeader(StringBuilder result, String name, FrontendMessage message) {
        ByteBuf buffer = Unpooled.buffer();
        message.encode(buffer);
        int length = message instanceof StartupMessage || message instanceof SSLRequest
                || message instanceof GSSENCRequest || message instanceof CancelRequest
                ? buffer.readableBytes() : buffer.readableBytes() - 1;
        return result.append(name).append(' ').append(length);
    }

    private static StringBuilder backHeader(StringBuilder result, String name, BackendMessage message) {
        ByteBuf buffer = Unpooled.buffer();
        message.encode(buffer);
        return result.append(name).append(' ').append(buffer.readableBytes() - 1);
    }

    private static StringBuilder string(StringBuilder result, String value) {
        return result.append(" \"").append(value).append('"');
    }

    private static StringBuilder shorts(StringBuilder result, short[] values) {
        result.append(' ').append(values.length);
        for (short each : values) {
            result.append(' ').append(each);
        }
        return result;
    }

    private static StringBuilder values(StringBuilder result, byte[][] values) {
        for (byte[] each : values) {
            if (each == null) {
                result.append(" -1");
            } else {
                bytes(result.append(' ').append(each.length), each);
            }
        }
        return result;
    }

    private static StringBuilder bytes(StringBuilder result, byte[] value) {
        result.append(" '");
        for (byte each : value) {
            if (each >= 0x20 && each < 0x7f && each != '\\' && each != '\'') {
                result.append((char) each);
            } else {
                result.append("\\x").append(HEX.toHexDigits(each));
            }
        }
        return result.append('\'');
    }

    private static StringBuilder fields(StringBuilder result, PgErrorFields fields) {
        for (int i = 0; i < fields.size(); i++) {
            string(result.append(' ').append((char) fields.code(i)), fields.value(i));
        }
        return result;
    }
}
