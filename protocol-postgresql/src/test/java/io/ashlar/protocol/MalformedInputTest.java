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
 * nothing is thrown, nothing after it is decoded, and no array is sized from a length the frame
 * does not back.
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
        assertMalformed(afterStartup(), concat(b('Q'), int32(8), ascii("abcd")),
                new FrontendMessage.Malformed("invalid string in message"));
        assertMalformed(afterStartup(), concat(b('P'), int32(9), str("s1"), ascii("sel")),
                new FrontendMessage.Malformed("invalid string in message"));
    }

    @Test
    void bytesLeftAfterTheFields() {
        assertMalformed(afterStartup(), concat(b('S'), int32(5), b(0)),
                new FrontendMessage.Malformed("invalid message format"));
        assertMalformed(afterStartup(), concat(b('Q'), int32(7), str("x"), b('y')),
                new FrontendMessage.Malformed("invalid message format"));
    }

    @Test
    void parameterCountLargerThanTheFrame() {
        assertMalformed(afterStartup(), concat(
                b('B'), int32(4 + 1 + 1 + 2 + 2),
                str(""), str(""),                   // portal, statement
                int16(0),                           // no formats
                int16(65535)),                      // 65535 values claimed, none present
                INSUFFICIENT);
        assertMalformed(afterStartup(), concat(
                b('P'), int32(4 + 1 + 2 + 2 + 4),
                str(""), str("x"),
                int16(2), int32(23)),               // two types claimed, one present
                INSUFFICIENT);
    }

    @Test
    void valueLengthPastTheFrameOrNegative() {
        assertMalformed(afterStartup(), concat(
                b('B'), int32(4 + 1 + 1 + 2 + 2 + 4 + 2 + 2),
                str(""), str(""), int16(0), int16(1),
                int32(1000),                        // 1000 bytes claimed
                b('a', 'b'),                        // two present
                int16(0)),
                INSUFFICIENT);
        assertMalformed(afterStartup(), concat(
                b('B'), int32(4 + 1 + 1 + 2 + 2 + 4 + 2),
                str(""), str(""), int16(0), int16(1),
                int32(-2),                          // only -1 (NULL) may be negative
                int16(0)),
                INSUFFICIENT);
    }

    @Test
    void batchBindClaimingBillionsOfRowsAllocatesNothing() {
        assertMalformed(afterOpenGaussStartup(), concat(
                b('U'), int32(4 + 4 + 1 + 1 + 2 + 2 + 2),
                int32(Integer.MAX_VALUE),           // rows
                str(""), str(""),
                int16(0), int16(0),
                int16(65535)),                      // parameters per row
                INSUFFICIENT);
        assertMalformed(afterOpenGaussStartup(), concat(
                b('U'), int32(4 + 4), int32(-5)),
                new FrontendMessage.Malformed("invalid batch bind row count -5"));
    }

    @Test
    void batchBindWithoutItsExecute() {
        assertMalformed(afterOpenGaussStartup(), concat(
                b('U'), int32(4 + 4 + 1 + 1 + 2 + 2 + 2 + 1 + 1 + 4),
                int32(0), str(""), str("s"), int16(0), int16(0), int16(0),
                b('Q'), str(""), int32(0)),
                new FrontendMessage.Malformed("invalid batch bind: expected Execute but found message type 81"));
    }

    @Test
    void describeWithUnknownKind() {
        assertMalformed(afterStartup(), concat(b('D'), int32(6), b('X'), str("")),
                new FrontendMessage.Malformed("invalid DESCRIBE message subtype 88"));
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
}
