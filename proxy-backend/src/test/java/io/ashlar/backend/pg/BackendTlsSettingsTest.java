package io.ashlar.backend.pg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.handler.ssl.SslProvider;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.AlgorithmParameters;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.util.Base64;
import java.util.Map;
import javax.crypto.Cipher;
import javax.crypto.EncryptedPrivateKeyInfo;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.PBEKeySpec;
import javax.crypto.spec.PBEParameterSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How {@link BackendTls} reads a data source's settings as pgjdbc 42 reads them, and what it
 * refuses with which words (no server needed; TLS against PostgreSQL is BackendTlsTest).
 */
final class BackendTlsSettingsTest {

    @TempDir
    Path dir;

    private static BackendTls.Mode mode(Map<String, String> settings) {
        return BackendTls.of(settings, SslProvider.JDK, false).mode();
    }

    private static String refusal(Map<String, String> settings) {
        return assertThrows(IllegalArgumentException.class, () -> BackendTls.of(settings, SslProvider.JDK, true)).getMessage();
    }

    @Test
    void modesAsPgjdbcReadsThem() {
        assertEquals(BackendTls.Mode.PREFER, mode(Map.of()));
        assertEquals(BackendTls.Mode.VERIFY_FULL, mode(Map.of("ssl", "true")));
        assertEquals(BackendTls.Mode.VERIFY_FULL, mode(Map.of("ssl", "")));
        assertEquals(BackendTls.Mode.PREFER, mode(Map.of("ssl", "false")));
        assertEquals(BackendTls.Mode.REQUIRE, mode(Map.of("ssl", "true", "sslmode", "require")));
        assertEquals(BackendTls.Mode.VERIFY_CA, mode(Map.of("sslmode", "Verify-CA")));
        assertEquals(BackendTls.Mode.DISABLE, mode(Map.of("sslmode", "disable")));
        assertEquals(BackendTls.Mode.ALLOW, mode(Map.of("sslmode", "allow")));
        assertTrue(refusal(Map.of("sslmode", "on")).startsWith("invalid sslmode 'on'"));
        assertTrue(refusal(Map.of("sslmode", "require", "channelBinding", "sometimes")).startsWith("invalid channelBinding"));
    }

    @Test
    void refusesWhatItWouldOtherwiseIgnore() {
        assertTrue(refusal(Map.of("sslfactory", "org.postgresql.ssl.NonValidatingFactory")).contains("is sslmode=require"));
        assertTrue(refusal(Map.of("sslhostnameverifier", "x.Y")).startsWith("sslhostnameverifier is not supported"));
        assertTrue(refusal(Map.of("sslNegotiation", "direct")).startsWith("sslNegotiation=direct is not supported"));
    }

    @Test
    void aVerifyingModeNeedsItsRootCertificate() {
        Path missing = dir.resolve("root.crt");
        assertEquals("sslrootcert " + missing + " does not exist",
                refusal(Map.of("sslmode", "verify-ca", "sslrootcert", missing.toString())));
        // require does not read it, as pgjdbc does not
        assertEquals(BackendTls.Mode.REQUIRE, BackendTls.of(Map.of("sslmode", "require", "sslrootcert", missing.toString()),
                SslProvider.JDK, true).mode());
    }

    @Test
    void refusesOpenSslTraditionalKeysWithTheCommandThatConvertsThem() throws Exception {
        Path cert = certificate();
        Path key = dir.resolve("client.key");
        Files.writeString(key, "-----BEGIN RSA PRIVATE KEY-----\nMIIBOgIBAAJBAK\n-----END RSA PRIVATE KEY-----\n");
        String message = refusal(Map.of("sslmode", "require", "sslcert", cert.toString(), "sslkey", key.toString()));
        assertTrue(message.contains("PKCS#1/SEC1") && message.contains("openssl pkcs8 -topk8 -nocrypt -in " + key), message);
    }

    @Test
    void anEncryptedKeyNeedsTheRightPassword() throws Exception {
        Path cert = certificate();
        Path key = dir.resolve("client.pk8");
        Files.write(key, encrypted(KeyPairGenerator.getInstance("EC").generateKeyPair().getPrivate(), "right"));
        Map<String, String> settings = Map.of("sslmode", "require", "sslcert", cert.toString(), "sslkey", key.toString());
        assertTrue(refusal(settings).endsWith("is encrypted: give its password as sslpassword"), refusal(settings));
        Map<String, String> wrong = new java.util.HashMap<>(settings);
        wrong.put("sslpassword", "wrong");
        assertTrue(refusal(wrong).contains("cannot be decrypted with sslpassword"), refusal(wrong));
        PrivateKey read = PrivateKeys.read(key.toString(), "right");
        assertEquals("EC", read.getAlgorithm());
    }

    @Test
    void aPkcs12FileNeedsItsPassword() throws Exception {
        Path store = dir.resolve("client.p12");
        Files.write(store, new byte[] {0x30, 0x03, 0x02, 0x01, 0x03});
        String message = refusal(Map.of("sslmode", "require", "sslkey", store.toString()));
        assertTrue(message.startsWith("sslkey " + store + " cannot be read as PKCS#12 (no sslpassword given)"), message);
    }

    /** Any certificate file: these cases fail on the key before the certificate matters. */
    private Path certificate() throws Exception {
        // A self-signed certificate taken from the JDK's own trust store.
        java.security.KeyStore trusted = java.security.KeyStore.getInstance(java.security.KeyStore.getDefaultType());
        try (var in = Files.newInputStream(Path.of(System.getProperty("java.home"), "lib", "security", "cacerts"))) {
            trusted.load(in, null);
        }
        byte[] der = trusted.getCertificate(trusted.aliases().nextElement()).getEncoded();
        Path result = dir.resolve("client.crt");
        Files.writeString(result, "-----BEGIN CERTIFICATE-----\n" + Base64.getMimeEncoder().encodeToString(der)
                + "\n-----END CERTIFICATE-----\n", StandardCharsets.US_ASCII);
        return result;
    }

    private static byte[] encrypted(PrivateKey key, String password) throws Exception {
        String algorithm = "PBEWithHmacSHA256AndAES_256";
        PBEParameterSpec spec = new PBEParameterSpec(new byte[16], 1000, new IvParameterSpec(new byte[16]));
        Cipher cipher = Cipher.getInstance(algorithm);
        cipher.init(Cipher.ENCRYPT_MODE,
                SecretKeyFactory.getInstance(algorithm).generateSecret(new PBEKeySpec(password.toCharArray())), spec);
        byte[] bytes = cipher.doFinal(key.getEncoded());
        AlgorithmParameters parameters = AlgorithmParameters.getInstance("PBES2");
        parameters.init(cipher.getParameters().getEncoded());
        return new EncryptedPrivateKeyInfo(parameters, bytes).getEncoded();
    }
}
