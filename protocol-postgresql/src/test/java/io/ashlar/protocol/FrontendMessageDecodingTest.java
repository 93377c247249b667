package io.ashlar.protocol;

import static io.ashlar.protocol.DecoderHarness.afterOpenGaussStartup;
import static io.ashlar.protocol.DecoderHarness.afterStartup;
import static io.ashlar.protocol.DecoderHarness.atStartup;
import static io.ashlar.protocol.DecoderHarness.everyWay;
import static io.ashlar.protocol.WireBytes.b;
import static io.ashlar.protocol.WireBytes.concat;
import static io.ashlar.protocol.WireBytes.encoded;
import static io.ashlar.protocol.WireBytes.int16;
import static io.ashlar.protocol.WireBytes.int32;
import static io.ashlar.protocol.WireBytes.str;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Every frontend message from hand-written bytes, decoded whole, byte by byte and split at every
 * point; then encoded back to the same bytes.
 */
final class FrontendMessageDecodingTest {

    private static FrontendMessage decodeOne(java.util.function.Supplier<PgFrontendDecoder> decoder, byte[] bytes) {
        List<FrontendMessage> result = everyWay(decoder, bytes);
        assertEquals(1, result.size(), () -> "decoded " + result);
        return result.get(0);
    }

    private static FrontendMessage roundTrip(java.util.function.Supplier<PgFrontendDecoder> decoder, byte[] bytes) {
        FrontendMessage result = decodeOne(decoder, bytes);
        assertArrayEquals(bytes, encoded(result), "encode gives back the bytes");
        return result;
    }

    @Test
    void startupMessageKeepsParametersInOrder() {
        byte[] bytes = concat(
                int32(76),                              // length, itself included
                int32(196608),                          // protocol 3.0 (8)
                str("user"), str("alice"),              // 5 + 6
                str("database"), str("db1"),            // 9 + 4
                str("application_name"), str("psql"),   // 17 + 5
                str("client_encoding"), str("UTF8"),    // 16 + 5
                b(0));                                  // terminator (1)
        StartupMessage startup = (StartupMessage) roundTrip(atStartup(), bytes);
        assertEquals("alice", startup.user());
        assertEquals("db1", startup.database());
        assertEquals(Optional.of("psql"), startup.applicationName());
        assertEquals(Optional.of("UTF8"), startup.clientEncoding());
        assertEquals(List.of("user", "database", "application_name", "client_encoding"),
                List.copyOf(startup.parameters().keySet()));
        assertEquals(ClientDialect.POSTGRESQL, startup.dialect());
        assertFalse(startup.needsProtocolNegotiation());
    }

    /** Writes the real total into the first Int32, for packets whose length is not the point of the test. */
    private static byte[] fixStartupLength(byte[] bytes) {
        byte[] length = int32(bytes.length);
        System.arraycopy(length, 0, bytes, 0, 4);
        return bytes;
    }

    @Test
    void emptyDatabaseMeansTheUserName() {
        byte[] bytes = concat(
                int32(30),                          // 4 + 4 + 5 + 6 + 9 + 1 + 1
                int32(196608),                      // 3.0
                str("user"), str("alice"),
                str("database"), str(""),           // empty database: the user's name, as PostgreSQL does
                b(0));
        StartupMessage startup = (StartupMessage) decodeOne(atStartup(), bytes);
        assertEquals("alice", startup.database());
    }

    @Test
    void protocol32AndProtocolOptionsNeedNegotiation() {
        byte[] bytes = fixStartupLength(concat(
                int32(0),                           // length, fixed below
                int32(196610),                      // 3.2, sent by PostgreSQL 18's libpq
                str("user"), str("bob"),
                str("_pq_.command_marker"), str("on"), // a protocol option, not a GUC
                b(0)));
        StartupMessage startup = (StartupMessage) decodeOne(atStartup(), bytes);
        assertEquals(3, startup.majorVersion());
        assertEquals(2, startup.minorVersion());
        assertEquals(Map.of("user", "bob"), startup.parameters());
        assertTrue(startup.needsProtocolNegotiation());
        assertEquals(new NegotiateProtocolVersion(0, List.of("_pq_.command_marker")), startup.negotiation());
    }

