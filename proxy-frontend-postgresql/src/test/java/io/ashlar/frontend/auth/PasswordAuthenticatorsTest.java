package io.ashlar.frontend.auth;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
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
import java.util.Arrays;
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

    private static final byte[] SECRET = "a secret made at start, 32 bytes".getBytes(StandardCharsets.US_ASCII);

    @Test
    void unknownUserFailsLikeAWrongPasswordAfterTheSameExchange() throws NoSuchAlgorithmException {
        PasswordVerifiers ghost = PasswordVerifiers.forUnknownUser("ghost", AuthenticationMethod.MD5, SECRET);
        Authenticator md5 = Authenticators.create(ghost, ClientDialect.POSTGRESQL);
        byte[] salt = ((AuthenticationMD5Password) md5.start()).salt();
        // Even the answer made from the made-up secret itself, which no client can know, is refused.
        String knowingAnswer = "md5" + md5Hex(ghost.md5Hash(), salt);
        assertEquals(new AuthStep.Failure("28P01", "password authentication failed for user \"ghost\""),
                md5.onPassword(cString(knowingAnswer)));

        PasswordVerifiers plain = PasswordVerifiers.forUnknownUser("ghost", AuthenticationMethod.PASSWORD, SECRET);
        Authenticator cleartext = Authenticators.create(plain, ClientDialect.POSTGRESQL);
        assertSame(AuthenticationCleartextPassword.INSTANCE, cleartext.start());
        assertEquals(new AuthStep.Failure("28P01", "password authentication failed for user \"ghost\""),
                cleartext.onPassword(cString(new String(plain.password(), StandardCharsets.US_ASCII))));

        PasswordVerifiers scram = PasswordVerifiers.forUnknownUser("ghost", AuthenticationMethod.SCRAM_SHA_256, SECRET);
        assertInstanceOf(AuthenticationSASL.class, Authenticators.create(scram, ClientDialect.POSTGRESQL).start());
        Authenticator openGauss = Authenticators.create(scram, ClientDialect.OPENGAUSS_3_51);
        assertInstanceOf(AuthenticationSHA256Password.class, openGauss.start());
        assertEquals(new AuthStep.Failure("28P01", OpenGaussSha256Authenticator.LOGIN_DENIED),
                openGauss.onPassword(cString("00".repeat(32))));
    }

    /**
     * A configured user's SCRAM salt never changes while the proxy runs; an unknown user's must not
     * either, or asking twice would tell which names exist (PostgreSQL's scram_mock_salt).
     */
    @Test
    void unknownUsersSaltsAreStablePerNameAndDifferBetweenNames() {
        byte[] ghost = PasswordVerifiers.forUnknownUser("ghost", AuthenticationMethod.SCRAM_SHA_256, SECRET).scram().salt();
        assertArrayEquals(ghost, PasswordVerifiers.forUnknownUser("ghost", AuthenticationMethod.SCRAM_SHA_256, SECRET)
                .scram().salt());
        assertEquals(16, ghost.length, "PostgreSQL's salt length, as a configured user's");
        assertEquals(4096, PasswordVerifiers.forUnknownUser("ghost", AuthenticationMethod.SCRAM_SHA_256, SECRET)
                .scram().iterations());
        assertFalse(Arrays.equals(ghost, PasswordVerifiers.forUnknownUser("ghost2", AuthenticationMethod.SCRAM_SHA_256, SECRET)
                .scram().salt()));
        byte[] otherStart = "another secret, another start!!!".getBytes(StandardCharsets.US_ASCII);
        assertFalse(Arrays.equals(ghost, PasswordVerifiers.forUnknownUser("ghost", AuthenticationMethod.SCRAM_SHA_256,
                otherStart).scram().salt()));
        byte[] openGauss = PasswordVerifiers.forUnknownUser("ghost", AuthenticationMethod.SCRAM_SHA_256, SECRET)
                .openGauss(ClientDialect.OPENGAUSS_3_51).salt();
        assertArrayEquals(openGauss, PasswordVerifiers.forUnknownUser("ghost", AuthenticationMethod.SCRAM_SHA_256, SECRET)
                .openGauss(ClientDialect.OPENGAUSS_3_51).salt());
    }

    /** PostgreSQL never accepts an empty password: the user goes through its exchange and fails, even with "". */
    @Test
    void anEmptyConfiguredPasswordLetsNobodyIn() throws NoSuchAlgorithmException {
        PasswordVerifiers empty = PasswordVerifiers.forUser(new ProxyUser("nopass", "%", "", "md5"));
        assertFalse(empty.usable());
        Authenticator md5 = Authenticators.create(empty, ClientDialect.POSTGRESQL);
        byte[] salt = ((AuthenticationMD5Password) md5.start()).salt();
        String emptyAnswer = "md5" + md5Hex(md5Hex("nopass".getBytes(StandardCharsets.UTF_8)).getBytes(StandardCharsets.US_ASCII),
                salt);
        assertEquals(new AuthStep.Failure("28P01", "password authentication failed for user \"nopass\""),
                md5.onPassword(cString(emptyAnswer)));
        Authenticator cleartext = Authenticators.create(PasswordVerifiers.forUser(new ProxyUser("nopass", "%", "", "password")),
                ClientDialect.POSTGRESQL);
        cleartext.start();
        assertEquals(new AuthStep.Failure("28P01", "password authentication failed for user \"nopass\""),
                cleartext.onPassword(cString("")));
        assertTrue(PasswordVerifiers.forUser(new ProxyUser("x", "%", "y", "md5")).usable());
    }
}
