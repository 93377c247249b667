package io.ashlar.protocol;

import static io.ashlar.protocol.WireBytes.ascii;
import static io.ashlar.protocol.WireBytes.b;
import static io.ashlar.protocol.WireBytes.concat;
import static io.ashlar.protocol.WireBytes.encoded;
import static io.ashlar.protocol.WireBytes.int16;
import static io.ashlar.protocol.WireBytes.int32;
import static io.ashlar.protocol.WireBytes.str;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/** Every backend message encoded and compared with hand-written bytes, then decoded back. */
final class BackendMessageEncodingTest {

    /** Asserts the encoding, and that decoding the bytes gives an equal message and consumes them all. */
    private static void assertWire(BackendMessage message, byte[] expected) {
        assertArrayEquals(expected, encoded(message), () -> "encoding of " + message);
        ByteBuf in = Unpooled.wrappedBuffer(expected);
        assertEquals(message, BackendMessages.decode(in));
        assertFalse(in.isReadable(), "bytes left after decoding " + message);
    }

    @Test
    void authenticationRequests() {
        assertWire(AuthenticationOk.INSTANCE, concat(b('R'), int32(8), int32(0)));
        assertWire(AuthenticationCleartextPassword.INSTANCE, concat(b('R'), int32(8), int32(3)));
        assertWire(new AuthenticationMD5Password(b(1, 2, 3, 4)),
                concat(b('R'), int32(12), int32(5), b(1, 2, 3, 4)));
        assertWire(new AuthenticationSASL(List.of("SCRAM-SHA-256")), concat(
                b('R'),
                int32(23),                          // 4 + 4 + 14 + 1
                int32(10),                          // SASL
                str("SCRAM-SHA-256"),               // the one mechanism
                b(0)));                             // end of list
        assertWire(AuthenticationSASLContinue.of("r=abc,s=c2FsdA==,i=4096"),
                concat(b('R'), int32(8 + 23), int32(11), ascii("r=abc,s=c2FsdA==,i=4096")));
        assertWire(AuthenticationSASLFinal.of("v=c2ln"), concat(b('R'), int32(14), int32(12), ascii("v=c2ln")));
    }

    @Test
    void openGaussSha256RequestFor351And350() {
        byte[] salt = new byte[32];
        for (int i = 0; i < salt.length; i++) {
            salt[i] = (byte) (0xa0 + i);
        }
        byte[] token = b(0xde, 0xad, 0xbe, 0xef);
        String saltHex = "a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf";
        assertWire(new AuthenticationSHA256Password(salt, token, OptionalInt.of(10000)), concat(
                b('R'),
                int32(88),                          // 4 + 4 + 4 + 64 + 8 + 4
                int32(10),                          // AUTH_REQ_SHA256
                int32(2),                           // stored method SHA256
                ascii(saltHex),                     // 64 hex chars, no NUL
                ascii("deadbeef"),                  // 8 hex chars, no NUL
                int32(10000)));                     // iterations (3.51 only)
        assertWire(new AuthenticationSHA256Password(salt, token, OptionalInt.empty()), concat(
                b('R'), int32(84), int32(10), int32(2), ascii(saltHex), ascii("deadbeef")));
    }

    @Test
    void sessionStartMessages() {
        assertWire(new ParameterStatus("server_version", "14.0"), concat(
                b('S'), int32(4 + 15 + 5), str("server_version"), str("14.0")));
        assertWire(new BackendKeyData(7, -2), concat(b('K'), int32(12), int32(7), int32(-2)));
        assertWire(ReadyForQuery.IDLE, concat(b('Z'), int32(5), b('I')));
        assertWire(ReadyForQuery.IN_TRANSACTION, concat(b('Z'), int32(5), b('T')));
        assertWire(ReadyForQuery.FAILED_TRANSACTION, concat(b('Z'), int32(5), b('E')));
        assertSame(ReadyForQuery.IN_TRANSACTION, ReadyForQuery.of('T'));
        assertWire(new NegotiateProtocolVersion(0, List.of("_pq_.x")), concat(
                b('v'), int32(4 + 4 + 4 + 7), int32(0), int32(1), str("_pq_.x")));
        assertArrayEquals(b('N'), encoded(EncryptionRefused.INSTANCE));
        assertArrayEquals(b('S'), encoded(EncryptionAccepted.INSTANCE));
    }