    @Test
    void openGaussVersionsAreAcceptedAndRemembered() {
        for (int version : new int[] {196658, 196659}) {
            byte[] bytes = fixStartupLength(concat(int32(0), int32(version), str("user"), str("gauss"), b(0)));
            PgFrontendDecoder decoder = new PgFrontendDecoder();
            List<FrontendMessage> messages = DecoderHarness.feed(decoder, List.of(bytes));
            StartupMessage startup = (StartupMessage) messages.get(0);
            assertTrue(startup.dialect().isOpenGauss());
            assertFalse(startup.needsProtocolNegotiation());
            assertTrue(decoder.isOpenGauss());
            assertEquals(version == 196658 ? ClientDialect.OPENGAUSS_3_50 : ClientDialect.OPENGAUSS_3_51,
                    decoder.dialect());
            assertEquals(PgFrontendDecoder.State.MESSAGES, decoder.state());
        }
    }

    @Test
    void sslRequestThenStartupThenQuery() {
        byte[] bytes = concat(
                int32(8), int32(80877103),              // SSLRequest
                int32(8), int32(80877104),              // GSSENCRequest
                int32(20), int32(196608),               // StartupMessage: 4 + 4 + 5 + 6 + 1
                str("user"), str("carol"), b(0),
                b('Q'), int32(13), str("select 1"));    // Query: 4 + 9
        List<FrontendMessage> messages = everyWay(atStartup(), bytes);
        assertEquals(4, messages.size());
        assertSame(SSLRequest.INSTANCE, messages.get(0));
        assertSame(GSSENCRequest.INSTANCE, messages.get(1));
        assertEquals("carol", ((StartupMessage) messages.get(2)).user());
        assertEquals(new Query("select 1"), messages.get(3));
        assertArrayEquals(b(0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f), encoded(SSLRequest.INSTANCE));
        assertArrayEquals(b(0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x30), encoded(GSSENCRequest.INSTANCE));
    }

    @Test
    void cancelRequest() {
        byte[] bytes = concat(
                int32(16),                          // length
                int32(80877102),                    // cancel request code
                int32(4242),                        // process ID
                int32(-559038737));                 // secret key 0xdeadbeef
        assertEquals(new CancelRequest(4242, 0xdeadbeef), roundTrip(atStartup(), bytes));
    }

    @Test
    void bytesAfterCancelRequestAreDropped() {
        byte[] bytes = concat(int32(16), int32(80877102), int32(1), int32(2), b('Q'), int32(13), str("select 1"));
        assertEquals(List.of(new CancelRequest(1, 2)), everyWay(atStartup(), bytes));
    }

    @Test
    void query() {
        byte[] bytes = concat(
                b('Q'),                             // type
                int32(13),                          // length: 4 + 9
                str("select 1"));                   // query string
        assertEquals(new Query("select 1"), roundTrip(afterStartup(), bytes));
    }

    @Test
    void queryInUtf8() {
        byte[] sql = str("select 'żółw'");
        byte[] bytes = concat(b('Q'), int32(4 + sql.length), sql);
        assertEquals(new Query("select 'żółw'"), roundTrip(afterStartup(), bytes));
    }

    @Test
    void parse() {
        byte[] bytes = concat(
                b('P'),                             // type
                int32(27),                          // length: 4 + 3 + 10 + 2 + 4 + 4
                str("s1"),                          // statement name
                str("select $1"),                   // query
                int16(2),                           // two parameter types
                int32(23),                          // int4
                int32(0));                          // unspecified
        Parse parse = (Parse) roundTrip(afterStartup(), bytes);
        assertEquals("s1", parse.statementName());
        assertEquals("select $1", parse.sql());
        assertArrayEquals(new int[] {23, 0}, parse.parameterTypeOids());
    }

    @Test
    void bind() {
        byte[] bytes = concat(
                b('B'),                             // type
                int32(27),                          // length
                str(""),                            // unnamed portal (1)
                str("s1"),                          // statement (3)
                int16(1), int16(0),                 // one parameter format: text (4)
                int16(2),                           // two values (2)
                int32(1), b('5'),                   // "5" (5)
                int32(-1),                          // NULL (4)
                int16(1), int16(1));                // one result format: binary (4)
        Bind bind = (Bind) roundTrip(afterStartup(), bytes);
        assertEquals("", bind.portal());
        assertEquals("s1", bind.statement());
        assertArrayEquals(new short[] {0}, bind.parameterFormats());
        assertEquals(2, bind.parameterValues().length);
        assertArrayEquals(b('5'), bind.parameterValues()[0]);
        assertNull(bind.parameterValues()[1]);
        assertArrayEquals(new short[] {1}, bind.resultFormats());
        assertEquals(0, bind.parameterFormat(1));
        assertEquals(1, bind.resultFormat(7));
    }

