package io.ashlar.frontend.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.ashlar.backend.config.ProxyUser;
import io.ashlar.protocol.AuthenticationCleartextPassword;
import io.ashlar.protocol.AuthenticationMD5Password;
import io.ashlar.protocol.AuthenticationSASL;
import io.ashlar.protocol.AuthenticationSHA256Password;
import io.ashlar.protocol.ClientDialect;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** MD5 and cleartext against hand-computed values, and which method each client gets. */
final class PasswordAuthenticatorsTest {

    /** A String message body: the bytes and NUL. */
    private static byte[] cString(String value) {
        byte[] text = value.getBytes(StandardCharsets.UTF_8);
        byte[] result = new byte[text.length + 1];
        System.arraycopy(text, 0, result, 0, text.length);
        return result;
    }

    private static String md5Hex(byte[]... parts) throws NoSuchAlgorithmException {
        MessageDigest md5 = MessageDigest.getInstance("MD5");
        for (byte[] each : parts) {
            md5.update(each);
        }
        return HexFormat.of().formatHex(md5.digest());
    }

    @Test
    void md5HashIsPostgresFormat() {
        PasswordVerifiers postgres = PasswordVerifiers.forUser(new ProxyUser("postgres", "%", "postgres", "md5"));
        // rolpassword of user postgres with password postgres, as PostgreSQL stores it: md5 + md5("postgrespostgres")
        assertEquals("3175bce1d3201d16594cebf9d7eb3f9d", new String(postgres.md5Hash(), StandardCharsets.US_ASCII));
    }

    @Test
    void md5RightAndWrongPassword() throws NoSuchAlgorithmException {
        PasswordVerifiers postgres = PasswordVerifiers.forUser(new ProxyUser("postgres", "%", "postgres", "md5"));
        Authenticator server = Authenticators.create(postgres, ClientDialect.POSTGRESQL);
        byte[] salt = ((AuthenticationMD5Password) server.start()).salt();
        String answer = "md5" + md5Hex("3175bce1d3201d16594cebf9d7eb3f9d".getBytes(StandardCharsets.US_ASCII), salt);
        assertSame(AuthStep.Success.PLAIN, server.onPassword(cString(answer)));

        Authenticator again = Authenticators.create(postgres, ClientDialect.POSTGRESQL);
        byte[] otherSalt = ((AuthenticationMD5Password) again.start()).salt();
        String wrong = "md5" + md5Hex(md5Hex("wrongpostgres".getBytes(StandardCharsets.UTF_8))
                .getBytes(StandardCharsets.US_ASCII), otherSalt);
        assertEquals(new AuthStep.Failure("28P01", "password authentication failed for user \"postgres\""),
                again.onPassword(cString(wrong)));
    }

    @Test
    void md5ReplayWithAnotherSaltFails() throws NoSuchAlgorithmException {
        PasswordVerifiers postgres = PasswordVerifiers.forUser(new ProxyUser("postgres", "%", "postgres", "md5"));
        Authenticator first = Authenticators.create(postgres, ClientDialect.POSTGRESQL);
        byte[] salt = ((AuthenticationMD5Password) first.start()).salt();
        String answer = "md5" + md5Hex("3175bce1d3201d16594cebf9d7eb3f9d".getBytes(StandardCharsets.US_ASCII), salt);
        Authenticator second = Authenticators.create(postgres, ClientDialect.POSTGRESQL);
        byte[] secondSalt = ((AuthenticationMD5Password) second.start()).salt();
        AuthStep replayed = second.onPassword(cString(answer));
        assertEquals(java.util.Arrays.equals(salt, secondSalt), replayed instanceof AuthStep.Success);
    }

    @Test
    void md5PacketWithoutNulIsAProtocolViolation() {
        PasswordVerifiers postgres = PasswordVerifiers.forUser(new ProxyUser("postgres", "%", "postgres", "md5"));
        Authenticator server = Authenticators.create(postgres, ClientDialect.POSTGRESQL);
        server.start();
        assertEquals(new AuthStep.Failure("08P01", "invalid password packet size"),
                server.onPassword("md5abc".getBytes(StandardCharsets.US_ASCII)));
    }