    @Test
    void rowDescriptionAndDataRow() {
        RowDescription description = new RowDescription(List.of(
                new RowDescription.Field("id", 16384, (short) 1, 23, (short) 4, -1, (short) 0),
                new RowDescription.Field("name", 0, (short) 0, 25, (short) -1, -1, (short) 1)));
        assertWire(description, concat(
                b('T'),
                int32(4 + 2 + (3 + 18) + (5 + 18)), // length
                int16(2),                           // two fields
                str("id"), int32(16384), int16(1),  // name, table OID, column number
                int32(23), int16(4), int32(-1),     // int4, size 4, no modifier
                int16(0),                           // text
                str("name"), int32(0), int16(0),
                int32(25), int16(-1), int32(-1),    // text type, variable size
                int16(1)));                         // binary
        assertWire(new DataRow(new byte[][] {b('4', '2'), null, new byte[0]}), concat(
                b('D'),
                int32(4 + 2 + 6 + 4 + 4),           // length
                int16(3),                           // three columns
                int32(2), b('4', '2'),              // "42"
                int32(-1),                          // NULL
                int32(0)));                         // empty string
    }

    @Test
    void dataRowStaticEncoderUsesOnlyTheFirstValues() {
        ByteBuf out = Unpooled.buffer();
        byte[][] reused = {b('a'), b('b'), b('c')};
        DataRow.encode(out, reused, 2);
        assertArrayEquals(concat(b('D'), int32(4 + 2 + 5 + 5), int16(2), int32(1), b('a'), int32(1), b('b')),
                ByteBufUtil.getBytes(out));
    }

    /** The session's path: columns it holds, the client's formats, and a column converted on the way. */
    @Test
    void rowDescriptionOfColumnsAndDataRowWithAValueWriter() {
        RowDescription.Column[] columns = {
            new RowDescription.Field("id", 16384, (short) 1, 23, (short) 4, -1, (short) 0),
            new RowDescription.Field("é", 0, (short) 0, 25, (short) -1, -1, (short) 0)};
        ByteBuf out = Unpooled.buffer();
        RowDescription.encode(out, columns, new short[] {1, 0});
        assertArrayEquals(concat(
                b('T'), int32(4 + 2 + (3 + 18) + (3 + 18)), int16(2),
                str("id"), int32(16384), int16(1), int32(23), int16(4), int32(-1), int16(1), // binary, as asked
                b(0xc3, 0xa9, 0), int32(0), int16(0), int32(25), int16(-1), int32(-1), int16(0)), // UTF-8 name, text
                ByteBufUtil.getBytes(out));
        out.clear();
        RowDescription.encode(out, columns, null);
        assertArrayEquals(encoded(new RowDescription(List.of((RowDescription.Field) columns[0], (RowDescription.Field) columns[1]))),
                ByteBufUtil.getBytes(out), "no formats: all text, as the record of text fields");
        out.clear();
        byte[][] row = {b('4', '2'), null, b('x')};
        DataRow.Values values = new DataRow.Values() {
            @Override
            public int columnCount() {
                return 3;
            }

            @Override
            public byte[] value(int column) {
                return row[column];
            }
        };
        // A writer that sends the value's length in binary (an int4) instead of the text.
        DataRow.ValueWriter lengthOf = (text, offset, length, buffer) -> buffer.writeInt(4).writeInt(length);
        DataRow.encode(out, values, new DataRow.ValueWriter[] {lengthOf, lengthOf, null});
        assertArrayEquals(concat(b('D'), int32(4 + 2 + 8 + 4 + 5), int16(3),
                int32(4), int32(2),      // "42" written by the writer
                int32(-1),               // NULL never reaches a writer
                int32(1), b('x')),       // no writer: as the backend sent it
                ByteBufUtil.getBytes(out));
    }

    @Test
    void commandCompleteAndItsCountEncoder() {
        assertWire(new CommandComplete("SELECT 1"), concat(b('C'), int32(13), str("SELECT 1")));
        ByteBuf out = Unpooled.buffer();
        CommandComplete.encode(out, "INSERT 0", 1234567890123L);
        CommandComplete.encode(out, "UPDATE", 0);
        CommandComplete.encode(out, "DELETE", 10);
        assertEquals(List.of(new CommandComplete("INSERT 0 1234567890123"), new CommandComplete("UPDATE 0"),
                new CommandComplete("DELETE 10")), BackendMessages.decodeAll(out));
    }

