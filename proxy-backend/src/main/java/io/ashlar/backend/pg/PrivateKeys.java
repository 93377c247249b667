package io.ashlar.backend.pg;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.AlgorithmParameters;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.List;
import javax.crypto.Cipher;
import javax.crypto.EncryptedPrivateKeyInfo;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;

/**
 * The client key of {@code sslkey}, in the formats pgjdbc's key managers read: PKCS#8, as PEM
 * ({@code BEGIN PRIVATE KEY}) or DER (pgjdbc's default {@code postgresql.pk8}), and encrypted
 * PKCS#8 ({@code BEGIN ENCRYPTED PRIVATE KEY}, or DER) with {@code sslpassword}. libpq's usual
 * {@code BEGIN RSA PRIVATE KEY} / {@code BEGIN EC PRIVATE KEY} (PKCS#1, SEC1) files are refused
 * with the openssl command that converts them: the JDK reads neither. The frontend reads its
 * server key ({@code proxy-frontend-ssl-key-file}) with the same code.
 */
public final class PrivateKeys {

    /** The key algorithms a PKCS#8 key may be, tried in turn (the encoding names its own). */
    private static final List<String> ALGORITHMS = List.of("RSA", "EC", "Ed25519", "Ed448", "RSASSA-PSS", "DSA");

    private PrivateKeys() {
    }

    static PrivateKey read(String file, String password) {
        return read(file, password, "sslkey", "sslpassword");
    }

    /**
     * The private key in {@code file}; throws {@link IllegalArgumentException} naming {@code setting}
     * and the file when it cannot be read.
     *
     * @param password the password of an encrypted key, or null
     * @param setting the name of the setting that named the file, for messages
     * @param passwordSetting the name of the setting that gives the password, empty when there is none
     */
    public static PrivateKey read(String file, String password, String setting, String passwordSetting) {
        return parse(BackendTls.read(file, setting), file, password, setting, passwordSetting);
    }

    /** The private key in the bytes of {@code file}, as {@link #read(String, String, String, String)} reads it. */
    public static PrivateKey parse(byte[] bytes, String file, String password, String setting, String passwordSetting) {
        String text = new String(bytes, StandardCharsets.US_ASCII);
        if (text.contains("-----BEGIN ")) {
            List<byte[]> plain = BackendTls.pemBlocks(text, "PRIVATE KEY");
            if (!plain.isEmpty()) {
                return pkcs8(plain.getFirst(), file, setting);
            }
            List<byte[]> encrypted = BackendTls.pemBlocks(text, "ENCRYPTED PRIVATE KEY");
            if (!encrypted.isEmpty()) {
                return decrypt(encrypted.getFirst(), password, file, setting, passwordSetting);
            }
            if (text.contains("-----BEGIN RSA PRIVATE KEY-----") || text.contains("-----BEGIN EC PRIVATE KEY-----")
                    || text.contains("-----BEGIN DSA PRIVATE KEY-----")) {
                throw new IllegalArgumentException(setting + " " + file + " is an OpenSSL traditional (PKCS#1/SEC1) key, which"
                        + " Ashlar does not read: convert it to PKCS#8 with 'openssl pkcs8 -topk8 -nocrypt -in " + file
                        + " -out key.pk8.pem' (or -v2 aes-256-cbc and sslpassword to keep it encrypted)");
            }
            throw new IllegalArgumentException(setting + " " + file + " holds no PEM private key (BEGIN PRIVATE KEY or BEGIN"
                    + " ENCRYPTED PRIVATE KEY)");
        }
        PrivateKey result = tryPkcs8(bytes);
        return result != null ? result : decrypt(bytes, password, file, setting, passwordSetting);
    }

    private static PrivateKey pkcs8(byte[] der, String file, String setting) {
        PrivateKey result = tryPkcs8(der);
        if (result == null) {
            throw new IllegalArgumentException(setting + " " + file + " is not a PKCS#8 key of an algorithm the JDK knows");
        }
        return result;
    }

    private static PrivateKey tryPkcs8(byte[] der) {
        PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(der);
        for (String each : ALGORITHMS) {
            try {
                return KeyFactory.getInstance(each).generatePrivate(spec);
            } catch (GeneralSecurityException | IllegalArgumentException wrongAlgorithm) {
                // the next one
            }
        }
        return null;
    }

    private static PrivateKey decrypt(byte[] der, String password, String file, String setting, String passwordSetting) {
        EncryptedPrivateKeyInfo info;
        try {
            info = new EncryptedPrivateKeyInfo(der);
        } catch (IOException e) {
            throw new IllegalArgumentException(setting + " " + file + " is neither a PKCS#8 key nor an encrypted one", e);
        }
        if (password == null) {
            throw new IllegalArgumentException(setting + " " + file + (passwordSetting.isEmpty()
                    ? " is encrypted, and Ashlar reads it without a password: decrypt it with 'openssl pkcs8 -in " + file
                            + " -out key.pem'"
                    : " is encrypted: give its password as " + passwordSetting));
        }
        try {
            AlgorithmParameters parameters = info.getAlgParameters();
            // PBES2 keys name their cipher in the parameters (PBEWithHmacSHA256AndAES_256), not in the algorithm.
            String algorithm = parameters != null ? parameters.toString() : info.getAlgName();
            Cipher cipher = Cipher.getInstance(algorithm);
            cipher.init(Cipher.DECRYPT_MODE,
                    SecretKeyFactory.getInstance(algorithm).generateSecret(new PBEKeySpec(password.toCharArray())), parameters);
            return pkcs8(info.getKeySpec(cipher).getEncoded(), file, setting);
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException(setting + " " + file + " cannot be decrypted with " + passwordSetting + ": " + e.getMessage(), e);
        }
    }
}
