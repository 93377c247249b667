package io.ashlar.protocol;

import static io.ashlar.protocol.DecoderHarness.afterOpenGaussStartup;
import static io.ashlar.protocol.DecoderHarness.afterStartup;
import static io.ashlar.protocol.DecoderHarness.atStartup;
import static io.ashlar.protocol.DecoderHarness.everyWay;
import static io.ashlar.protocol.WireBytes.ascii;
import static io.ashlar.protocol.WireBytes.b;
import static io.ashlar.protocol.WireBytes.concat;
import static io.ashlar.protocol.WireBytes.int16;
import static io.ashlar.protocol.WireBytes.int32;
import static io.ashlar.protocol.WireBytes.str;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Bad input becomes exactly one {@link FrontendMessage.Malformed} with PostgreSQL's wording,
 * nothing is thrown, and no array is sized from a length the frame does not back. Broken framing
 * is fatal and nothing after it is decoded; a whole frame whose body does not read is a Malformed
 * of its type, carrying the frame, and decoding goes on behind it.
 */
final class MalformedInputTest {

    private static final FrontendMessage.Malformed INVALID_LENGTH =
            new FrontendMessage.Malformed("invalid message length");
    private static final FrontendMessage.Malformed INVALID_STARTUP_LENGTH =
            new FrontendMessage.Malformed("invalid length of startup packet");
    private static final FrontendMessage.Malformed INSUFFICIENT =
            new FrontendMessage.Malformed("insufficient data left in message");

    private static void assertMalformed(Supplier<PgFrontendDecoder> decoder, byte[] bytes,
                                        FrontendMessage.Malformed expected) {
        assertEquals(List.of(expected), everyWay(decoder, bytes));
    }

    /** The bytes are one whole frame whose body does not read: an ERROR of its type, with the frame kept. */
    private static void assertMalformedBody(Supplier<PgFrontendDecoder> decoder, byte[] bytes, String reason) {
        assertEquals(List.of(FrontendMessage.Malformed.body(bytes[0], reason, bytes)), everyWay(decoder, bytes));
    }

    @Test
    void typedMessageLengthBelowFour() {
        assertMalformed(afterStartup(), concat(b('Q'), int32(0)), INVALID_LENGTH);
        assertMalformed(afterStartup(), concat(b('Q'), int32(3)), INVALID_LENGTH);
    }

    @Test
    void negativeLength() {
        assertMalformed(afterStartup(), concat(b('Q'), int32(-1), str("x")), INVALID_LENGTH);
        assertMalformed(afterStartup(), concat(b('B'), int32(Integer.MIN_VALUE)), INVALID_LENGTH);
    }

    @Test
    void lengthOverThePerTypeCap() {
        assertMalformed(afterStartup(), concat(b('S'), int32(PgFrontendDecoder.PQ_SMALL_MESSAGE_LIMIT + 1)),
                INVALID_LENGTH);
        assertMalformed(afterStartup(), concat(b('Q'), int32(PgFrontendDecoder.PQ_LARGE_MESSAGE_LIMIT + 1)),
                INVALID_LENGTH);
        assertMalformed(afterStartup(), concat(b('p'), int32(PgFrontendDecoder.PG_MAX_AUTH_TOKEN_LENGTH + 1)),
                INVALID_LENGTH);
    }

    @Test
    void unknownTypeByte() {
        assertMalformed(afterStartup(), concat(b('x'), int32(4)),
                new FrontendMessage.Malformed("invalid frontend message type 120"));
        assertMalformed(afterStartup(), b(0xff), new FrontendMessage.Malformed("invalid frontend message type 255"));
    }

    @Test
    void stringWithoutNul() {
        assertMalformedBody(afterStartup(), concat(b('Q'), int32(8), ascii("abcd")), "invalid string in message");
        assertMalformedBody(afterStartup(), concat(b('P'), int32(10), str("s1"), ascii("sel")), "invalid string in message");
    }

