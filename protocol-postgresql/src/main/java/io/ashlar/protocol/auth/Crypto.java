package io.ashlar.protocol.auth;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * The JDK primitives the password methods are built from. The algorithms are mandatory in every
 * JDK, so a {@link GeneralSecurityException} is a broken runtime and becomes an
 * {@link IllegalStateException}.
 */
public final class Crypto {

    private static final HexFormat HEX = HexFormat.of();

    private Crypto() {
    }

    public static byte[] hmacSha256(byte[] key, byte[] data) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac.doFinal(data);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    public static byte[] hmacSha256(byte[] key, String data) {
        return hmacSha256(key, data.getBytes(StandardCharsets.UTF_8));
    }

    public static byte[] sha256(byte[] data) {
        return digest("SHA-256", data);
    }

    /** Lower-case hex MD5 of the concatenated parts, as PostgreSQL's {@code pg_md5_hash}. */
    public static String md5Hex(byte[]... parts) {
        try {
            MessageDigest md5 = MessageDigest.getInstance("MD5");
            for (byte[] each : parts) {
                md5.update(each);
            }
            return HEX.formatHex(md5.digest());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /** PBKDF2 with the given HMAC ({@code PBKDF2WithHmacSHA256}, {@code PBKDF2WithHmacSHA1}), 32 bytes. */
    public static byte[] pbkdf2(String algorithm, String password, byte[] salt, int iterations) {
        try {
            PBEKeySpec spec = new PBEKeySpec(password.toCharArray(), salt, iterations, 256);
            return SecretKeyFactory.getInstance(algorithm).generateSecret(spec).getEncoded();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    public static byte[] xor(byte[] a, byte[] b) {
        byte[] result = new byte[a.length];
        for (int i = 0; i < a.length; i++) {
            result[i] = (byte) (a[i] ^ b[i]);
        }
        return result;
    }

    public static String hex(byte[] bytes) {
        return HEX.formatHex(bytes);
    }

    private static byte[] digest(String algorithm, byte[] data) {
        try {
            return MessageDigest.getInstance(algorithm).digest(data);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}
