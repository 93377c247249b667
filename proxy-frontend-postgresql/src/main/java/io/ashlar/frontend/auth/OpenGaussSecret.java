package io.ashlar.frontend.auth;

import io.ashlar.protocol.auth.Crypto;
import java.util.random.RandomGenerator;

/**
 * What openGauss's SHA256 method needs to check a client: the salt and iteration count sent in
 * the request, and StoredKey, where K = PBKDF2-HmacSHA1(password, salt, iterations, 32 bytes),
 * ClientKey = HMAC-SHA256(K, "Client Key"), StoredKey = SHA256(ClientKey) (openGauss JDBC's
 * {@code MD5Digest.RFC5802Algorithm}). Derived once per user and protocol version: PBKDF2 is
 * deliberately slow.
 */
record OpenGaussSecret(byte[] salt, int iterations, byte[] storedKey) {

    /** The iteration count protocol 3.50 implies (the request does not carry one). */
    static final int ITERATIONS_3_50 = 2048;

    /** The iteration count the proxy sends to 3.51 clients (openGauss's default). */
    static final int ITERATIONS_3_51 = 10000;

    static OpenGaussSecret derive(String password, int iterations, RandomGenerator random) {
        byte[] salt = new byte[32];
        random.nextBytes(salt);
        return derive(password, salt, iterations);
    }

    static OpenGaussSecret derive(String password, byte[] salt, int iterations) {
        byte[] k = Crypto.pbkdf2("PBKDF2WithHmacSHA1", password, salt, iterations);
        byte[] clientKey = Crypto.hmacSha256(k, "Client Key");
        return new OpenGaussSecret(salt, iterations, Crypto.sha256(clientKey));
    }
}
