package io.ashlar.protocol;

import static io.ashlar.protocol.WireBytes.concat;
import static io.ashlar.protocol.WireBytes.encoded;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Mutates a seed corpus of valid client sessions (fixed seed, 20,000 cases) and feeds each
 * through the decoder in random chunks. Whatever the bytes, the decoder must only emit messages,
 * at most one fatal Malformed and only as the last value, never throw, and decode the same values
 * however the bytes are split.
 */
final class FrontendDecoderFuzzTest {

    private static final int CASES = 20_000;
    private static final int[] INTERESTING_INTS = {0, 1, 3, 4, 5, -1, -2, 8, 16, 255, 65535, 10000, 10001,
        0x3fffffff, 0x40000000, Integer.MAX_VALUE, Integer.MIN_VALUE, 196608, 196659, 80877103, 80877102};

    private static List<byte[]> seeds() {
        Map<String, String> parameters = new LinkedHashMap<>();
        parameters.put("user", "root");
        parameters.put("database", "sharding_db");
        parameters.put("client_encoding", "UTF8");
        byte[] postgresStartup = concat(encoded(SSLRequest.INSTANCE), encoded(StartupMessage.of(parameters)));
        byte[] openGaussStartup = encoded(new StartupMessage(ClientDialect.PROTOCOL_OPENGAUSS_3_51, parameters,
                List.of()));
        byte[] extended = concat(
                encoded(new PasswordMessage(WireBytes.str("root"))),
                encoded(new Parse("s1", "select * from t_order where order_id = $1 and user_id = $2",
                        new int[] {20, 23})),
                encoded(new Bind("", "s1", new short[] {0, 1}, new byte[][] {WireBytes.ascii("42"), null},
                        new short[] {1})),
                encoded(new Describe((byte) 'P', "")),
                encoded(new Execute("", 0)),
                encoded(new Close((byte) 'S', "s1")),
                encoded(Flush.INSTANCE),
                encoded(Sync.INSTANCE));
        byte[] simple = concat(
                encoded(new Query("begin; insert into t values (1, 'x'); commit")),
                encoded((FrontendMessage) new CopyData(WireBytes.ascii("1\tone\n"))),
                encoded((FrontendMessage) CopyDone.INSTANCE),
                encoded(new CopyFail("stop")),
                encoded(new FunctionCall(1598)),
                encoded(Terminate.INSTANCE));
        byte[] batch = encoded(new BatchBind("", "S_1", new short[] {0, 0}, new short[0], 2,
                List.of(new byte[][] {WireBytes.ascii("1"), WireBytes.ascii("abc")},
                        new byte[][] {WireBytes.ascii("2"), null}), "", 0));
        return List.of(
                concat(postgresStartup, extended),
                concat(postgresStartup, simple),
                concat(openGaussStartup, batch, extended),
                concat(WireBytes.int32(16), WireBytes.int32(CancelRequest.CODE), WireBytes.int32(1),
                        WireBytes.int32(2)));
    }

    @Test
    void mutatedSessionsNeverThrow() {
        Random random = new Random(20240601L);
        List<byte[]> seeds = seeds();
        for (byte[] seed : seeds) {
            List<FrontendMessage> clean = decode(seed, List.of(seed.length));
            assertFalse(clean.stream().anyMatch(each -> each instanceof FrontendMessage.Malformed),
                    () -> "seed decodes cleanly: " + clean);
        }
        for (int i = 0; i < CASES; i++) {
            byte[] input = mutate(seeds.get(random.nextInt(seeds.size())), random);
            List<FrontendMessage> whole = decode(input, List.of(input.length));
            checkShape(whole, i);
            List<FrontendMessage> chunked = decode(input, randomChunks(input.length, random));
            assertEquals(whole, chunked, "case " + i + " decodes the same in chunks: " + Arrays.toString(input));
        }
    }

    private static void checkShape(List<FrontendMessage> messages, int caseNumber) {
        for (int i = 0; i < messages.size(); i++) {
            if (messages.get(i) instanceof FrontendMessage.Malformed malformed && malformed.fatal()) {
                assertEquals(messages.size() - 1, i, "case " + caseNumber + ": a fatal Malformed is the last value");
            }
        }
    }

    private static List<FrontendMessage> decode(byte[] input, List<Integer> chunks) {
        PgFrontendDecoder decoder = new PgFrontendDecoder();
        EmbeddedChannel channel = new EmbeddedChannel(decoder);
        List<FrontendMessage> result = new ArrayList<>();
        int offset = 0;
        for (int each : chunks) {
            channel.writeInbound(Unpooled.wrappedBuffer(input, offset, each));
            offset += each;
            for (Object message = channel.readInbound(); message != null; message = channel.readInbound()) {
                if (!(message instanceof FrontendMessage decoded)) {
                    throw new AssertionError("emitted " + message);
                }
                result.add(decoded);
            }
        }
        channel.finishAndReleaseAll();
        return result;
    }

    private static List<Integer> randomChunks(int length, Random random) {
        List<Integer> result = new ArrayList<>();
        int left = length;
        while (left > 0) {
            int each = Math.min(left, 1 + random.nextInt(random.nextBoolean() ? 3 : 40));
            result.add(each);
            left -= each;
        }
        return result;
    }

    private static byte[] mutate(byte[] seed, Random random) {
        byte[] result = seed.clone();
        int mutations = 1 + random.nextInt(4);
        for (int m = 0; m < mutations && result.length > 0; m++) {
            int at = random.nextInt(result.length);
            switch (random.nextInt(6)) {
                case 0 -> result[at] ^= (byte) (1 << random.nextInt(8));
                case 1 -> result[at] = (byte) random.nextInt(256);
                case 2 -> {
                    if (at + 4 <= result.length) {
                        int value = INTERESTING_INTS[random.nextInt(INTERESTING_INTS.length)];
                        byte[] bytes = WireBytes.int32(value);
                        System.arraycopy(bytes, 0, result, at, 4);
                    }
                }
                case 3 -> result = Arrays.copyOf(result, at);
                case 4 -> {
                    byte[] inserted = new byte[1 + random.nextInt(8)];
                    random.nextBytes(inserted);
                    result = concat(Arrays.copyOf(result, at), inserted,
                            Arrays.copyOfRange(result, at, result.length));
                }
                default -> {
                    if (at + 2 <= result.length) {
                        result[at] = (byte) 0xff;
                        result[at + 1] = (byte) 0xff;
                    }
                }
            }
        }
        return result;
    }

    @Test
    void seedsRoundTripThroughEncode() {
        for (byte[] seed : seeds()) {
            List<FrontendMessage> messages = decode(seed, List.of(seed.length));
            List<byte[]> parts = new ArrayList<>();
            for (FrontendMessage each : messages) {
                parts.add(encoded(each));
            }
            assertArrayEquals(seed, concat(parts.toArray(new byte[0][])), "re-encoded seed");
        }
    }
}