    @Test
    void bytesLeftAfterTheFields() {
        assertMalformedBody(afterStartup(), concat(b('S'), int32(5), b(0)), "invalid message format");
        assertMalformedBody(afterStartup(), concat(b('Q'), int32(7), str("x"), b('y')), "invalid message format");
        assertMalformedBody(afterStartup(), concat(b('H'), int32(6), b(1, 2)), "invalid message format");
    }

    @Test
    void parameterCountLargerThanTheFrame() {
        assertMalformedBody(afterStartup(), concat(
                b('B'), int32(4 + 1 + 1 + 2 + 2),
                str(""), str(""),                   // portal, statement
                int16(0),                           // no formats
                int16(65535)),                      // 65535 values claimed, none present
                INSUFFICIENT.reason());
        assertMalformedBody(afterStartup(), concat(
                b('P'), int32(4 + 1 + 2 + 2 + 4),
                str(""), str("x"),
                int16(2), int32(23)),               // two types claimed, one present
                INSUFFICIENT.reason());
    }

    @Test
    void valueLengthPastTheFrameOrNegative() {
        assertMalformedBody(afterStartup(), concat(
                b('B'), int32(4 + 1 + 1 + 2 + 2 + 4 + 2 + 2),
                str(""), str(""), int16(0), int16(1),
                int32(1000),                        // 1000 bytes claimed
                b('a', 'b'),                        // two present
                int16(0)),
                INSUFFICIENT.reason());
        assertMalformedBody(afterStartup(), concat(
                b('B'), int32(4 + 1 + 1 + 2 + 2 + 4 + 2),
                str(""), str(""), int16(0), int16(1),
                int32(-2),                          // only -1 (NULL) may be negative
                int16(0)),
                INSUFFICIENT.reason());
    }

    @Test
    void batchBindClaimingBillionsOfRowsAllocatesNothing() {
        assertMalformedBody(afterOpenGaussStartup(), concat(
                b('U'), int32(4 + 4 + 1 + 1 + 2 + 2 + 2),
                int32(Integer.MAX_VALUE),           // rows
                str(""), str(""),
                int16(0), int16(0),
                int16(65535)),                      // parameters per row
                INSUFFICIENT.reason());
        assertMalformedBody(afterOpenGaussStartup(), concat(
                b('U'), int32(4 + 4), int32(-5)),
                "invalid batch bind row count -5");
    }

    @Test
    void batchBindWithoutItsExecute() {
        assertMalformedBody(afterOpenGaussStartup(), concat(
                b('U'), int32(4 + 4 + 1 + 2 + 2 + 2 + 2 + 1 + 1 + 4),
                int32(0), str(""), str("s"), int16(0), int16(0), int16(0),
                b('Q'), str(""), int32(0)),
                "invalid batch bind: expected Execute but found message type 81");
    }

    @Test
    void describeWithUnknownKind() {
        assertMalformedBody(afterStartup(), concat(b('D'), int32(6), b('X'), str("")), "invalid DESCRIBE message subtype 88");
        assertMalformedBody(afterStartup(), concat(b('C'), int32(6), b('x'), str("")), "invalid CLOSE message subtype 120");
    }

    /** As in postgres.c, the body is read to its end before the subtype is judged. */
    @Test
    void describeWithUnknownKindAndBytesLeftIsAnInvalidFormat() {
        assertMalformedBody(afterStartup(), concat(b('D'), int32(7), b('X'), str(""), b(1)), "invalid message format");
    }

    /** The format count is judged before the values are read, as exec_bind_message does. */
    @Test
    void bindWithTwoFormatsForThreeValues() {
        assertMalformedBody(afterStartup(), concat(
                b('B'), int32(4 + 1 + 2 + 2 + 2 + 2 + 2),
                str(""), str("s"),
                int16(2), int16(0), int16(1),       // two format codes
                int16(3)),                          // three values claimed, none present
                "bind message has 2 parameter formats but 3 parameters");
    }

