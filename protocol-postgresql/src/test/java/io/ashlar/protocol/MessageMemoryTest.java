package io.ashlar.protocol;

import static io.ashlar.protocol.DecoderHarness.everyWay;
import static io.ashlar.protocol.WireBytes.b;
import static io.ashlar.protocol.WireBytes.concat;
import static io.ashlar.protocol.WireBytes.int32;
import static io.ashlar.protocol.WireBytes.str;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What a client may make the proxy hold for its messages: a message over the per-message size, or
 * one that does not fit what all clients may hold now, is read past and refused with 53200, the
 * stream stays in step behind either, and what was counted is given back when the
 * session takes the message or the connection ends.
 */
final class MessageMemoryTest {

    private static final int KB = 1024;

    /** A Query of {@code size} bytes on the wire (type byte and length included). */
    private static byte[] query(int size) {
        byte[] text = new byte[size - 6];
        Arrays.fill(text, (byte) 'x');
        return concat(b('Q'), int32(size - 1), text, b(0));
    }

    private static PgFrontendDecoder decoder(MessageMemory memory) {
        return new PgFrontendDecoder(PgFrontendDecoder.State.MESSAGES, ClientDialect.POSTGRESQL, memory.client());
    }

    @Test
    void aMessageOverTheSizeIsDroppedAndRefusedAndTheNextOneRead() {
        MessageMemory memory = new MessageMemory(16 * KB, 64 * KB);
        byte[] large = query(16 * KB + 2);
        List<FrontendMessage> messages = everyWay(() -> decoder(memory), concat(large, b('S'), int32(4)));
        assertEquals(2, messages.size(), messages::toString);
        FrontendMessage.TooLarge refusal = assertInstanceOf(FrontendMessage.TooLarge.class, messages.get(0));
        assertEquals('Q', refusal.type());
        assertEquals(FrontendMessage.TooLarge.OUT_OF_MEMORY, refusal.sqlState());
        assertEquals("Failed on request of size " + (16 * KB + 2) + ": a client's message may hold at most " + 16 * KB
                + " bytes in Ashlar (proxy-statement-memory-limit).", refusal.detail());
        assertEquals(Sync.INSTANCE, messages.get(1));
        assertEquals(0, memory.held(), "nothing counted for a refused message");
    }

    @Test
    void aMessageOfExactlyTheSizeIsTaken() {
        MessageMemory memory = new MessageMemory(16 * KB, 64 * KB);
        List<FrontendMessage> messages = everyWay(() -> decoder(memory), query(16 * KB + 1));
        assertInstanceOf(Query.class, messages.get(0));
    }

    @Test
    void whatAllClientsHoldIsBoundedAndGivenBackWhenTaken() {
        MessageMemory memory = new MessageMemory(40 * KB, 64 * KB);
        PgFrontendDecoder first = decoder(memory);
        PgFrontendDecoder second = decoder(memory);
        EmbeddedChannel one = new EmbeddedChannel(first);
        EmbeddedChannel two = new EmbeddedChannel(second);
        byte[] large = query(40 * KB);
        // The first client's message is half there: its whole size is counted from its header.
        one.writeInbound(Unpooled.wrappedBuffer(large, 0, 500));
        one.writeInbound(Unpooled.wrappedBuffer(large, 500, 500));
        assertNull(one.readInbound());
        assertEquals(40 * KB, memory.held());
        assertEquals(40 * KB, first.bufferCapacity(), "the frame is received into one buffer of its size");
        // The second client's does not fit beside it: refused once its bytes are through, its next message read.
        two.writeInbound(Unpooled.wrappedBuffer(concat(large, b('S'), int32(4))));
        FrontendMessage.TooLarge refusal = assertInstanceOf(FrontendMessage.TooLarge.class, two.readInbound());
        assertEquals(FrontendMessage.TooLarge.OUT_OF_MEMORY, refusal.sqlState());
        assertEquals(Sync.INSTANCE, two.readInbound());
        // The first message completes: still counted until its session takes it.
        one.writeInbound(Unpooled.wrappedBuffer(large, 1000, large.length - 1000));
        FrontendMessage decoded = one.readInbound();
        assertInstanceOf(Query.class, decoded);
        assertEquals(40 * KB, memory.held());
        first.memory().taken(new Query("another message"));
        assertEquals(40 * KB, memory.held(), "only the message itself gives its bytes back");
        first.memory().taken(decoded);
        assertEquals(0, memory.held());
        // Now the second client's fits.
        two.writeInbound(Unpooled.wrappedBuffer(large));
        assertInstanceOf(Query.class, two.readInbound());
        assertEquals(40 * KB, memory.held());
        assertFalse(one.finishAndReleaseAll());
        assertFalse(two.finishAndReleaseAll());
        assertEquals(0, memory.held(), "a closed connection holds nothing");
    }

    @Test
    void aConnectionClosedInTheMiddleOfAMessageGivesItBack() {
        MessageMemory memory = new MessageMemory(40 * KB, 64 * KB);
        EmbeddedChannel channel = new EmbeddedChannel(decoder(memory));
        channel.writeInbound(Unpooled.wrappedBuffer(query(30 * KB), 0, 100));
        assertEquals(30 * KB, memory.held());
        channel.finishAndReleaseAll();
        assertEquals(0, memory.held());
    }

    @Test
    void smallMessagesAreNotCounted() {
        MessageMemory memory = new MessageMemory(MessageMemory.COUNTED_FROM, MessageMemory.COUNTED_FROM);
        PgFrontendDecoder decoder = decoder(memory);
        EmbeddedChannel channel = new EmbeddedChannel(decoder);
        channel.writeInbound(Unpooled.wrappedBuffer(query(MessageMemory.COUNTED_FROM), query(MessageMemory.COUNTED_FROM)));
        assertInstanceOf(Query.class, channel.readInbound());
        assertInstanceOf(Query.class, channel.readInbound());
        assertEquals(0, memory.held());
        assertFalse(channel.finishAndReleaseAll());
    }

    /** A message refused in the middle of a pipeline keeps its place: what came before and after is decoded. */
    @Test
    void aRefusedBindKeepsItsPlaceInAPipeline() {
        MessageMemory memory = new MessageMemory(16 * KB, 16 * KB);
        byte[] value = new byte[20 * KB];
        byte[] bind = concat(b('B'), int32(4 + 1 + 1 + 2 + 2 + 4 + value.length + 2), str(""), str(""),
                WireBytes.int16(0), WireBytes.int16(1), int32(value.length), value, WireBytes.int16(0));
        List<FrontendMessage> messages = DecoderHarness.whole(() -> decoder(memory), concat(
                b('P'), int32(4 + 1 + 10 + 2), str(""), str("SELECT $1"), WireBytes.int16(0),
                bind,
                b('E'), int32(4 + 1 + 4), str(""), int32(0),
                b('S'), int32(4)));
        assertEquals(4, messages.size(), messages::toString);
        assertInstanceOf(Parse.class, messages.get(0));
        assertEquals('B', assertInstanceOf(FrontendMessage.TooLarge.class, messages.get(1)).type());
        assertInstanceOf(Execute.class, messages.get(2));
        assertEquals(Sync.INSTANCE, messages.get(3));
    }

    @Test
    void limitsBelowOneReceiveBufferAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new MessageMemory(100, 1 << 20));
    }
}
