package io.ashlar.frontend.auth;

import io.ashlar.protocol.ClientDialect;
import java.security.SecureRandom;
import java.util.random.RandomGenerator;

/**
 * Picks the {@link Authenticator} for a login from the user's configured method and the client's
 * dialect. PostgreSQL clients get what is configured: SCRAM-SHA-256 (SASL; over TLS also
 * SCRAM-SHA-256-PLUS), MD5 or cleartext, and MD5 when nothing is configured (ShardingSphere-Proxy's
 * PostgreSQL default, which every driver speaks). openGauss clients are never offered SASL (their
 * driver cannot do it): {@code scram-sha-256}, and nothing configured, become openGauss's SHA256
 * exchange; MD5 and cleartext work as in PostgreSQL.
 *
 * <p>An unknown user, or one configured with an empty password, gets the same exchange against
 * verifiers that let nobody in ({@link PasswordVerifiers#usable()}), ending in the same
 * {@code password authentication failed} as a wrong password: the authenticator refuses a right
 * answer too, so that nothing but the configured password ever logs anyone in.
 *
 * @see <a href="https://www.postgresql.org/docs/current/auth-password.html">Password Authentication</a>
 */
public final class Authenticators {

    private static final SecureRandom RANDOM = new SecureRandom();
    private static final byte[] NO_TLS = new byte[0];

    private Authenticators() {
    }

    /** The authenticator for the user's configured method, over a connection without TLS. */
    public static Authenticator create(PasswordVerifiers verifiers, ClientDialect dialect) {
        return create(verifiers, dialect, NO_TLS);
    }

    /**
     * The authenticator for the user's configured method.
     *
     * @param certificateHash {@code tls-server-end-point} of the certificate the client's TLS session
     *        shows (SCRAM-SHA-256-PLUS binds to it); empty without TLS
     */
    public static Authenticator create(PasswordVerifiers verifiers, ClientDialect dialect, byte[] certificateHash) {
        return create(verifiers, verifiers.method(), dialect, verifiers.userName(), certificateHash, RANDOM);
    }

    /**
     * The authenticator for a method and dialect, over a connection without TLS.
     *
     * @param userName the user name from the StartupMessage, for the error message
     */
    public static Authenticator create(PasswordVerifiers verifiers, AuthenticationMethod method,
                                       ClientDialect dialect, String userName) {
        return create(verifiers, method, dialect, userName, NO_TLS, RANDOM);
    }

    static Authenticator create(PasswordVerifiers verifiers, AuthenticationMethod method, ClientDialect dialect,
                                String userName, byte[] certificateHash, RandomGenerator random) {
        Authenticator result = switch (method) {
            case SCRAM_SHA_256 -> dialect.isOpenGauss()
                    ? openGaussSha256(verifiers, dialect, random)
                    : new ScramSha256Authenticator(userName, verifiers.scram(), certificateHash, random);
            case MD5 -> new Md5Authenticator(userName, verifiers.md5Hash(), random);
            case PASSWORD -> new CleartextPasswordAuthenticator(userName, verifiers.password());
            case PROTOCOL_DEFAULT -> dialect.isOpenGauss()
                    ? openGaussSha256(verifiers, dialect, random)
                    : new Md5Authenticator(userName, verifiers.md5Hash(), random);
        };
        return verifiers.usable() ? result : new RefusingAuthenticator(result, userName);
    }

    private static Authenticator openGaussSha256(PasswordVerifiers verifiers, ClientDialect dialect, RandomGenerator random) {
        return new OpenGaussSha256Authenticator(verifiers.openGauss(dialect), dialect == ClientDialect.OPENGAUSS_3_51, random);
    }
}
