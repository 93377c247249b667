package io.ashlar.bootstrap.it;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.AlgorithmParameters;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.crypto.Cipher;
import javax.crypto.EncryptedPrivateKeyInfo;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;
import javax.crypto.spec.PBEParameterSpec;
import javax.crypto.spec.IvParameterSpec;

/**
 * Certificates made by the test itself with the JDK's own keytool (no library added): a CA, a
 * second CA that signed nothing the server shows, a server certificate for 127.0.0.1 (an IP
 * address only: "localhost" does not match it), and a client certificate for user
 * {@value #CLIENT_USER}, signed by the CA. Written as PEM files PostgreSQL and Ashlar read, and the
 * client key also in the other forms Ashlar reads (PKCS#8 DER, encrypted PKCS#8, PKCS#12). Public for
 * the driver suites' fixtures, which serve TLS to psycopg and asyncpg with them.
 */
public final class TestCertificates {

    public static final String CLIENT_USER = "cert_user";
    /** The password of the encrypted client key and of the PKCS#12 file. */
    static final String KEY_PASSWORD = "key-secret";

    private static final String STORE_PASSWORD = "changeit";

    public final Path caCert;
    public final Path otherCaCert;
    public final Path serverCert;
    public final Path serverKey;
    public final Path clientCert;
    public final Path clientKeyPem;
    public final Path clientKeyDer;
    public final Path clientKeyEncrypted;
    public final Path clientPkcs12;

    private TestCertificates(Path dir) {
        caCert = dir.resolve("ca.crt");
        otherCaCert = dir.resolve("other-ca.crt");
        serverCert = dir.resolve("server.crt");
        serverKey = dir.resolve("server.key");
        clientCert = dir.resolve("client.crt");
        clientKeyPem = dir.resolve("client.key");
        clientKeyDer = dir.resolve("client.pk8");
        clientKeyEncrypted = dir.resolve("client-encrypted.key");
        clientPkcs12 = dir.resolve("client.p12");
    }

    public static TestCertificates create(Path dir) throws IOException, InterruptedException, GeneralSecurityException {
        TestCertificates result = new TestCertificates(dir);
        Path store = dir.resolve("all.p12");
        keytool(store, "ca", "CN=Ashlar Test CA", "-ext", "bc:c");
        keytool(store, "other_ca", "CN=Another CA", "-ext", "bc:c");
        keytool(store, "server", "CN=127.0.0.1", "-ext", "SAN=ip:127.0.0.1", "-signer", "ca");
        keytool(store, "client", "CN=" + CLIENT_USER, "-signer", "ca");
        KeyStore keys = KeyStore.getInstance("PKCS12");
        try (var in = Files.newInputStream(store)) {
            keys.load(in, STORE_PASSWORD.toCharArray());
        }
        writePem(result.caCert, "CERTIFICATE", keys.getCertificate("ca").getEncoded());
        writePem(result.otherCaCert, "CERTIFICATE", keys.getCertificate("other_ca").getEncoded());
        writePem(result.serverCert, "CERTIFICATE", keys.getCertificate("server").getEncoded());
        PrivateKey serverKey = (PrivateKey) keys.getKey("server", STORE_PASSWORD.toCharArray());
        writePem(result.serverKey, "PRIVATE KEY", serverKey.getEncoded());
        // PostgreSQL refuses a key file others may read.
        Files.setPosixFilePermissions(result.serverKey, PosixFilePermissions.fromString("rw-------"));
        writePem(result.clientCert, "CERTIFICATE", keys.getCertificate("client").getEncoded());
        PrivateKey clientKey = (PrivateKey) keys.getKey("client", STORE_PASSWORD.toCharArray());
        writePem(result.clientKeyPem, "PRIVATE KEY", clientKey.getEncoded());
        Files.write(result.clientKeyDer, clientKey.getEncoded());
        writePem(result.clientKeyEncrypted, "ENCRYPTED PRIVATE KEY", encrypt(clientKey.getEncoded()));
        KeyStore client = KeyStore.getInstance("PKCS12");
        client.load(null, null);
        Certificate[] chain = keys.getCertificateChain("client");
        client.setKeyEntry("client", clientKey, KEY_PASSWORD.toCharArray(), chain);
        try (OutputStream out = Files.newOutputStream(result.clientPkcs12)) {
            client.store(out, KEY_PASSWORD.toCharArray());
        }
        return result;
    }

    private static void keytool(Path store, String alias, String subject, String... extra)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair", "-alias", alias, "-keyalg", "EC", "-groupname", "secp256r1", "-sigalg", "SHA256withECDSA",
                "-dname", subject, "-validity", "3", "-keystore", store.toString(), "-storetype", "PKCS12",
                "-storepass", STORE_PASSWORD, "-keypass", STORE_PASSWORD));
        command.addAll(List.of(extra));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
            throw new IllegalStateException("keytool failed: " + command + "\n" + output);
        }
    }

    private static void writePem(Path file, String label, byte[] der) throws IOException {
        String body = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der);
        Files.writeString(file, "-----BEGIN " + label + "-----\n" + body + "\n-----END " + label + "-----\n");
    }

    /** PKCS#8 encrypted as {@code openssl pkcs8 -topk8 -v2 aes-256-cbc} does (PBES2, PBKDF2-HmacSHA256, AES-256). */
    private static byte[] encrypt(byte[] pkcs8) throws GeneralSecurityException, IOException {
        String algorithm = "PBEWithHmacSHA256AndAES_256";
        byte[] salt = new byte[16];
        byte[] iv = new byte[16];
        new java.security.SecureRandom().nextBytes(salt);
        new java.security.SecureRandom().nextBytes(iv);
        PBEParameterSpec spec = new PBEParameterSpec(salt, 10_000, new IvParameterSpec(iv));
        Cipher cipher = Cipher.getInstance(algorithm);
        cipher.init(Cipher.ENCRYPT_MODE,
                SecretKeyFactory.getInstance(algorithm).generateSecret(new PBEKeySpec(KEY_PASSWORD.toCharArray())), spec);
        byte[] encrypted = cipher.doFinal(pkcs8);
        // Named PBES2 in the file, as openssl writes it (the JDK has no object identifier for the long name).
        AlgorithmParameters parameters = AlgorithmParameters.getInstance("PBES2");
        parameters.init(cipher.getParameters().getEncoded());
        return new EncryptedPrivateKeyInfo(parameters, encrypted).getEncoded();
    }
}