    /** Format codes other than 0 and 1 are the session's to refuse (22023), as PostgreSQL refuses them per value. */
    @Test
    void bindFormatCodesAreNotJudgedByTheDecoder() {
        List<FrontendMessage> messages = everyWay(afterStartup(), concat(
                b('B'), int32(4 + 1 + 1 + 2 + 2 + 2 + 4 + 1 + 2 + 2),
                str(""), str(""), int16(1), int16(7), int16(1), int32(1), b('1'), int16(1), int16(32)));
        Bind bind = (Bind) messages.get(0);
        assertEquals(7, bind.parameterFormat(0));
        assertEquals(32, bind.resultFormat(0));
    }

    /** PostgreSQL reads neither a CopyDone's nor a Terminate's body. */
    @Test
    void copyDoneAndTerminateWithABody() {
        assertEquals(List.of(CopyDone.INSTANCE, Terminate.INSTANCE),
                everyWay(afterStartup(), concat(b('c'), int32(6), b(1, 2), b('X'), int32(5), b(9))));
    }

    /** After login PostgreSQL takes no PasswordMessage: its type byte is invalid then, and fatal. */
    @Test
    void passwordMessageAfterLogin() {
        PgFrontendDecoder decoder = new PgFrontendDecoder(PgFrontendDecoder.State.MESSAGES, ClientDialect.POSTGRESQL);
        decoder.authenticated();
        assertEquals(List.of(new FrontendMessage.Malformed("invalid frontend message type 112")),
                DecoderHarness.feed(decoder, List.of(concat(b('p'), int32(9), str("root")))));
    }

    @Test
    void hugeLengthWaitsWithoutAllocating() {
        PgFrontendDecoder decoder = new PgFrontendDecoder(PgFrontendDecoder.State.MESSAGES, ClientDialect.POSTGRESQL);
        EmbeddedChannel channel = new EmbeddedChannel(decoder);
        channel.writeInbound(Unpooled.wrappedBuffer(concat(b('Q'), int32(PgFrontendDecoder.PQ_LARGE_MESSAGE_LIMIT),
                ascii("select"))));
        assertNull(channel.readInbound());
        assertEquals(11, decoder.bufferedBytes());
        channel.finishAndReleaseAll();
    }

    @Test
    void startupPacketOverTheCap() {
        assertMalformed(atStartup(), concat(int32(10001), int32(196608)), INVALID_STARTUP_LENGTH);
    }

    @Test
    void startupPacketTooShortOrNegative() {
        assertMalformed(atStartup(), concat(int32(7), b(0, 3, 0)), INVALID_STARTUP_LENGTH);
        assertMalformed(atStartup(), int32(0), INVALID_STARTUP_LENGTH);
        assertMalformed(atStartup(), int32(-8), INVALID_STARTUP_LENGTH);
    }

    @Test
    void garbageFirstBytes() {
        assertMalformed(atStartup(), ascii("GET / HTTP/1.1\r\nHost: x\r\n\r\n"), INVALID_STARTUP_LENGTH);
        assertMalformed(atStartup(), concat(b('Q'), int32(13), str("select 1")), INVALID_STARTUP_LENGTH);
    }

    @Test
    void unsupportedProtocolVersion() {
        assertMalformed(atStartup(), concat(int32(9), int32(2 << 16), b(0)), new FrontendMessage.Malformed(
                "unsupported frontend protocol 2.0: server supports 3.0 to 3.0",
                FrontendMessage.Malformed.FEATURE_NOT_SUPPORTED, true));
        assertMalformed(atStartup(), concat(int32(9), int32((1 << 16) | 9), b(0)), new FrontendMessage.Malformed(
                "unsupported frontend protocol 1.9: server supports 3.0 to 3.0",
                FrontendMessage.Malformed.FEATURE_NOT_SUPPORTED, true));
        assertMalformed(atStartup(), concat(int32(9), int32(4 << 16), b(0)), new FrontendMessage.Malformed(
                "unsupported frontend protocol 4.0: server supports 3.0 to 3.0",
                FrontendMessage.Malformed.FEATURE_NOT_SUPPORTED, false));
    }

