package io.ashlar.protocol;

import static io.ashlar.protocol.WireBytes.concat;
import static io.ashlar.protocol.WireBytes.encoded;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/**
 * A whole exchange, client bytes decoded and server messages encoded, compared line by line with
 * a golden trace in {@code src/test/resources/protocol/}. A failure prints the actual trace,
 * ready to paste.
 */
final class PgTraceTest {

    private static String golden(String name) throws IOException {
        try (InputStream in = PgTraceTest.class.getResourceAsStream("/protocol/" + name)) {
            if (in == null) {
                throw new IOException("missing golden file " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static void assertTrace(String name, String actual) throws IOException {
        assertEquals(golden(name), actual, () -> "actual trace of " + name + ":\n" + actual);
    }

    private static String client(PgFrontendDecoder decoder, byte[] bytes) {
        return PgTrace.describeFrontend(DecoderHarness.feed(decoder, List.of(bytes)));
    }

    private static String server(BackendMessage... messages) {
        ByteBuf out = Unpooled.buffer();
        for (BackendMessage each : messages) {
            each.encode(out);
        }
        return PgTrace.describeBackend(out);
    }

    @Test
    void extendedQueryExchange() throws IOException {
        Map<String, String> parameters = new LinkedHashMap<>();
        parameters.put("user", "root");
        parameters.put("database", "sharding_db");
        String trace = client(new PgFrontendDecoder(), concat(
                encoded(SSLRequest.INSTANCE),
                encoded(new StartupMessage(196610, parameters, List.of("_pq_.test_option")))))
                + server(EncryptionRefused.INSTANCE, new NegotiateProtocolVersion(0, List.of("_pq_.test_option")),
                        new AuthenticationMD5Password(new byte[] {1, 2, 3, 4}))
                + client(new PgFrontendDecoder(PgFrontendDecoder.State.MESSAGES, ClientDialect.POSTGRESQL), concat(
                        encoded(new PasswordMessage(WireBytes.str("md5d1f7ea7a8e5ff1d4d4f7b5e1a1f1e0a3")))))
                + server(AuthenticationOk.INSTANCE, new ParameterStatus("server_version", "14.0"),
                        new BackendKeyData(1, 99), ReadyForQuery.IDLE)
                + client(new PgFrontendDecoder(PgFrontendDecoder.State.MESSAGES, ClientDialect.POSTGRESQL), concat(
                        encoded(new Parse("", "select id, name from t where id = $1", new int[] {23})),
                        encoded(new Bind("", "", new short[0], new byte[][] {WireBytes.ascii("7")}, new short[] {0})),
                        encoded(new Describe(Describe.PORTAL, "")),
                        encoded(new Execute("", 0)),
                        encoded(Sync.INSTANCE)))
                + server(ParseComplete.INSTANCE, BindComplete.INSTANCE,
                        new RowDescription(List.of(
                                new RowDescription.Field("id", 16384, (short) 1, 23, (short) 4, -1, (short) 0),
                                new RowDescription.Field("name", 16384, (short) 2, 25, (short) -1, -1, (short) 0))),
                        new DataRow(new byte[][] {WireBytes.ascii("7"), null}),
                        new CommandComplete("SELECT 1"), ReadyForQuery.IDLE)
                + client(new PgFrontendDecoder(PgFrontendDecoder.State.MESSAGES, ClientDialect.POSTGRESQL), concat(
                        encoded(new Query("select 1/0")), encoded(new Query("")), encoded(Terminate.INSTANCE)))
                + server(ErrorResponse.error("22012", "division by zero"), ReadyForQuery.IDLE,
                        EmptyQueryResponse.INSTANCE, ReadyForQuery.IDLE);
        assertTrace("extended-query.trace", trace);
    }

    @Test
    void openGaussBatchExchange() throws IOException {
        byte[] salt = new byte[32];
        String trace = client(new PgFrontendDecoder(), encoded(new StartupMessage(
                ClientDialect.PROTOCOL_OPENGAUSS_3_51, Map.of("user", "gauss"), List.of())))
                + server(new AuthenticationSHA256Password(salt, new byte[] {0, 0, 0, 1}, OptionalInt.of(10000)))
                + client(new PgFrontendDecoder(PgFrontendDecoder.State.MESSAGES, ClientDialect.OPENGAUSS_3_51), concat(
                        encoded(new Parse("S_1", "insert into t values ($1, $2)", new int[] {23, 1043})),
                        encoded(new BatchBind("", "S_1", new short[] {0, 0}, new short[0], 2, List.of(
                                new byte[][] {WireBytes.ascii("1"), WireBytes.ascii("a'b")},
                                new byte[][] {WireBytes.ascii("2"), null}), "", 0)),
                        encoded(Sync.INSTANCE)))
                + server(ParseComplete.INSTANCE, BindComplete.INSTANCE, new CommandComplete("INSERT 0 2"),
                        ReadyForQuery.IDLE);
        assertTrace("opengauss-batch.trace", trace);
    }
}