    @Test
    void cleartextPassword() {
        PasswordVerifiers user = PasswordVerifiers.forUser(new ProxyUser("app", "%", "pässword", "password"));
        Authenticator server = Authenticators.create(user, ClientDialect.POSTGRESQL);
        assertSame(AuthenticationCleartextPassword.INSTANCE, server.start());
        assertSame(AuthStep.Success.PLAIN, server.onPassword(cString("pässword")));
        Authenticator wrong = Authenticators.create(user, ClientDialect.POSTGRESQL);
        wrong.start();
        assertEquals(AuthStep.Failure.passwordFailed("app"), wrong.onPassword(cString("password")));
        Authenticator twoStrings = Authenticators.create(user, ClientDialect.POSTGRESQL);
        twoStrings.start();
        assertEquals("invalid password packet size",
                ((AuthStep.Failure) twoStrings.onPassword(new byte[] {'a', 0, 'b', 0})).message());
    }

    /**
     * A user whose configuration names no method is asked for MD5 by a PostgreSQL client (as ShardingSphere-Proxy's
     * PostgreSQL frontend does: every driver has MD5) and for openGauss's SHA256 by an openGauss client.
     */
    @Test
    void noMethodNamedIsMd5ForPostgresqlAndSha256ForOpenGauss() throws NoSuchAlgorithmException {
        PasswordVerifiers user = PasswordVerifiers.forUser(new ProxyUser("postgres", "%", "postgres", null));
        assertEquals(AuthenticationMethod.PROTOCOL_DEFAULT, user.method());
        Authenticator postgres = Authenticators.create(user, ClientDialect.POSTGRESQL);
        byte[] salt = ((AuthenticationMD5Password) postgres.start()).salt();
        String answer = "md5" + md5Hex("3175bce1d3201d16594cebf9d7eb3f9d".getBytes(StandardCharsets.US_ASCII), salt);
        assertSame(AuthStep.Success.PLAIN, postgres.onPassword(cString(answer)));
        AuthenticationSHA256Password og351 = (AuthenticationSHA256Password) Authenticators.create(user,
                ClientDialect.OPENGAUSS_3_51).start();
        assertEquals(java.util.OptionalInt.of(10000), og351.iterations());
        assertInstanceOf(AuthenticationSHA256Password.class, Authenticators.create(user, ClientDialect.OPENGAUSS_3_50).start());
        assertEquals(Optional.of(AuthenticationMethod.PROTOCOL_DEFAULT), AuthenticationMethod.fromConfig(ProxyUser.PROTOCOL_DEFAULT));
    }

    @Test
    void dialectDecidesTheScramExchange() {
        PasswordVerifiers user = PasswordVerifiers.forUser(new ProxyUser("root", "%", "root", "SCRAM-SHA-256"));
        assertEquals(AuthenticationMethod.SCRAM_SHA_256, user.method());
        assertInstanceOf(AuthenticationSASL.class, Authenticators.create(user, ClientDialect.POSTGRESQL).start());
        AuthenticationSHA256Password og351 = (AuthenticationSHA256Password) Authenticators.create(user,
                ClientDialect.OPENGAUSS_3_51).start();
        assertEquals(java.util.OptionalInt.of(10000), og351.iterations());
        AuthenticationSHA256Password og350 = (AuthenticationSHA256Password) Authenticators.create(user,
                ClientDialect.OPENGAUSS_3_50).start();
        assertEquals(java.util.OptionalInt.empty(), og350.iterations());
        assertInstanceOf(AuthenticationMD5Password.class, Authenticators.create(user, AuthenticationMethod.MD5,
                ClientDialect.OPENGAUSS_3_51, "root").start());
        assertEquals(Optional.of(AuthenticationMethod.MD5), AuthenticationMethod.fromConfig("MD5"));
        assertEquals(Optional.empty(), AuthenticationMethod.fromConfig("trust"));
    }

    @Test
    void unknownUserFailsLikeAWrongPassword() {
        Authenticator server = Authenticators.forUnknownUser("ghost", ClientDialect.POSTGRESQL);
        assertInstanceOf(AuthenticationSASL.class, server.start());
        Authenticator openGauss = Authenticators.forUnknownUser("ghost", ClientDialect.OPENGAUSS_3_51);
        assertInstanceOf(AuthenticationSHA256Password.class, openGauss.start());
        byte[] reply = cString("00".repeat(32));
        assertEquals(new AuthStep.Failure("28P01", OpenGaussSha256Authenticator.LOGIN_DENIED),
                openGauss.onPassword(reply));
    }
}
