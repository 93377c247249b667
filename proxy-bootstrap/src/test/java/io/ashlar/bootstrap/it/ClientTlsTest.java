package io.ashlar.bootstrap.it;

import static io.ashlar.bootstrap.it.RawConnection.startupPacket;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ashlar.bootstrap.TempTrees;
import io.netty.handler.ssl.OpenSsl;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.cert.X509Certificate;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * TLS from clients to the proxy, with certificates the test makes ({@link TestCertificates}: a CA, a
 * server certificate for 127.0.0.1 it signed, and another CA): pgjdbc, psql and the openGauss driver
 * with {@code sslmode=require} and {@code verify-full}, SCRAM-SHA-256-PLUS ({@code channelBinding=require},
 * {@code channel_binding=require}), TLS required for one user and for everyone, a self-signed certificate
 * when no file is named, a certificate replaced on disk while the proxy runs, and PostgreSQL's answers to
 * an SSLRequest with clear text behind it, or a second one inside TLS. The proxy with certificate files
 * runs OpenSSL (netty-tcnative's BoringSSL); the self-signed one the JDK's TLS. psycopg and asyncpg
 * are in src/test/python (test_tls.py).
 */
final class ClientTlsTest {

    private static final Path PSQL = Path.of("/usr/bin/psql");

    private static Path dir;
    private static TestCertificates certificates;
    /** Certificate files, an SCRAM user, an MD5 user, and a clear-text user that must come over TLS. */
    private static ProxiedPostgres files;
    /** No certificate file (a self-signed one made at start), the JDK's TLS, TLS required for every login. */
    private static ProxiedPostgres selfSigned;

    @BeforeAll
    static void start() throws Exception {
        assertTrue(OpenSsl.isAvailable(), () -> "netty-tcnative is not on the class path: " + OpenSsl.unavailabilityCause());
        dir = TempTrees.create("ashlar-client-tls");
        certificates = TestCertificates.create(dir);
        files = ProxiedPostgres.startWithServerYaml("""
                authority:
                  users:
                    - user: root
                      password: root
                      authenticationMethod: scram-sha-256
                    - user: md5_user
                      password: md5-secret
                      authenticationMethod: md5
                    - user: tls_user
                      password: tls-secret
                      authenticationMethod: password
                      sslRequired: true
                props:
                  proxy-frontend-ssl-enabled: true
                  proxy-frontend-ssl-cert-file: %s
                  proxy-frontend-ssl-key-file: %s
                """.formatted(certificates.serverCert, certificates.serverKey));
        String previous = System.getProperty("ashlar.frontendTlsProvider");
        System.setProperty("ashlar.frontendTlsProvider", "jdk");
        try {
            selfSigned = ProxiedPostgres.startWithServerYaml("""
                    authority:
                      users:
                        - user: root
                          password: root
                          authenticationMethod: scram-sha-256
                    props:
                      proxy-frontend-ssl-enabled: true
                      proxy-frontend-ssl-required: true
                    """);
        } finally {
            if (previous == null) {
                System.clearProperty("ashlar.frontendTlsProvider");
            } else {
                System.setProperty("ashlar.frontendTlsProvider", previous);
            }
        }
    }

    @AfterAll
    static void stop() throws Exception {
        for (ProxiedPostgres each : new ProxiedPostgres[] {files, selfSigned}) {
            if (each != null) {
                each.close();
            }
        }
    }

    private static Connection pgjdbc(ProxiedPostgres proxy, String user, String password, String parameters) throws SQLException {
        Properties properties = new Properties();
        properties.setProperty("user", user);
        properties.setProperty("password", password);
        properties.setProperty("connectTimeout", "10");
        return DriverManager.getConnection(proxy.proxyUrl(parameters), properties);
    }

    private static void assertWorks(Connection connection) throws SQLException {
        try (connection; Statement s = connection.createStatement(); ResultSet rs = s.executeQuery("SELECT 40 + 2")) {
            assertTrue(rs.next());
            assertEquals(42, rs.getInt(1));
        }
    }

    @Test
    void pgjdbcRequireAndVerifyFull() throws SQLException {
        assertWorks(pgjdbc(files, "md5_user", "md5-secret", "sslmode=require"));
        assertWorks(pgjdbc(files, "md5_user", "md5-secret", "sslmode=verify-full&sslrootcert=" + certificates.caCert));
        assertWorks(pgjdbc(files, "md5_user", "md5-secret", "sslmode=verify-ca&sslrootcert=" + certificates.caCert));
        SQLException otherCa = assertThrows(SQLException.class, () -> pgjdbc(files, "md5_user", "md5-secret",
                "sslmode=verify-full&sslrootcert=" + certificates.otherCaCert).close());
        assertEquals("08006", otherCa.getSQLState(), () -> ResultDump.error(otherCa));
    }

    /** Over TLS the proxy offers SCRAM-SHA-256-PLUS, and pgjdbc's channelBinding=require takes nothing less. */
    @Test
    void pgjdbcScramSha256PlusWithChannelBindingRequired() throws SQLException {
        assertWorks(pgjdbc(files, "root", "root", "sslmode=verify-full&sslrootcert=" + certificates.caCert
                + "&channelBinding=require"));
        assertWorks(pgjdbc(selfSigned, "root", "root", "sslmode=require&channelBinding=require"));
        SQLException wrong = assertThrows(SQLException.class, () -> pgjdbc(files, "root", "wrong",
                "sslmode=require&channelBinding=require").close());
        assertEquals("28P01", wrong.getSQLState(), () -> ResultDump.error(wrong));
    }

    @Test
    void psqlVerifyFullWithChannelBinding() throws Exception {
        Run run = psql("host=127.0.0.1 port=" + files.proxyPort() + " dbname=" + ProxiedPostgres.DATABASE
                + " user=root sslmode=verify-full sslrootcert=" + certificates.caCert + " channel_binding=require", "root",
                "\\conninfo", "SELECT 40 + 2");
        assertEquals(0, run.exitCode(), run.output());
        assertTrue(run.output().contains("SSL connection (protocol: TLSv1.3"), run.output());
        assertTrue(run.output().endsWith("42\n"), run.output());
        Run require = psql("host=127.0.0.1 port=" + files.proxyPort() + " dbname=" + ProxiedPostgres.DATABASE
                + " user=md5_user sslmode=require", "md5-secret", "SELECT 1");
        assertEquals(0, require.exitCode(), require.output());
    }

    @Test
    void psqlRefusesTheProxyWhenItsCaDidNotSignTheCertificate() throws Exception {
        Run run = psql("host=127.0.0.1 port=" + files.proxyPort() + " dbname=" + ProxiedPostgres.DATABASE
                + " user=md5_user sslmode=verify-full sslrootcert=" + certificates.otherCaCert, "md5-secret", "SELECT 1");
        assertEquals(2, run.exitCode(), run.output());
        assertTrue(run.output().contains("certificate verify failed"), run.output());
    }

    private record Run(int exitCode, String output) {
    }

    private static Run psql(String conninfo, String password, String... commands) throws IOException, InterruptedException {
        assertTrue(Files.isExecutable(PSQL), PSQL + " is not installed: the TLS tests need PostgreSQL's client (apt-get install"
                + " postgresql-client)");
        List<String> command = new ArrayList<>(List.of(PSQL.toString(), "-X", "-At"));
        for (String each : commands) {
            command.add("-c");
            command.add(each);
        }
        command.add(conninfo);
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().keySet().removeIf(key -> key.startsWith("PG"));
        builder.environment().put("PGPASSWORD", password);
        Process process = builder.start();
        String output;
        try (var in = process.getInputStream()) {
            output = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "psql did not finish");
        return new Run(process.exitValue(), output);
    }

    @Test
    void openGaussDriverRequireAndVerifyFull() throws Exception {
        Class.forName("org.opengauss.Driver");
        for (String parameters : List.of("sslmode=require", "sslmode=verify-full&sslrootcert=" + certificates.caCert)) {
            Properties properties = new Properties();
            properties.setProperty("user", "root");
            properties.setProperty("password", "root");
            properties.setProperty("connectTimeout", "10");
            assertWorks(DriverManager.getConnection(files.openGaussUrl(parameters), properties));
        }
        // It did check the certificate: one another CA signed is refused.
        Properties properties = new Properties();
        properties.setProperty("user", "root");
        properties.setProperty("password", "root");
        assertThrows(SQLException.class, () -> DriverManager.getConnection(files.openGaussUrl("sslmode=verify-full&sslrootcert="
                + certificates.otherCaCert), properties).close());
    }

    /** sslRequired on one user: no password of it crosses in the clear; other users still may. */
    @Test
    void aUserThatRequiresTlsIsRefusedInTheClearBeforeAnyPasswordIsAskedFor() throws Exception {
        SQLException clear = assertThrows(SQLException.class, () -> pgjdbc(files, "tls_user", "tls-secret", "sslmode=disable").close());
        assertEquals("28000", clear.getSQLState(), () -> ResultDump.error(clear));
        assertTrue(clear.getMessage().contains("no pg_hba.conf entry for host \"127.0.0.1\", user \"tls_user\", database \""
                + ProxiedPostgres.DATABASE + "\", no encryption"), clear.getMessage());
        assertWorks(pgjdbc(files, "tls_user", "tls-secret", "sslmode=require"));
        assertWorks(pgjdbc(files, "md5_user", "md5-secret", "sslmode=disable"));
        try (RawConnection raw = new RawConnection(files.proxyPort())) {
            raw.send(startupPacket("tls_user", ProxiedPostgres.DATABASE));
            List<RawConnection.Message> answer = raw.readUntilClosed();
            assertEquals(1, answer.size(), answer::toString);
            assertEquals('E', answer.get(0).type(), "no AuthenticationCleartextPassword, an error: " + answer);
            assertEquals("28000", answer.get(0).fields().get('C'));
        }
    }

    /** proxy-frontend-ssl-required: every login, of a known user or not, comes over TLS. */
    @Test
    void tlsRequiredForEveryone() throws Exception {
        for (String user : List.of("root", "nobody")) {
            SQLException clear = assertThrows(SQLException.class, () -> pgjdbc(selfSigned, user, "root", "sslmode=disable").close());
            assertEquals("28000", clear.getSQLState(), () -> ResultDump.error(clear));
        }
        assertWorks(pgjdbc(selfSigned, "root", "root", "sslmode=require"));
        SQLException unknown = assertThrows(SQLException.class, () -> pgjdbc(selfSigned, "nobody", "root", "sslmode=require").close());
        assertEquals("28P01", unknown.getSQLState(), () -> ResultDump.error(unknown));
    }

    /** ShardingSphere-Proxy's behaviour: TLS on and no certificate named gives one made at start, which encrypts and cannot be verified. */
    @Test
    void selfSignedCertificateEncryptsAndCannotBeVerified() throws Exception {
        try (RawConnection raw = RawConnection.overTls(selfSigned.proxyPort(), new byte[0])) {
            X509Certificate certificate = raw.peerCertificate();
            assertEquals("CN=localhost", certificate.getSubjectX500Principal().getName());
            certificate.verify(certificate.getPublicKey());
        }
        SQLException verify = assertThrows(SQLException.class, () -> pgjdbc(selfSigned, "root", "root",
                "sslmode=verify-full&sslrootcert=" + certificates.caCert).close());
        assertEquals("08006", verify.getSQLState(), () -> ResultDump.error(verify));
    }

    /**
     * Bytes sent in the clear behind an SSLRequest may come from a man in the middle: PostgreSQL (since
     * CVE-2021-23214) drops them and says so once TLS is up. Here they are a whole startup packet, which
     * must not log anyone in.
     */
    @Test
    void clearTextBehindAnSslRequestIsRefused() throws Exception {
        try (RawConnection raw = RawConnection.overTls(files.proxyPort(), startupPacket("md5_user", ProxiedPostgres.DATABASE))) {
            List<RawConnection.Message> answer = raw.readUntilClosed();
            assertEquals(1, answer.size(), answer::toString);
            Map<Character, String> error = answer.get(0).fields();
            assertEquals("FATAL", error.get('S'));
            assertEquals("08P01", error.get('C'));
            assertEquals("received unencrypted data after SSL request", error.get('M'));
        }
    }

    @Test
    void aSecondSslRequestOrAGssRequestInsideTlsIsAnUnsupportedProtocol() throws Exception {
        for (byte[] request : List.of(RawConnection.SSL_REQUEST, new byte[] {0, 0, 0, 8, 0x04, (byte) 0xd2, 0x16, 0x30})) {
            try (RawConnection raw = RawConnection.overTls(files.proxyPort(), new byte[0])) {
                raw.send(request);
                List<RawConnection.Message> answer = raw.readUntilClosed();
                assertEquals(1, answer.size(), answer::toString);
                assertEquals("0A000", answer.get(0).fields().get('C'));
                assertTrue(answer.get(0).fields().get('M').startsWith("unsupported frontend protocol 1234.56"), answer::toString);
            }
        }
    }

    /** libpq 17 sends its CancelRequest inside TLS when the connection had TLS: it cancels as one in the clear does. */
    @Test
    void cancelRequestInsideTls() throws Exception {
        try (RawConnection session = RawConnection.overTls(files.proxyPort(), new byte[0])) {
            List<RawConnection.Message> login = session.logIn("tls_user", ProxiedPostgres.DATABASE, "tls-secret");
            RawConnection.Message key = login.stream().filter(each -> each.type() == 'K').findFirst().orElseThrow();
            session.send(RawConnection.query("SELECT pg_sleep(30)"));
            Thread.sleep(300);
            try (RawConnection cancel = RawConnection.overTls(files.proxyPort(), new byte[0])) {
                cancel.send(RawConnection.concat(new byte[] {0, 0, 0, 16, 0x04, (byte) 0xd2, 0x16, 0x2e}, key.body()));
                assertEquals(List.of(), cancel.readUntilClosed(), "a CancelRequest gets no answer");
            }
            List<RawConnection.Message> answer = session.readUntilReady();
            RawConnection.Message error = answer.stream().filter(each -> each.type() == 'E').findFirst()
                    .orElseThrow(() -> new AssertionError("not cancelled: " + answer));
            assertEquals("57014", error.fields().get('C'));
        }
    }

    @Test
    void pgjdbcCancelsOnATlsConnection() throws Exception {
        try (Connection connection = pgjdbc(files, "md5_user", "md5-secret", "sslmode=require");
             Statement statement = connection.createStatement()) {
            Thread canceller = Thread.ofVirtual().start(() -> {
                try {
                    Thread.sleep(500);
                    statement.cancel();
                } catch (InterruptedException | SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            SQLException cancelled = assertThrows(SQLException.class, () -> statement.execute("SELECT pg_sleep(30)"));
            canceller.join();
            assertEquals("57014", cancelled.getSQLState(), () -> ResultDump.error(cancelled));
        }
    }

    /**
     * A certificate renewed on disk reaches new connections without a restart; connections open before keep
     * theirs. The proxy reads the files every 2 s: the test waits up to 30 s for the new certificate.
     */
    @Test
    void aCertificateReplacedOnDiskIsServedWithoutARestart() throws Exception {
        Path live = Files.createTempDirectory(dir, "live");
        Path cert = live.resolve("server.crt");
        Path key = live.resolve("server.key");
        Files.copy(certificates.serverCert, cert);
        Files.copy(certificates.serverKey, key);
        TestCertificates renewed = TestCertificates.create(Files.createTempDirectory(dir, "renewed"));
        try (ProxiedPostgres proxy = ProxiedPostgres.startWithServerYaml("""
                authority:
                  users:
                    - user: root
                      password: root
                props:
                  proxy-frontend-ssl-enabled: true
                  proxy-frontend-ssl-cert-file: %s
                  proxy-frontend-ssl-key-file: %s
                """.formatted(cert, key));
             Connection before = pgjdbc(proxy, "root", "root", "sslmode=verify-full&sslrootcert=" + certificates.caCert)) {
            X509Certificate original;
            try (RawConnection raw = RawConnection.overTls(proxy.proxyPort(), new byte[0])) {
                original = raw.peerCertificate();
            }
            // The new key first, then the new certificate, each replaced atomically as a renewal tool does.
            Path staged = live.resolve("staged");
            Files.copy(renewed.serverKey, staged);
            Files.move(staged, key, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            Files.copy(renewed.serverCert, staged);
            Files.move(staged, cert, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            X509Certificate served = original;
            while (served.equals(original) && System.nanoTime() < deadline) {
                Thread.sleep(200);
                try (RawConnection raw = RawConnection.overTls(proxy.proxyPort(), new byte[0])) {
                    served = raw.peerCertificate();
                }
            }
            assertEquals(java.security.cert.CertificateFactory.getInstance("X.509")
                    .generateCertificate(Files.newInputStream(renewed.serverCert)), served, "the renewed certificate within 30 s");
            assertWorks(pgjdbc(proxy, "root", "root", "sslmode=verify-full&sslrootcert=" + renewed.caCert));
            SQLException oldCa = assertThrows(SQLException.class, () -> pgjdbc(proxy, "root", "root",
                    "sslmode=verify-full&sslrootcert=" + certificates.caCert).close());
            assertEquals("08006", oldCa.getSQLState());
            assertWorks(before);
        }
    }

    /** With OpenSSL too (FrontendTlsTest checks the JDK's TLS), a cipher suite the engine does not know stops the start. */
    @Test
    void anUnknownCipherSuiteIsRefusedAtStart() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> io.ashlar.frontend.tls.FrontendTls
                .fromFiles(certificates.serverCert, certificates.serverKey, List.of("TLSv1.2", "TLSv1.3"),
                        List.of("TLS_NO_SUCH_CIPHER"), 3_600_000).close());
        assertTrue(e.getMessage().contains("TLS_NO_SUCH_CIPHER"), e.getMessage());
        io.ashlar.frontend.tls.FrontendTls.fromFiles(certificates.serverCert, certificates.serverKey, List.of("TLSv1.2", "TLSv1.3"),
                List.of("TLS_AES_256_GCM_SHA384", "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"), 3_600_000).close();
    }

    /** Without TLS set up, an SSLRequest is answered 'N' and the client carries on in the clear, as before. */
    @Test
    void withoutTlsTheAnswerIsStillN() throws Exception {
        try (ProxiedPostgres clear = ProxiedPostgres.start(); RawConnection raw = new RawConnection(clear.proxyPort())) {
            raw.send(RawConnection.SSL_REQUEST);
            assertEquals('N', raw.readByte());
            raw.logIn(ProxiedPostgres.PASSWORD_USER, ProxiedPostgres.DATABASE, ProxiedPostgres.password(ProxiedPostgres.PASSWORD_USER));
        }
    }
}