    /**
     * A relay passes a decoded Bind on under its own statement name: everything after the names
     * goes out as the client sent it (here a binary format list, a NULL, a value with a NUL byte,
     * three result formats), and the values read back from the kept bytes are the ones sent.
     */
    @Test
    void bindRenamedKeepsWhatFollowsTheNamesByteForByte() {
        byte[] rest = concat(
                int16(2), int16(1), int16(0),           // two parameter formats: binary, text
                int16(2),                               // two values
                int32(-1),                              // NULL
                int32(3), b(0, 'a', 0),                 // three bytes, NULs included
                int16(3), int16(1), int16(0), int16(1)); // three result formats
        byte[] bytes = concat(b('B'), int32(4 + 1 + 3 + rest.length), str(""), str("s1"), rest);
        Bind bind = (Bind) roundTrip(afterStartup(), bytes);
        io.netty.buffer.ByteBuf out = io.netty.buffer.Unpooled.buffer();
        bind.encode(out, StandardCharsets.ISO_8859_1, "ashlar_7");
        byte[] renamed = new byte[out.readableBytes()];
        out.readBytes(renamed);
        assertArrayEquals(concat(b('B'), int32(4 + 1 + 9 + rest.length), str(""), str("ashlar_7"), rest), renamed);
        assertArrayEquals(new short[] {1, 0}, bind.parameterFormats());
        assertNull(bind.parameterValues()[0]);
        assertArrayEquals(b(0, 'a', 0), bind.parameterValues()[1]);
        assertArrayEquals(new short[] {1, 0, 1}, bind.resultFormats());
        assertEquals(new Bind("", "s1", new short[] {1, 0}, new byte[][] {null, b(0, 'a', 0)}, new short[] {1, 0, 1}), bind);
    }

    @Test
    void bindWithManyParametersReadsCountsUnsigned() {
        int count = 40000;                          // above Short.MAX_VALUE: PostgreSQL reads counts unsigned
        byte[][] values = new byte[count][];
        for (int i = 0; i < count; i++) {
            values[i] = new byte[] {(byte) ('0' + i % 10)};
        }
        Bind bind = new Bind("", "big", new short[0], values, new short[0]);
        List<FrontendMessage> decoded = DecoderHarness.whole(afterStartup(), encoded(bind));
        assertEquals(List.of(bind), decoded);
    }

    /**
     * The decoder keeps the names it read last to avoid a String per Bind: 500 names through one
     * decoder (many share a cache slot), each read back twice, in and out of order, UTF-8 ones and
     * names that differ only in their last byte, must each come back as written.
     */
    @Test
    void namesReadThroughTheNameCacheComeBackAsWritten() {
        List<String> names = new java.util.ArrayList<>();
        for (int i = 0; i < 250; i++) {
            names.add("S_" + i);
            names.add("statement_é_" + (i * 7919 % 250));
        }
        names.add("x".repeat(64));
        names.add("x".repeat(63) + "y");
        names.add("x".repeat(65)); // too long for the cache
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        List<FrontendMessage> expected = new java.util.ArrayList<>();
        for (int round = 0; round < 2; round++) {
            for (int i = 0; i < names.size(); i++) {
                String name = names.get(round == 0 ? i : names.size() - 1 - i);
                Describe describe = new Describe((byte) 'S', name);
                bytes.writeBytes(encoded(describe));
                expected.add(describe);
            }
        }
        assertEquals(expected, DecoderHarness.whole(afterStartup(), bytes.toByteArray()));
    }

    @Test
    void describeStatementAndPortal() {
        byte[] bytes = concat(
                b('D'), int32(8), b('S'), str("s1"),  // describe statement "s1": 4 + 1 + 3
                b('D'), int32(6), b('P'), str(""));   // describe unnamed portal: 4 + 1 + 1
        List<FrontendMessage> messages = everyWay(afterStartup(), bytes);
        assertEquals(List.of(new Describe((byte) 'S', "s1"), new Describe((byte) 'P', "")), messages);
        assertTrue(((Describe) messages.get(0)).isStatement());
    }

    @Test
    void execute() {
        byte[] bytes = concat(
                b('E'),                             // type
                int32(9),                           // length: 4 + 1 + 4
                str(""),                            // unnamed portal
                int32(50));                         // fetch size
        assertEquals(new Execute("", 50), roundTrip(afterStartup(), bytes));
    }

    @Test
    void close() {
        byte[] bytes = concat(b('C'), int32(8), b('S'), str("s1"));
        assertEquals(new Close((byte) 'S', "s1"), roundTrip(afterStartup(), bytes));
    }

