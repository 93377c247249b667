package io.ashlar.frontend.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.ashlar.backend.config.ProxyUser;
import io.ashlar.protocol.AuthenticationSHA256Password;
import io.ashlar.protocol.BackendMessages;
import io.ashlar.protocol.ClientDialect;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Locale;
import javax.crypto.Mac;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * openGauss's SHA256 exchange against a client side written here from the formula (what
 * openGauss JDBC's {@code MD5Digest.RFC5802Algorithm} computes), for protocol 3.50 and 3.51. The
 * client reads the request from its wire bytes, as the driver does.
 */
final class OpenGaussSha256AuthenticatorTest {

    private static PasswordVerifiers gauss;

    @BeforeAll
    static void deriveOnce() {
        gauss = PasswordVerifiers.forUser(new ProxyUser("gauss", "%", "Gauss@123", "scram-sha-256"));
    }

    /** The driver's answer: hex(HMAC_SHA256(StoredKey, token) XOR ClientKey), lower case, then NUL. */
    private static byte[] clientReply(String password, String saltHex, String tokenHex, int iterations)
            throws Exception {
        HexFormat hex = HexFormat.of();
        PBEKeySpec spec = new PBEKeySpec(password.toCharArray(), hex.parseHex(saltHex), iterations, 32 * 8);
        byte[] k = SecretKeyFactory.getInstance("PBKDF2WithHmacSHA1").generateSecret(spec).getEncoded();
        byte[] clientKey = hmac(k, "Client Key".getBytes(StandardCharsets.UTF_8));
        byte[] storedKey = MessageDigest.getInstance("SHA-256").digest(clientKey);
        byte[] signature = hmac(storedKey, hex.parseHex(tokenHex));
        byte[] proof = new byte[clientKey.length];
        for (int i = 0; i < proof.length; i++) {
            proof[i] = (byte) (signature[i] ^ clientKey[i]);
        }
        return (hex.formatHex(proof) + "\0").getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] hmac(byte[] key, byte[] data) throws Exception {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(key, "HmacSHA256"));
        return mac.doFinal(data);
    }

    /** Reads the request the way the driver does: Int32 code, Int32 method, 64 + 8 chars, [Int32]. */
    private record Request(String salt, String token, int iterations) {

        static Request read(AuthenticationSHA256Password message, ClientDialect dialect) {
            ByteBuf wire = Unpooled.buffer();
            message.encode(wire);
            assertEquals('R', wire.readByte());
            assertEquals(dialect == ClientDialect.OPENGAUSS_3_51 ? 88 : 84, wire.readInt());
            assertEquals(10, wire.readInt());
            assertEquals(2, wire.readInt());
            String salt = wire.readCharSequence(64, StandardCharsets.US_ASCII).toString();
            String token = wire.readCharSequence(8, StandardCharsets.US_ASCII).toString();
            int iterations = dialect == ClientDialect.OPENGAUSS_3_51 ? wire.readInt() : 2048;
            assertEquals(0, wire.readableBytes());
            return new Request(salt, token, iterations);
        }
    }

    private static AuthStep login(ClientDialect dialect, String password, boolean upperCase) throws Exception {
        Authenticator server = Authenticators.create(gauss, dialect);
        AuthenticationSHA256Password request = (AuthenticationSHA256Password) server.start();
        Request read = Request.read(request, dialect);
        byte[] reply = clientReply(password, read.salt(), read.token(), read.iterations());
        if (upperCase) {
            reply = new String(reply, StandardCharsets.US_ASCII).toUpperCase(Locale.ROOT)
                    .getBytes(StandardCharsets.US_ASCII);
        }
        return server.onPassword(reply);
    }

    @Test
    void protocol351RightPassword() throws Exception {
        assertSame(AuthStep.Success.PLAIN, login(ClientDialect.OPENGAUSS_3_51, "Gauss@123", false));
    }

    @Test
    void protocol350RightPasswordWith2048Iterations() throws Exception {
        assertSame(AuthStep.Success.PLAIN, login(ClientDialect.OPENGAUSS_3_50, "Gauss@123", false));
    }

    @Test
    void upperCaseHexIsAccepted() throws Exception {
        assertSame(AuthStep.Success.PLAIN, login(ClientDialect.OPENGAUSS_3_51, "Gauss@123", true));
    }

    @Test
    void wrongPassword() throws Exception {
        for (ClientDialect dialect : new ClientDialect[] {ClientDialect.OPENGAUSS_3_50, ClientDialect.OPENGAUSS_3_51}) {
            assertEquals(new AuthStep.Failure("28P01", "Invalid username/password,login denied."),
                    login(dialect, "gauss@123", false));
        }
    }

    @Test
    void replyOfTheWrongSizeOrNotHex() {
        Authenticator server = Authenticators.create(gauss, ClientDialect.OPENGAUSS_3_51);
        server.start();
        assertEquals("invalid password packet size",
                ((AuthStep.Failure) server.onPassword("abcd\0".getBytes(StandardCharsets.US_ASCII))).message());
        Authenticator notHex = Authenticators.create(gauss, ClientDialect.OPENGAUSS_3_51);
        notHex.start();
        assertInstanceOf(AuthStep.Failure.class, notHex.onPassword(("zz".repeat(32) + "\0")
                .getBytes(StandardCharsets.US_ASCII)));
    }

    @Test
    void requestDecodesAsSha256NotSasl() {
        Authenticator server = Authenticators.create(gauss, ClientDialect.OPENGAUSS_3_51);
        AuthenticationSHA256Password request = (AuthenticationSHA256Password) server.start();
        ByteBuf wire = Unpooled.buffer();
        request.encode(wire);
        assertEquals(request, BackendMessages.decode(wire));
    }
}
