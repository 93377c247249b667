package io.ashlar.frontend.auth;

import io.ashlar.protocol.auth.Crypto;
import io.ashlar.protocol.auth.SaslPrep;
import java.util.random.RandomGenerator;

/**
 * What a SCRAM-SHA-256 server stores instead of the password (RFC 5802 section 3, as PostgreSQL
 * keeps it in {@code pg_authid}): salt, iteration count, StoredKey and ServerKey.
 *
 * @see <a href="https://www.postgresql.org/docs/current/sasl-authentication.html#SASL-SCRAM-SHA-256">SCRAM-SHA-256 Authentication</a>
 */
record ScramSecret(byte[] salt, int iterations, byte[] storedKey, byte[] serverKey) {

    /** PostgreSQL's {@code SCRAM_SHA_256_DEFAULT_ITERATIONS}. */
    static final int DEFAULT_ITERATIONS = 4096;

    /** PostgreSQL's {@code SCRAM_DEFAULT_SALT_LEN}. */
    static final int SALT_LENGTH = 16;

    static ScramSecret derive(String password, RandomGenerator random) {
        byte[] salt = new byte[SALT_LENGTH];
        random.nextBytes(salt);
        return derive(password, salt, DEFAULT_ITERATIONS);
    }

    static ScramSecret derive(String password, byte[] salt, int iterations) {
        byte[] saltedPassword = Crypto.pbkdf2("PBKDF2WithHmacSHA256", SaslPrep.prepare(password), salt, iterations);
        byte[] clientKey = Crypto.hmacSha256(saltedPassword, "Client Key");
        byte[] serverKey = Crypto.hmacSha256(saltedPassword, "Server Key");
        return new ScramSecret(salt, iterations, Crypto.sha256(clientKey), serverKey);
    }
}