    @Test
    void secondSslRequestIsAnUnsupportedProtocol() {
        List<FrontendMessage> messages = everyWay(atStartup(), concat(
                int32(8), int32(SSLRequest.CODE),
                int32(8), int32(SSLRequest.CODE)));
        assertEquals(List.of(SSLRequest.INSTANCE, new FrontendMessage.Malformed(
                "unsupported frontend protocol 1234.5679: server supports 3.0 to 3.0",
                FrontendMessage.Malformed.FEATURE_NOT_SUPPORTED)), messages);
    }

    /** After 'S' (TLS), PostgreSQL takes no GSSENCRequest either: encryption is settled. */
    @Test
    void gssRequestAfterTlsStartedIsAnUnsupportedProtocol() {
        PgFrontendDecoder decoder = new PgFrontendDecoder();
        EmbeddedChannel channel = new EmbeddedChannel(decoder);
        channel.writeInbound(Unpooled.wrappedBuffer(concat(int32(8), int32(SSLRequest.CODE))));
        assertSame(SSLRequest.INSTANCE, channel.readInbound());
        decoder.encryptionStarted();
        channel.writeInbound(Unpooled.wrappedBuffer(concat(int32(8), int32(GSSENCRequest.CODE))));
        assertEquals(new FrontendMessage.Malformed("unsupported frontend protocol 1234.5680: server supports 3.0 to 3.0",
                FrontendMessage.Malformed.FEATURE_NOT_SUPPORTED), channel.readInbound());
        channel.finishAndReleaseAll();
    }

