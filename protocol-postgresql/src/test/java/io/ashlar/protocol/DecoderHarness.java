package io.ashlar.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * Runs bytes through a real {@link PgFrontendDecoder} in an {@link EmbeddedChannel}: whole, one
 * byte at a time, and split in two at every point; all three must decode the same messages and
 * leave nothing behind.
 */
final class DecoderHarness {

    private DecoderHarness() {
    }

    static Supplier<PgFrontendDecoder> atStartup() {
        return PgFrontendDecoder::new;
    }

    static Supplier<PgFrontendDecoder> afterStartup() {
        return () -> new PgFrontendDecoder(PgFrontendDecoder.State.MESSAGES, ClientDialect.POSTGRESQL);
    }

    static Supplier<PgFrontendDecoder> afterOpenGaussStartup() {
        return () -> new PgFrontendDecoder(PgFrontendDecoder.State.MESSAGES, ClientDialect.OPENGAUSS_3_51);
    }

    /** Decodes {@code bytes} fed whole. */
    static List<FrontendMessage> whole(Supplier<PgFrontendDecoder> decoder, byte[] bytes) {
        return feed(decoder.get(), List.of(bytes));
    }

    /**
     * Decodes {@code bytes} whole, one byte at a time and split at every point, asserts the
     * three agree and that nothing is left buffered; returns the messages.
     */
    static List<FrontendMessage> everyWay(Supplier<PgFrontendDecoder> decoder, byte[] bytes) {
        List<FrontendMessage> result = feed(decoder.get(), List.of(bytes));
        List<byte[]> single = new ArrayList<>(bytes.length);
        for (byte each : bytes) {
            single.add(new byte[] {each});
        }
        assertEquals(result, feed(decoder.get(), single), "fed one byte at a time");
        for (int split = 1; split < bytes.length; split++) {
            byte[] head = java.util.Arrays.copyOfRange(bytes, 0, split);
            byte[] tail = java.util.Arrays.copyOfRange(bytes, split, bytes.length);
            assertEquals(result, feed(decoder.get(), List.of(head, tail)), "split at " + split);
        }
        return result;
    }

    static List<FrontendMessage> feed(PgFrontendDecoder decoder, List<byte[]> chunks) {
        EmbeddedChannel channel = new EmbeddedChannel(decoder);
        List<FrontendMessage> result = new ArrayList<>();
        for (byte[] each : chunks) {
            channel.writeInbound(Unpooled.wrappedBuffer(each));
            for (Object message = channel.readInbound(); message != null; message = channel.readInbound()) {
                result.add((FrontendMessage) message);
            }
        }
        assertEquals(0, decoder.bufferedBytes(), "bytes left in the decoder");
        assertFalse(channel.finishAndReleaseAll(), "messages left in the channel");
        return result;
    }
}
