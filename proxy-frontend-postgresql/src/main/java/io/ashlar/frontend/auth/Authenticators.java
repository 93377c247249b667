package io.ashlar.frontend.auth;

import io.ashlar.protocol.auth.Crypto;
import io.ashlar.protocol.ClientDialect;
import java.security.SecureRandom;
import java.util.random.RandomGenerator;

/**
 * Picks the {@link Authenticator} for a login from the user's configured method and the client's
 * dialect. PostgreSQL clients get what is configured: SCRAM-SHA-256 (SASL), MD5 or cleartext, and
 * MD5 when nothing is configured (ShardingSphere-Proxy's PostgreSQL default, which every driver
 * speaks). openGauss clients are never offered SASL (their driver cannot do it): {@code scram-sha-256},
 * and nothing configured, become openGauss's SHA256 exchange; MD5 and cleartext work as in PostgreSQL.
 *
 * <p>An unknown user gets {@link #forUnknownUser}: a full exchange against a secret nobody knows,
 * ending in the same {@code password authentication failed} as a wrong password, so that a
 * client cannot probe which users exist (PostgreSQL's "doomed" SCRAM exchange).
 *
 * @see <a href="https://www.postgresql.org/docs/current/auth-password.html">Password Authentication</a>
 */
public final class Authenticators {

    private static final SecureRandom RANDOM = new SecureRandom();

    private Authenticators() {
    }

    /** The authenticator for the user's configured method. */
    public static Authenticator create(PasswordVerifiers verifiers, ClientDialect dialect) {
        return create(verifiers, verifiers.method(), dialect, verifiers.userName());
    }

    /**
     * The authenticator for a method and dialect.
     *
     * @param userName the user name from the StartupMessage, for the error message
     */
    public static Authenticator create(PasswordVerifiers verifiers, AuthenticationMethod method,
                                       ClientDialect dialect, String userName) {
        return create(verifiers, method, dialect, userName, RANDOM);
    }

    static Authenticator create(PasswordVerifiers verifiers, AuthenticationMethod method, ClientDialect dialect,
                                String userName, RandomGenerator random) {
        return switch (method) {
            case SCRAM_SHA_256 -> dialect.isOpenGauss()
                    ? openGaussSha256(verifiers, dialect, random)
                    : new ScramSha256Authenticator(userName, verifiers.scram(), random);
            case MD5 -> new Md5Authenticator(userName, verifiers.md5Hash(), random);
            case PASSWORD -> new CleartextPasswordAuthenticator(userName, verifiers.password());
            case PROTOCOL_DEFAULT -> dialect.isOpenGauss()
                    ? openGaussSha256(verifiers, dialect, random)
                    : new Md5Authenticator(userName, verifiers.md5Hash(), random);
        };
    }

    private static Authenticator openGaussSha256(PasswordVerifiers verifiers, ClientDialect dialect, RandomGenerator random) {
        return new OpenGaussSha256Authenticator(verifiers.openGauss(dialect), dialect == ClientDialect.OPENGAUSS_3_51, random);
    }

    /** A login by a user that is not configured: it always fails, after a complete exchange. */
    public static Authenticator forUnknownUser(String userName, ClientDialect dialect) {
        return dialect.isOpenGauss()
                ? new OpenGaussSha256Authenticator(UnknownUserSecrets.openGauss(dialect),
                        dialect == ClientDialect.OPENGAUSS_3_51, RANDOM)
                : new ScramSha256Authenticator(userName, UnknownUserSecrets.SCRAM, RANDOM);
    }

    /** Secrets derived from a random password nobody is told, once per proxy start (holder idiom). */
    private static final class UnknownUserSecrets {

        private static final String PASSWORD = randomPassword();
        static final ScramSecret SCRAM = ScramSecret.derive(PASSWORD, RANDOM);
        private static final OpenGaussSecret OPENGAUSS_3_50 =
                OpenGaussSecret.derive(PASSWORD, OpenGaussSecret.ITERATIONS_3_50, RANDOM);
        private static final OpenGaussSecret OPENGAUSS_3_51 =
                OpenGaussSecret.derive(PASSWORD, OpenGaussSecret.ITERATIONS_3_51, RANDOM);

        static OpenGaussSecret openGauss(ClientDialect dialect) {
            return dialect == ClientDialect.OPENGAUSS_3_50 ? OPENGAUSS_3_50 : OPENGAUSS_3_51;
        }

        private static String randomPassword() {
            byte[] bytes = new byte[32];
            RANDOM.nextBytes(bytes);
            return Crypto.hex(bytes);
        }
    }
}
