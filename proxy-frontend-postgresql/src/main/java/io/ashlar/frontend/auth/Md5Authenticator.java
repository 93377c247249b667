package io.ashlar.frontend.auth;

import io.ashlar.protocol.auth.Crypto;
import io.ashlar.protocol.AuthenticationMD5Password;
import io.ashlar.protocol.BackendMessage;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Optional;
import java.util.random.RandomGenerator;

/**
 * PostgreSQL's MD5 method: the server sends 4 random salt bytes, the client answers
 * {@code "md5" + md5hex(md5hex(password + user) + salt)}; the inner hash is precomputed in
 * {@link PasswordVerifiers}. Compared in constant time. States: before {@link #start()}, waiting
 * for the password, done.
 *
 * @see <a href="https://www.postgresql.org/docs/current/auth-password.html">Password Authentication</a>
 */
public final class Md5Authenticator implements Authenticator {

    private final String userName;
    private final byte[] md5Hash;
    private final RandomGenerator random;
    private byte[] salt = new byte[0];
    private boolean done;

    Md5Authenticator(String userName, byte[] md5Hash, RandomGenerator random) {
        this.userName = userName;
        this.md5Hash = md5Hash;
        this.random = random;
    }

    @Override
    public LoginMethod method() {
        return LoginMethod.MD5;
    }

    @Override
    public BackendMessage start() {
        salt = new byte[4];
        random.nextBytes(salt);
        return new AuthenticationMD5Password(salt);
    }

    @Override
    public AuthStep onPassword(byte[] body) {
        if (done || salt.length == 0) {
            return new AuthStep.Failure(AuthStep.Failure.PROTOCOL_VIOLATION, "unexpected password message");
        }
        done = true;
        Optional<byte[]> response = PasswordPacket.text(body);
        if (response.isEmpty()) {
            return PasswordPacket.invalidSize();
        }
        byte[] expected = ("md5" + Crypto.md5Hex(md5Hash, salt)).getBytes(StandardCharsets.US_ASCII);
        return MessageDigest.isEqual(expected, response.get()) ? AuthStep.Success.PLAIN
                : AuthStep.Failure.passwordFailed(userName);
    }
}
