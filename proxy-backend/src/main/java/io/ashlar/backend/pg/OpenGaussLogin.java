package io.ashlar.backend.pg;

import io.ashlar.protocol.auth.Crypto;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.HexFormat;

/**
 * The client side of openGauss's own password exchanges, answered byte for byte as openGauss's
 * JDBC driver answers them ({@code ConnectionFactoryImpl.doAuthentication}, {@code MD5Digest}):
 * <ul>
 * <li>SHA256 (request 10, password stored as SHA256 or plain): K = PBKDF2-HmacSHA1(password,
 *     salt, iterations, 32 bytes) (3.51 sends the iteration count, 3.50 implies 2048), ClientKey =
 *     HMAC-SHA256(K, "Client Key"), StoredKey = SHA256(ClientKey); the answer is the hex of
 *     {@code HMAC-SHA256(StoredKey, token) XOR ClientKey}.</li>
 * <li>SHA256 over an MD5-stored password (request 10, stored method 1): {@code "sha256" +
 *     hex(SHA256(hex(MD5(password + user)) + salt))}.</li>
 * <li>MD5_SHA256 (request 11: the password is stored as SHA256, pg_hba says md5): {@code "md5" +
 *     hex(MD5(salt + hex(ServerKey) + hex(StoredKey) + md5salt))}, the keys derived with 2048
 *     iterations and ServerKey with the driver's own literal "Sever Key".</li>
 * </ul>
 * None of these lets the client check that the server knows the password (protocol 3.50 and
 * 3.51 carry no server signature).
 *
 * @see io.ashlar.protocol.AuthenticationSHA256Password
 * @see <a href="https://gitee.com/opengauss/openGauss-connector-jdbc">openGauss JDBC driver</a>
 */
final class OpenGaussLogin {

    static final int AUTH_SHA256 = 10;
    static final int AUTH_MD5_SHA256 = 11;
    static final int AUTH_SM3 = 13;
    static final int STORED_PLAIN = 0;
    static final int STORED_MD5 = 1;
    static final int STORED_SHA256 = 2;
    /** The iteration count protocol 3.50 implies, and the driver's MD5_SHA256 uses. */
    static final int DEFAULT_ITERATIONS = 2048;
    static final int SALT_HEX_LENGTH = 64;
    static final int TOKEN_HEX_LENGTH = 8;

    private static final HexFormat HEX = HexFormat.of();

    private OpenGaussLogin() {
    }

    /** The answer to a SHA256 request: 64 lower-case hex chars. */
    static byte[] sha256(String password, String saltHex, String tokenHex, int iterations) {
        byte[] k = Crypto.pbkdf2("PBKDF2WithHmacSHA1", password, HEX.parseHex(saltHex), iterations);
        byte[] clientKey = Crypto.hmacSha256(k, "Client Key");
        byte[] storedKey = Crypto.sha256(clientKey);
        byte[] proof = Crypto.xor(Crypto.hmacSha256(storedKey, HEX.parseHex(tokenHex)), clientKey);
        return Crypto.hex(proof).getBytes(StandardCharsets.US_ASCII);
    }

    /** The answer to a SHA256 request for a password stored as MD5. */
    static byte[] sha256OverMd5(String user, String password, byte[] salt) {
        String md5 = Crypto.md5Hex(password.getBytes(StandardCharsets.UTF_8), user.getBytes(StandardCharsets.UTF_8));
        try {
            MessageDigest sha256 = MessageDigest.getInstance("SHA-256");
            sha256.update(md5.getBytes(StandardCharsets.US_ASCII));
            sha256.update(salt);
            return ("sha256" + Crypto.hex(sha256.digest())).getBytes(StandardCharsets.US_ASCII);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The answer to an MD5_SHA256 request. */
    static byte[] md5OverSha256(String password, String saltHex, byte[] md5Salt) {
        byte[] k = Crypto.pbkdf2("PBKDF2WithHmacSHA1", password, HEX.parseHex(saltHex), DEFAULT_ITERATIONS);
        byte[] serverKey = Crypto.hmacSha256(k, "Sever Key");
        byte[] storedKey = Crypto.sha256(Crypto.hmacSha256(k, "Client Key"));
        String stored = saltHex + Crypto.hex(serverKey) + Crypto.hex(storedKey);
        return ("md5" + Crypto.md5Hex(stored.getBytes(StandardCharsets.UTF_8), md5Salt)).getBytes(StandardCharsets.US_ASCII);
    }

    /** Whether a string is all hex digits, as the salt and token of a request must be. */
    static boolean isHex(String text) {
        for (int i = 0; i < text.length(); i++) {
            if (!HexFormat.isHexDigit(text.charAt(i))) {
                return false;
            }
        }
        return true;
    }
}
