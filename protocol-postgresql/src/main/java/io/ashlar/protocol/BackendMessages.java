package io.ashlar.protocol;

import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads backend messages back from bytes, for tests and traces: whatever the proxy wrote to a
 * client can be checked as values. Not used on the hot path; throws
 * {@link IllegalArgumentException} on bytes it does not expect.
 */
public final class BackendMessages {

    private BackendMessages() {
    }

    /** Decodes the next message in {@code in} and advances past it. */
    public static BackendMessage decode(ByteBuf in) {
        byte type = in.getByte(in.readerIndex());
        return switch (type) {
            case 'R' -> decodeAuthentication(in);
            case 'S' -> ParameterStatus.decode(in);
            case 'K' -> BackendKeyData.decode(in);
            case 'Z' -> ReadyForQuery.decode(in);
            case 'T' -> RowDescription.decode(in);
            case 'D' -> DataRow.decode(in);
            case 'C' -> CommandComplete.decode(in);
            case 'I' -> EmptyQueryResponse.decode(in);
            case 'E' -> ErrorResponse.decode(in);
            case 'N' -> isNoticeResponse(in) ? NoticeResponse.decode(in) : EncryptionRefused.decode(in);
            case '1' -> ParseComplete.decode(in);
            case '2' -> BindComplete.decode(in);
            case '3' -> CloseComplete.decode(in);
            case 'n' -> NoData.decode(in);
            case 't' -> ParameterDescription.decode(in);
            case 's' -> PortalSuspended.decode(in);
            case 'G' -> CopyInResponse.decode(in);
            case 'H' -> CopyOutResponse.decode(in);
            case 'd' -> CopyData.decode(in);
            case 'c' -> CopyDone.decode(in);
            case 'v' -> NegotiateProtocolVersion.decode(in);
            case 'A' -> NotificationResponse.decode(in);
            default -> throw new IllegalArgumentException("unknown backend message type " + (type & 0xff));
        };
    }

    /** Decodes every message in {@code in}. */
    public static List<BackendMessage> decodeAll(ByteBuf in) {
        List<BackendMessage> result = new ArrayList<>();
        while (in.isReadable()) {
            result.add(decode(in));
        }
        return result;
    }

    /**
     * {@code N} is both a NoticeResponse and the one-byte refusal of an SSLRequest; a notice has
     * a length that fits in what follows, and at least one field.
     */
    private static boolean isNoticeResponse(ByteBuf in) {
        if (in.readableBytes() < 6) {
            return false;
        }
        int length = in.getInt(in.readerIndex() + 1);
        return length >= 5 && length <= in.readableBytes() - 1 && in.getByte(in.readerIndex() + 5) != 0;
    }

    /**
     * Type {@code 'R'} covers every authentication request; the Int32 after the length says
     * which. Code 10 is SASL in PostgreSQL and SHA256 in openGauss: openGauss's request is 84 or
     * 88 bytes long and continues with stored method 2, which no SASL mechanism list can.
     */
    private static BackendMessage decodeAuthentication(ByteBuf in) {
        int start = in.readerIndex();
        int length = in.getInt(start + 1);
        int code = in.getInt(start + 5);
        return switch (code) {
            case 0 -> AuthenticationOk.decode(in);
            case 3 -> AuthenticationCleartextPassword.decode(in);
            case AuthenticationMD5Password.CODE -> AuthenticationMD5Password.decode(in);
            case AuthenticationSASL.CODE -> (length == 84 || length == 88)
                    && in.getInt(start + 9) == AuthenticationSHA256Password.STORED_METHOD_SHA256
                    ? AuthenticationSHA256Password.decode(in) : AuthenticationSASL.decode(in);
            case AuthenticationSASLContinue.CODE -> AuthenticationSASLContinue.decode(in);
            case AuthenticationSASLFinal.CODE -> AuthenticationSASLFinal.decode(in);
            default -> throw new IllegalArgumentException("unknown authentication request " + code);
        };
    }
}
