package io.ashlar.frontend.tls;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The certificate the proxy makes for itself, and the files it reads and reads again: what the
 * clients are shown, what SCRAM-SHA-256-PLUS binds to, and what a changed file does (the watcher's
 * check is called directly, so no test waits for it).
 */
final class FrontendTlsTest {

    /** Longer than any test: the watcher thread never runs its check during one. */
    private static final long NEVER = 3_600_000;

    @TempDir
    Path dir;

    @Test
    void selfSignedCertificateIsAValidX509CertificateForTheLoopbackNames() throws Exception {
        SelfSignedCertificate made = SelfSignedCertificate.generate(List.of("localhost", "127.0.0.1", "::1", "10.1.2.3"));
        X509Certificate certificate = made.certificate();
        assertDoesNotThrow(() -> certificate.verify(certificate.getPublicKey()), "signed by its own key");
        assertDoesNotThrow(() -> certificate.checkValidity());
        assertEquals(3, certificate.getVersion());
        assertEquals("CN=localhost", certificate.getSubjectX500Principal().getName());
        assertEquals(certificate.getSubjectX500Principal(), certificate.getIssuerX500Principal());
        assertEquals(-1, certificate.getBasicConstraints(), "not a CA");
        List<String> names = new ArrayList<>();
        for (List<?> each : certificate.getSubjectAlternativeNames()) {
            names.add(each.get(0) + ":" + each.get(1));
        }
        assertEquals(List.of("2:localhost", "7:127.0.0.1", "7:0:0:0:0:0:0:0:1", "7:10.1.2.3"), names);
        assertEquals("SHA256withECDSA", certificate.getSigAlgName());
    }

    @Test
    void selfSignedTlsSaysSoAndBindsToItsCertificate() {
        try (FrontendTls tls = FrontendTls.selfSigned(List.of("localhost"), FrontendTls.DEFAULT_PROTOCOLS, List.of())) {
            assertTrue(tls.description().startsWith("a self-signed certificate generated at start (CN=localhost"),
                    tls.description());
            assertEquals(32, tls.identity().certificateHash().length, "SHA-256, the hash of ECDSA with SHA-256");
            assertTrue(tls.identity().context().isServer());
        }
    }

    @Test
    void certificateFilesAreLoadedAndLoadedAgainWhenTheyChange() throws Exception {
        SelfSignedCertificate first = SelfSignedCertificate.generate(List.of("localhost"));
        SelfSignedCertificate second = SelfSignedCertificate.generate(List.of("localhost"));
        Path cert = dir.resolve("server.crt");
        Path key = dir.resolve("server.key");
        write(cert, key, first);
        try (FrontendTls tls = FrontendTls.fromFiles(cert, key, FrontendTls.DEFAULT_PROTOCOLS, List.of(), NEVER)) {
            assertArrayEquals(sha256(first.certificate()), tls.identity().certificateHash());
            assertTrue(tls.description().startsWith("the certificate of " + cert), tls.description());
            FrontendTls.Identity before = tls.identity();
            assertFalse(tls.checkFiles(), "nothing changed");
            assertSame(before, tls.identity());

            write(cert, key, second);
            assertTrue(tls.checkFiles());
            assertArrayEquals(sha256(second.certificate()), tls.identity().certificateHash());

            // Half way through a renewal: the new certificate, the old key. New connections keep the pair that works.
            FrontendTls.Identity working = tls.identity();
            Files.writeString(cert, pem("CERTIFICATE", first.certificate().getEncoded()));
            assertFalse(tls.checkFiles());
            assertSame(working, tls.identity());
            Files.writeString(cert, "-----BEGIN CERTIFICATE-----\nMIIB");
            assertFalse(tls.checkFiles(), "a file cut short");
            assertSame(working, tls.identity());

            write(cert, key, first);
            assertTrue(tls.checkFiles(), "the renewal completed");
            assertArrayEquals(sha256(first.certificate()), tls.identity().certificateHash());
        }
    }

    @Test
    void settingsThatCannotWorkAreRefusedAtStart() throws Exception {
        SelfSignedCertificate first = SelfSignedCertificate.generate(List.of("localhost"));
        SelfSignedCertificate second = SelfSignedCertificate.generate(List.of("localhost"));
        Path cert = dir.resolve("server.crt");
        Path key = dir.resolve("server.key");
        write(cert, key, first);
        Files.writeString(key, pem("PRIVATE KEY", second.key().getEncoded()));
        assertEquals("proxy-frontend-ssl-key-file " + key + " is not the key of the certificate in proxy-frontend-ssl-cert-file "
                + cert, refusal(() -> FrontendTls.fromFiles(cert, key, FrontendTls.DEFAULT_PROTOCOLS, List.of(), NEVER)));
        assertEquals("proxy-frontend-ssl-cert-file " + dir.resolve("none.crt") + " does not exist",
                refusal(() -> FrontendTls.fromFiles(dir.resolve("none.crt"), key, FrontendTls.DEFAULT_PROTOCOLS, List.of(), NEVER)));
        Files.writeString(key, "-----BEGIN EC PRIVATE KEY-----\nAAAA\n-----END EC PRIVATE KEY-----\n");
        assertTrue(refusal(() -> FrontendTls.fromFiles(cert, key, FrontendTls.DEFAULT_PROTOCOLS, List.of(), NEVER))
                .contains("is an OpenSSL traditional (PKCS#1/SEC1) key"));
        assertTrue(refusal(() -> FrontendTls.selfSigned(List.of("localhost"), List.of("TLSv1.1"), List.of()))
                .startsWith("proxy-frontend-ssl-version TLSv1.1 is not supported"));
        assertTrue(refusal(() -> FrontendTls.selfSigned(List.of("localhost"), FrontendTls.DEFAULT_PROTOCOLS,
                List.of("TLS_NO_SUCH_CIPHER"))).contains("TLS_NO_SUCH_CIPHER"));
    }

    private static String refusal(org.junit.jupiter.api.function.Executable action) {
        return assertThrows(IllegalArgumentException.class, action).getMessage();
    }

    private static void write(Path cert, Path key, SelfSignedCertificate made) throws Exception {
        Files.writeString(cert, pem("CERTIFICATE", made.certificate().getEncoded()));
        Files.writeString(key, pem("PRIVATE KEY", made.key().getEncoded()));
    }

    private static String pem(String label, byte[] der) {
        return "-----BEGIN " + label + "-----\n" + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                .encodeToString(der) + "\n-----END " + label + "-----\n";
    }

    private static byte[] sha256(X509Certificate certificate) throws Exception {
        return MessageDigest.getInstance("SHA-256").digest(certificate.getEncoded());
    }
}