    @Test
    void fixedReplies() {
        assertWire(EmptyQueryResponse.INSTANCE, concat(b('I'), int32(4)));
        assertWire(ParseComplete.INSTANCE, concat(b('1'), int32(4)));
        assertWire(BindComplete.INSTANCE, concat(b('2'), int32(4)));
        assertWire(CloseComplete.INSTANCE, concat(b('3'), int32(4)));
        assertWire(NoData.INSTANCE, concat(b('n'), int32(4)));
        assertWire(PortalSuspended.INSTANCE, concat(b('s'), int32(4)));
        assertWire(CopyDone.INSTANCE, concat(b('c'), int32(4)));
    }

    @Test
    void errorResponseWritesSeverityTwice() {
        assertWire(ErrorResponse.error("42P01", "relation \"t\" does not exist"), concat(
                b('E'),
                int32(4 + 7 + 7 + 7 + 29 + 1),      // length: each field is code, text, NUL
                b('S'), str("ERROR"),               // localized severity
                b('V'), str("ERROR"),               // severity, never localized
                b('C'), str("42P01"),               // SQLSTATE
                b('M'), str("relation \"t\" does not exist"),
                b(0)));                             // end of fields
    }

    /** What PostgreSQL sends a client that asked for protocol 2.0: 'E', the text, NUL; no length, no fields. */
    @Test
    void protocol2ErrorResponseIsTypeAndText() {
        ErrorResponseProtocol2 error = ErrorResponseProtocol2.fatal("unsupported frontend protocol 2.0: server supports 3.0 to 3.0");
        byte[] expected = concat(
                b('E'),
                str("FATAL:  unsupported frontend protocol 2.0: server supports 3.0 to 3.0\n")); // two spaces, a newline, NUL
        assertArrayEquals(expected, encoded(error));
        ByteBuf in = Unpooled.wrappedBuffer(expected);
        assertEquals(error, ErrorResponseProtocol2.decode(in));
        assertFalse(in.isReadable());
        assertThrows(IllegalArgumentException.class, () -> ErrorResponseProtocol2.decode(Unpooled.wrappedBuffer(concat(b('E'), ascii("no nul")))));
    }

    @Test
    void errorFieldsPassThroughInOrderWithUnknownCodes() {
        PgErrorFields fields = PgErrorFields.of(
                b('S', 'V', 'C', 'M', 'X', 'D', 'P', 'F', 'L', 'R'),
                new String[] {"ERROR", "ERROR", "22012", "division by zero", "future field", "detail", "8",
                        "int.c", "842", "int4div"});
        ErrorResponse error = new ErrorResponse(fields);
        ByteBuf in = Unpooled.wrappedBuffer(encoded(error));
        ErrorResponse decoded = (ErrorResponse) BackendMessages.decode(in);
        assertEquals(error, decoded);
        assertEquals((byte) 'X', decoded.fields().code(4));
        assertEquals("22012", decoded.fields().sqlState());
        assertEquals("division by zero", decoded.fields().message());
        assertEquals("ERROR", decoded.fields().severity());
        PgErrorFields built = PgErrorFields.builder("ERROR", "42601", "syntax error").position(8).hint("h").build();
        assertEquals("S=ERROR V=ERROR C=42601 M=syntax error P=8 H=h", built.toString());
        assertWire(new NoticeResponse(built), encoded(new NoticeResponse(built)));
        assertThrows(IllegalArgumentException.class, () -> PgErrorFields.of(b(0), new String[] {"x"}));
    }

    @Test
    void extendedProtocolAndCopyMessages() {
        assertWire(new ParameterDescription(new int[] {23, 25}), concat(
                b('t'), int32(4 + 2 + 8), int16(2), int32(23), int32(25)));
        assertWire(new CopyInResponse((byte) 0, new short[] {0, 0}), concat(
                b('G'), int32(4 + 1 + 2 + 4), b(0), int16(2), int16(0), int16(0)));
        assertWire(new CopyOutResponse((byte) 1, new short[] {1}), concat(
                b('H'), int32(4 + 1 + 2 + 2), b(1), int16(1), int16(1)));
        assertWire(new CopyData(ascii("1\tx\n")), concat(b('d'), int32(8), ascii("1\tx\n")));
    }
}