    /**
     * A startup packet sent in the clear in the same segment as an SSLRequest: the handler of the SSLRequest
     * sees it buffered and drops it, and it is never decoded (CVE-2021-23214's injection).
     */
    @Test
    void bytesBehindAnSslRequestCanBeDropped() {
        PgFrontendDecoder decoder = new PgFrontendDecoder();
        List<Integer> bufferedAtSslRequest = new java.util.ArrayList<>();
        EmbeddedChannel channel = new EmbeddedChannel(decoder, new io.netty.channel.ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(io.netty.channel.ChannelHandlerContext ctx, Object msg) {
                if (msg instanceof SSLRequest) {
                    bufferedAtSslRequest.add(decoder.bufferedBytes());
                    decoder.discardBuffered();
                }
                ctx.fireChannelRead(msg);
            }
        });
        byte[] startup = concat(int32(8 + 5 + 4 + 1), int32(196608), str("user"), str("bob"), b(0));
        channel.writeInbound(Unpooled.wrappedBuffer(concat(int32(8), int32(SSLRequest.CODE), startup)));
        assertSame(SSLRequest.INSTANCE, channel.readInbound());
        assertNull(channel.readInbound(), "the startup packet behind it is not decoded");
        assertEquals(List.of(startup.length), bufferedAtSslRequest);
        assertEquals(PgFrontendDecoder.State.DISCARD, decoder.state());
        assertEquals(0, decoder.bufferedBytes());
        assertFalse(channel.finishAndReleaseAll());
    }

    @Test
    void startupWithoutTerminator() {
        assertMalformed(atStartup(), concat(int32(17), int32(196608), str("user"), str("bob")),
                new FrontendMessage.Malformed("invalid startup packet layout: expected terminator as last byte"));
        assertMalformed(atStartup(), concat(int32(15), int32(196608), str("user"), ascii("bo")),
                new FrontendMessage.Malformed("invalid startup packet layout: expected terminator as last byte"));
    }

    @Test
    void cancelRequestOfTheWrongLength() {
        assertMalformed(atStartup(), concat(int32(12), int32(CancelRequest.CODE), int32(1)),
                new FrontendMessage.Malformed("invalid length of cancel request packet"));
    }

    @Test
    void messagesBeforeTheBadOneAreKeptAndNothingAfterIt() {
        List<FrontendMessage> messages = everyWay(afterStartup(), concat(
                b('Q'), int32(13), str("select 1"),
                b('x'), int32(4),
                b('S'), int32(4)));
        assertEquals(List.of(new Query("select 1"), new FrontendMessage.Malformed("invalid frontend message type 120")),
                messages);
    }

    /** A malformed body is an ERROR at its place: what follows is decoded as usual. */
    @Test
    void messagesAfterAMalformedBodyAreDecoded() {
        byte[] unterminated = concat(b('Q'), int32(8), ascii("abcd"));
        List<FrontendMessage> messages = everyWay(afterStartup(), concat(
                b('Q'), int32(13), str("select 1"),
                unterminated,
                b('S'), int32(4)));
        assertEquals(List.of(new Query("select 1"), FrontendMessage.Malformed.body((byte) 'Q', "invalid string in message",
                unterminated), Sync.INSTANCE), messages);
    }

    @Test
    void decoderDiscardsAfterMalformed() {
        PgFrontendDecoder decoder = new PgFrontendDecoder(PgFrontendDecoder.State.MESSAGES, ClientDialect.POSTGRESQL);
        EmbeddedChannel channel = new EmbeddedChannel(decoder);
        channel.writeInbound(Unpooled.wrappedBuffer(concat(b('x'), int32(4))));
        assertTrue(channel.readInbound() instanceof FrontendMessage.Malformed);
        channel.writeInbound(Unpooled.wrappedBuffer(concat(b('S'), int32(4))));
        assertNull(channel.readInbound());
        assertEquals(PgFrontendDecoder.State.DISCARD, decoder.state());
        assertEquals(0, decoder.bufferedBytes());
        assertFalse(channel.finishAndReleaseAll());
    }

    /** A Query of {@code body} bytes (its terminator included), framed. */
    private static byte[] query(byte[] body) {
        return concat(b('Q'), int32(4 + body.length), body);
    }

    @Test
    void textThatIsNotInTheSessionsEncodingIsRefusedAsPostgresqlRefusesIt() {
        // 0xE9 starts a three-byte UTF-8 character; PostgreSQL shows the bytes it would take.
        Supplier<PgFrontendDecoder> utf8Session = () -> {
            PgFrontendDecoder decoder = afterStartup().get();
            decoder.textCharset(java.nio.charset.StandardCharsets.UTF_8, "UTF8");
            return decoder;
        };
        byte[] notUtf8 = query(concat(ascii("SELECT 'caf"), b(0xE9), ascii("' AS x"), b(0)));
        assertEquals(List.of(FrontendMessage.Malformed.body((byte) 'Q', "invalid byte sequence for encoding \"UTF8\": 0xe9 0x27 0x20",
                "22021", notUtf8)), everyWay(utf8Session, notUtf8));
        // U+FFFD sent as such is text like any other.
        byte[] replacement = query(concat(ascii("SELECT '"), b(0xEF, 0xBF, 0xBD), ascii("'"), b(0)));
        assertEquals(List.of(new Query("SELECT '\uFFFD'")), everyWay(utf8Session, replacement));
        // Before a session is told its encoding (a startup packet's names), bytes are read with replacements, not refused.
        assertEquals(List.of(new Query("SELECT 'caf\uFFFD' AS x")), everyWay(afterStartup(), notUtf8));
        // In WIN1252, 0x81 is no character: PostgreSQL's conversion error.
        byte[] win1252 = query(concat(ascii("SELECT 'a"), b(0x81), ascii("b'"), b(0)));
        PgFrontendDecoder decoder = new PgFrontendDecoder(PgFrontendDecoder.State.MESSAGES, ClientDialect.POSTGRESQL);
        decoder.textCharset(java.nio.charset.Charset.forName("windows-1252"), "WIN1252");
        assertEquals(List.of(FrontendMessage.Malformed.body((byte) 'Q',
                "character with byte sequence 0x81 in encoding \"WIN1252\" has no equivalent in encoding \"UTF8\"", "22P05", win1252)),
                DecoderHarness.feed(decoder, List.of(win1252)));
        // A relayed session reads bytes as ISO-8859-1: every byte passes, for the backend to judge.
        PgFrontendDecoder relayed = new PgFrontendDecoder(PgFrontendDecoder.State.MESSAGES, ClientDialect.POSTGRESQL);
        relayed.textCharset(java.nio.charset.StandardCharsets.ISO_8859_1);
        assertEquals(List.of(new Query("SELECT 'caf\u00e9' AS x")), DecoderHarness.feed(relayed, List.of(notUtf8)));
    }
}