    @Test
    void syncFlushTerminateAreSingletons() {
        byte[] bytes = concat(
                b('H'), int32(4),                   // Flush
                b('S'), int32(4),                   // Sync
                b('X'), int32(4));                  // Terminate
        List<FrontendMessage> messages = everyWay(afterStartup(), bytes);
        assertSame(Flush.INSTANCE, messages.get(0));
        assertSame(Sync.INSTANCE, messages.get(1));
        assertSame(Terminate.INSTANCE, messages.get(2));
        assertArrayEquals(bytes, concat(encoded(Flush.INSTANCE), encoded(Sync.INSTANCE), encoded(Terminate.INSTANCE)));
    }

    @Test
    void passwordMessageStaysRaw() {
        byte[] bytes = concat(
                b('p'),                             // type
                int32(11),                          // length: 4 + 7
                str("secret"));                     // password and NUL
        PasswordMessage password = (PasswordMessage) roundTrip(afterStartup(), bytes);
        assertArrayEquals(str("secret"), password.body());
    }

    @Test
    void copyDataDoneFail() {
        byte[] bytes = concat(
                b('d'), int32(8), "1\tx\n".getBytes(StandardCharsets.US_ASCII), // CopyData: 4 + 4
                b('c'), int32(4),                                               // CopyDone
                b('f'), int32(9), str("oops"));                                  // CopyFail: 4 + 5
        List<FrontendMessage> messages = everyWay(afterStartup(), bytes);
        assertEquals(List.of(new CopyData("1\tx\n".getBytes(StandardCharsets.US_ASCII)), CopyDone.INSTANCE,
                new CopyFail("oops")), messages);
        assertArrayEquals(bytes, concat(encoded(messages.get(0)), encoded(messages.get(1)), encoded(messages.get(2))));
    }

    @Test
    void functionCallDecodesItsOid() {
        byte[] bytes = concat(
                b('F'),                             // type
                int32(19),                          // length: 4 + 4 + 2 + 2 + 4 + 1 + 2
                int32(1598),                        // function OID
                int16(0),                           // no argument formats
                int16(1),                           // one argument
                int32(1), b('7'),                   // "7"
                int16(0));                          // text result
        assertEquals(new FunctionCall(1598), decodeOne(afterStartup(), bytes));
    }

    @Test
    void openGaussBatchBind() {
        byte[] bytes = concat(
                b('U'),                             // type
                int32(50),                          // length
                int32(2),                           // two rows (4)
                str(""),                            // portal (1)
                str("S_1"),                         // statement (4)
                int16(2), int16(0), int16(0),       // two parameter formats, text (6)
                int16(0),                           // no result formats (2)
                int16(2),                           // two parameters per row (2)
                int32(1), b('1'),                   // row 1: "1" (5)
                int32(3), b('a', 'b', 'c'),         //        "abc" (7)
                int32(1), b('2'),                   // row 2: "2" (5)
                int32(-1),                          //        NULL (4)
                b('E'),                             // embedded Execute (1)
                str(""),                            // portal (1)
                int32(0));                          // max rows (4)
        BatchBind batch = (BatchBind) roundTrip(afterOpenGaussStartup(), bytes);
        assertEquals("", batch.portal());
        assertEquals("S_1", batch.statement());
        assertArrayEquals(new short[] {0, 0}, batch.parameterFormats());
        assertArrayEquals(new short[0], batch.resultFormats());
        assertEquals(2, batch.parametersPerRow());
        assertEquals(2, batch.rows().size());
        assertArrayEquals(b('a', 'b', 'c'), batch.rows().get(0)[1]);
        assertNull(batch.rows().get(1)[1]);
        assertEquals("", batch.executePortal());
        assertEquals(0, batch.maxRows());
    }

    @Test
    void batchBindIsUnknownToPostgresqlClients() {
        byte[] bytes = concat(b('U'), int32(4));
        assertEquals(List.of(new FrontendMessage.Malformed("invalid frontend message type 85")),
                everyWay(afterStartup(), bytes));
    }

    @Test
    void startupEncodeIsWhatTheDecoderReads() {
        Map<String, String> parameters = new LinkedHashMap<>();
        parameters.put("user", "root");
        parameters.put("database", "sharding_db");
        parameters.put("options", "-c search_path=s1");
        StartupMessage startup = StartupMessage.of(parameters);
        assertEquals(List.of(startup), everyWay(atStartup(), encoded(startup)));
    }
}
