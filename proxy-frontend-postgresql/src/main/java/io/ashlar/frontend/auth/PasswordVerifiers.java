package io.ashlar.frontend.auth;

import io.ashlar.protocol.auth.Crypto;
import io.ashlar.backend.config.ProxyUser;
import io.ashlar.protocol.ClientDialect;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.random.RandomGenerator;

/**
 * Everything needed to check one user's password by any method, derived once from the clear
 * password in {@code server.yaml} when the user list is loaded (PBKDF2 is slow on purpose, so it
 * must not run per login): the SCRAM-SHA-256 secret, PostgreSQL's MD5 hash
 * {@code md5hex(password + user)}, the password itself for the cleartext method, and openGauss's
 * SHA256 secrets for protocol 3.50 (2048 iterations) and 3.51 (10000). Immutable; shared by all
 * logins of the user.
 *
 * <p>Some verifiers let nobody in ({@link #usable()} false) and still run a whole exchange, so that
 * a client cannot tell why it was refused: those of a user configured with an empty password
 * (PostgreSQL never accepts one: {@code CREATE ROLE ... PASSWORD ''} stores none), and those made up
 * for a user name nobody configured ({@link #forUnknownUser}), PostgreSQL's "mock" authentication.
 *
 * @see <a href="https://www.postgresql.org/docs/current/auth-password.html">Password Authentication</a>
 */
public final class PasswordVerifiers {

    private final String userName;
    private final AuthenticationMethod method;
    private final boolean usable;
    private final byte[] password;
    private final byte[] md5Hash;
    private final ScramSecret scram;
    private final OpenGaussSecret openGauss350;
    private final OpenGaussSecret openGauss351;

    private PasswordVerifiers(String userName, AuthenticationMethod method, boolean usable, byte[] password, byte[] md5Hash,
                              ScramSecret scram, OpenGaussSecret openGauss350, OpenGaussSecret openGauss351) {
        this.userName = userName;
        this.method = method;
        this.usable = usable;
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
        AuthenticationMethod method = method(user);
        String clear = user.password();
        if (clear.isEmpty()) {
            // Secrets of a password nobody is told: the exchange runs, and fails, as for a wrong password.
            byte[] secret = new byte[32];
            random.nextBytes(secret);
            return forUnknownUser(user.name(), method, secret);
        }
        byte[] md5Hash = Crypto.md5Hex(clear.getBytes(StandardCharsets.UTF_8), user.name().getBytes(StandardCharsets.UTF_8))
                .getBytes(StandardCharsets.US_ASCII);
        return new PasswordVerifiers(user.name(), method, true, clear.getBytes(StandardCharsets.UTF_8), md5Hash,
                ScramSecret.derive(clear, random),
                OpenGaussSecret.derive(clear, OpenGaussSecret.ITERATIONS_3_50, random),
                OpenGaussSecret.derive(clear, OpenGaussSecret.ITERATIONS_3_51, random));
    }

    /** The method a configured user names; throws {@link IllegalArgumentException} for an unknown one. */
    public static AuthenticationMethod method(ProxyUser user) {
        return AuthenticationMethod.fromConfig(user.authenticationMethod())
                .orElseThrow(() -> new IllegalArgumentException("user " + user.name()
                        + ": unsupported authenticationMethod '" + user.authenticationMethod()
                        + "', expected scram-sha-256, md5 or password"));
    }

    /**
     * Verifiers for a user name nobody configured, which let nobody in. Salts and keys are HMACs of
     * the name under {@code serverSecret}: the same name always gets the same SCRAM and openGauss
     * salts, as a configured user does, and two names different ones, so that the request a client
     * gets does not tell it whether the user exists (PostgreSQL's {@code scram_mock_salt}, a hash of
     * the name and a secret nonce made at start). HMACs only: no PBKDF2 per login.
     *
     * @param serverSecret random bytes made once per proxy start and never sent
     */
    public static PasswordVerifiers forUnknownUser(String userName, AuthenticationMethod method, byte[] serverSecret) {
        byte[] name = userName.getBytes(StandardCharsets.UTF_8);
        ScramSecret scram = new ScramSecret(Arrays.copyOf(mock(serverSecret, "scram-salt", name), ScramSecret.SALT_LENGTH),
                ScramSecret.DEFAULT_ITERATIONS, mock(serverSecret, "scram-stored-key", name),
                mock(serverSecret, "scram-server-key", name));
        OpenGaussSecret openGauss350 = new OpenGaussSecret(mock(serverSecret, "opengauss-3.50-salt", name),
                OpenGaussSecret.ITERATIONS_3_50, mock(serverSecret, "opengauss-3.50-stored-key", name));
        OpenGaussSecret openGauss351 = new OpenGaussSecret(mock(serverSecret, "opengauss-3.51-salt", name),
                OpenGaussSecret.ITERATIONS_3_51, mock(serverSecret, "opengauss-3.51-stored-key", name));
        byte[] md5Hash = Crypto.hex(Arrays.copyOf(mock(serverSecret, "md5", name), 16)).getBytes(StandardCharsets.US_ASCII);
        byte[] password = Crypto.hex(mock(serverSecret, "password", name)).getBytes(StandardCharsets.US_ASCII);
        return new PasswordVerifiers(userName, method, false, password, md5Hash, scram, openGauss350, openGauss351);
    }

    private static byte[] mock(byte[] serverSecret, String purpose, byte[] name) {
        byte[] label = purpose.getBytes(StandardCharsets.US_ASCII);
        byte[] data = new byte[label.length + 1 + name.length];
        System.arraycopy(label, 0, data, 0, label.length);
        System.arraycopy(name, 0, data, label.length + 1, name.length);
        return Crypto.hmacSha256(serverSecret, data);
    }

    public String userName() {
        return userName;
    }

    /** The method configured for the user. */
    public AuthenticationMethod method() {
        return method;
    }

    /**
     * Whether a right answer may log the user in: false for an unknown user and for one configured
     * with an empty password, whose exchanges always end in {@code password authentication failed}.
     */
    public boolean usable() {
        return usable;
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
