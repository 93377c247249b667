package io.ashlar.backend.pg;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ashlar.backend.config.DataSourceConfig;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.concurrent.ImmediateEventExecutor;
import io.netty.util.concurrent.Promise;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.opengauss.util.MD5Digest;

/**
 * The client side of openGauss's logins in {@link ServerLink}, for {@code jdbc:opengauss:} data
 * sources: the startup packet's protocol version, and each answer compared byte for byte with what
 * openGauss's own JDBC driver computes for the same request ({@code org.opengauss.util.MD5Digest},
 * the code its {@code ConnectionFactoryImpl} answers with). The requests are written by hand as an
 * openGauss server sends them. (The whole exchange against a server is OpenGaussBackendTest, with
 * an Ashlar proxy as the server.)
 */
final class ServerLinkOpenGaussTest {

    private static final String USER = "gaussdb";
    private static final String PASSWORD = "Gauss@123";
    private static final String SALT = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
    private static final String TOKEN = "a1b2c3d4";
    private static final byte[] MD5_SALT = {0x11, 0x22, 0x33, 0x44};

    /** A link to a {@code jdbc:opengauss:} data source, active in an EmbeddedChannel, and the future of its login. */
    private record Login(EmbeddedChannel channel, Promise<ServerLink> ready) {
        /** What the link wrote: one message (startup packet or PasswordMessage). */
        ByteBuf sent() {
            ByteBuf result = channel.readOutbound();
            return result;
        }
    }

    private static Login login(Map<String, String> props) {
        DataSourceConfig config = new DataSourceConfig("og_0", "jdbc:opengauss://127.0.0.1:5432/postgres", USER, PASSWORD,
                30_000, 60_000, 1_800_000, 1, 0, props);
        Promise<ServerLink> ready = ImmediateEventExecutor.INSTANCE.newPromise();
        EmbeddedChannel channel = new EmbeddedChannel(ServerLink.detached(ConnectSpec.of(config), ready));
        return new Login(channel, ready);
    }

    /** The body of a PasswordMessage without its NUL: 'p', Int32 length, text, NUL. */
    private static byte[] password(ByteBuf message) {
        assertEquals('p', message.readByte());
        int length = message.readInt();
        byte[] result = new byte[length - 4 - 1];
        message.readBytes(result);
        assertEquals(0, message.readByte());
        assertFalse(message.isReadable());
        message.release();
        return result;
    }

    private static void finishLogin(Login login) {
        ByteBuf ok = Unpooled.buffer();
        ok.writeByte('R').writeInt(8).writeInt(0);                 // AuthenticationOk
        ok.writeByte('Z').writeInt(5).writeByte('I');              // ReadyForQuery, idle
        login.channel().writeInbound(ok);
        assertTrue(login.ready().isSuccess(), () -> String.valueOf(login.ready().cause()));
    }

    @Test
    void sendsProtocol351AndAnswersSha256WithTheIterationCount() {
        Login login = login(Map.of());
        ByteBuf startup = login.sent();
        startup.skipBytes(4);                                      // length
        assertEquals(3 << 16 | 51, startup.readInt());             // openGauss protocol 3.51
        startup.release();

        ByteBuf request = Unpooled.buffer();
        request.writeByte('R').writeInt(88);                       // 4 + 4 + 4 + 64 + 8 + 4
        request.writeInt(10);                                      // AUTH_REQ_SHA256
        request.writeInt(2);                                       // password stored as SHA256
        request.writeCharSequence(SALT, StandardCharsets.US_ASCII);
        request.writeCharSequence(TOKEN, StandardCharsets.US_ASCII);
        request.writeInt(10_000);                                  // iterations (3.51 only)
        login.channel().writeInbound(request);

        byte[] answer = password(login.sent());
        assertArrayEquals(MD5Digest.RFC5802Algorithm(PASSWORD, SALT, TOKEN, 10_000), answer,
                () -> new String(answer, StandardCharsets.US_ASCII));
        assertEquals(64, answer.length);
        finishLogin(login);
    }

