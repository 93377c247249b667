package io.ashlar.frontend.auth;

import io.ashlar.protocol.auth.Crypto;
import io.ashlar.backend.config.ProxyUser;
import io.ashlar.protocol.ClientDialect;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.random.RandomGenerator;

/**
 * Everything needed to check one user's password by any method, derived once from the clear
 * password in {@code server.yaml} when the user list is loaded (PBKDF2 is slow on purpose, so it
 * must not run per login): the SCRAM-SHA-256 secret, PostgreSQL's MD5 hash
 * {@code md5hex(password + user)}, the password itself for the cleartext method, and openGauss's
 * SHA256 secrets for protocol 3.50 (2048 iterations) and 3.51 (10000). Immutable; shared by all
 * logins of the user.
 *
 * @see <a href="https://www.postgresql.org/docs/current/auth-password.html">Password Authentication</a>
 */
public final class PasswordVerifiers {

    private final String userName;
    private final AuthenticationMethod method;
    private final byte[] password;
    private final byte[] md5Hash;
    private final ScramSecret scram;
    private final OpenGaussSecret openGauss350;
    private final OpenGaussSecret openGauss351;

    private PasswordVerifiers(String userName, AuthenticationMethod method, byte[] password, byte[] md5Hash,
                              ScramSecret scram, OpenGaussSecret openGauss350, OpenGaussSecret openGauss351) {
        this.userName = userName;
        this.method = method;
        this.password = password;
        this.md5Hash = md5Hash;
        this.scram = scram;
        this.openGauss350 = openGauss350;
        this.openGauss351 = openGauss351;
    }

    /**
     * Derives the verifiers of a configured user, with fresh random salts.
     *
     * @throws IllegalArgumentException when the user's {@code authenticationMethod} is not one of
     *     {@code scram-sha-256}, {@code md5}, {@code password}, {@link ProxyUser#PROTOCOL_DEFAULT}
     */
    public static PasswordVerifiers forUser(ProxyUser user) {
        return forUser(user, new SecureRandom());
    }

    static PasswordVerifiers forUser(ProxyUser user, RandomGenerator random) {
        AuthenticationMethod method = AuthenticationMethod.fromConfig(user.authenticationMethod())
                .orElseThrow(() -> new IllegalArgumentException("user " + user.name()
                        + ": unsupported authenticationMethod '" + user.authenticationMethod()
                        + "', expected scram-sha-256, md5 or password"));
        String clear = user.password();
        byte[] md5Hash = Crypto.md5Hex(clear.getBytes(StandardCharsets.UTF_8), user.name().getBytes(StandardCharsets.UTF_8))
                .getBytes(StandardCharsets.US_ASCII);
        return new PasswordVerifiers(user.name(), method, clear.getBytes(StandardCharsets.UTF_8), md5Hash,
                ScramSecret.derive(clear, random),
                OpenGaussSecret.derive(clear, OpenGaussSecret.ITERATIONS_3_50, random),
                OpenGaussSecret.derive(clear, OpenGaussSecret.ITERATIONS_3_51, random));
    }

    public String userName() {
        return userName;
    }

    /** The method configured for the user. */
    public AuthenticationMethod method() {
        return method;
    }

    byte[] password() {
        return password;
    }

    /** {@code md5hex(password + user)} as 32 ASCII bytes: what PostgreSQL stores for MD5. */
    byte[] md5Hash() {
        return md5Hash;
    }

    ScramSecret scram() {
        return scram;
    }

    OpenGaussSecret openGauss(ClientDialect dialect) {
        return dialect == ClientDialect.OPENGAUSS_3_50 ? openGauss350 : openGauss351;
    }
}