    @Test
    void protocol350ImpliesTwoThousandFortyEightIterations() {
        Login login = login(Map.of("protocolVersion", "350"));
        ByteBuf startup = login.sent();
        assertEquals(3 << 16 | 50, startup.getInt(4));             // openGauss protocol 3.50
        startup.release();

        ByteBuf request = Unpooled.buffer();
        request.writeByte('R').writeInt(84);                       // no iteration count
        request.writeInt(10).writeInt(2);
        request.writeCharSequence(SALT, StandardCharsets.US_ASCII);
        request.writeCharSequence(TOKEN, StandardCharsets.US_ASCII);
        login.channel().writeInbound(request);

        assertArrayEquals(MD5Digest.RFC5802Algorithm(PASSWORD, SALT, TOKEN), password(login.sent()));
        finishLogin(login);
    }

    @Test
    void answersSha256ForAPasswordStoredAsMd5() {
        Login login = login(Map.of());
        login.sent().release();
        ByteBuf request = Unpooled.buffer();
        request.writeByte('R').writeInt(16);
        request.writeInt(10);                                      // AUTH_REQ_SHA256
        request.writeInt(1);                                       // password stored as MD5
        request.writeBytes(MD5_SALT);
        login.channel().writeInbound(request);

        byte[] expected = MD5Digest.SHA256_MD5encode(USER.getBytes(StandardCharsets.UTF_8),
                PASSWORD.getBytes(StandardCharsets.UTF_8), MD5_SALT);
        assertArrayEquals(expected, password(login.sent()));
        finishLogin(login);
    }

    @Test
    void answersMd5Sha256AsTheDriverDoes() {
        Login login = login(Map.of());
        login.sent().release();
        ByteBuf request = Unpooled.buffer();
        request.writeByte('R').writeInt(4 + 4 + 64 + 4);
        request.writeInt(11);                                      // AUTH_REQ_MD5_SHA256
        request.writeCharSequence(SALT, StandardCharsets.US_ASCII);
        request.writeBytes(MD5_SALT);
        login.channel().writeInbound(request);

        byte[] expected = MD5Digest.MD5_SHA256encode(PASSWORD, SALT, MD5_SALT);
        byte[] answer = password(login.sent());
        assertArrayEquals(expected, answer, () -> new String(answer, StandardCharsets.US_ASCII));
        finishLogin(login);
    }

    @Test
    void refusesSm3ByName() {
        Login login = login(Map.of());
        login.sent().release();
        ByteBuf request = Unpooled.buffer();
        request.writeByte('R').writeInt(8).writeInt(13);           // AUTH_REQ_SM3
        login.channel().writeInbound(request);
        assertFalse(login.ready().isSuccess());
        assertTrue(login.ready().cause().getMessage().contains("SM3"), login.ready().cause().getMessage());
        assertFalse(login.channel().isOpen());
    }

    @Test
    void aRefusedLoginFailsWithTheServersWords() {
        Login login = login(Map.of());
        login.sent().release();
        byte[] fields = "SFATAL\0C28P01\0MInvalid username/password,login denied.\0\0".getBytes(StandardCharsets.US_ASCII);
        ByteBuf error = Unpooled.buffer();
        error.writeByte('E').writeInt(4 + fields.length).writeBytes(fields);
        login.channel().writeInbound(error);
        assertEquals("Invalid username/password,login denied. (SQLSTATE 28P01)", login.ready().cause().getMessage());
    }

    @Test
    void aPostgresqlDataSourceStillReadsCode10AsSasl() {
        DataSourceConfig config = DataSourceConfig.of("pg_0", "jdbc:postgresql://127.0.0.1:5432/postgres", USER, PASSWORD);
        Promise<ServerLink> ready = ImmediateEventExecutor.INSTANCE.newPromise();
        EmbeddedChannel channel = new EmbeddedChannel(ServerLink.detached(ConnectSpec.of(config), ready));
        ByteBuf startup = channel.readOutbound();
        assertEquals(3 << 16, startup.getInt(4));                  // PostgreSQL 3.0
        startup.release();
        byte[] mechanisms = "SCRAM-SHA-256\0\0".getBytes(StandardCharsets.US_ASCII);
        ByteBuf request = Unpooled.buffer();
        request.writeByte('R').writeInt(8 + mechanisms.length).writeInt(10).writeBytes(mechanisms);
        channel.writeInbound(request);
        ByteBuf answer = channel.readOutbound();
        String text = answer.toString(StandardCharsets.US_ASCII);
        answer.release();
        assertTrue(text.contains("SCRAM-SHA-256\0") && text.contains("n,,n=,r="), () -> ByteBufUtil.hexDump(text.getBytes()));
    }
}
