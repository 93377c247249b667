package io.ashlar.bootstrap.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ashlar.backend.config.LogicalDatabaseConfig;
import io.ashlar.backend.config.ProxyUser;
import io.ashlar.bootstrap.ProxyRuntime;
import io.ashlar.bootstrap.config.ConfigurationException;
import io.ashlar.bootstrap.config.ModeConfig;
import io.ashlar.bootstrap.config.ProxyConfiguration;
import io.ashlar.bootstrap.config.ProxyConfigurationLoader;
import io.ashlar.bootstrap.config.ServerConfig;
import io.ashlar.bootstrap.config.ServerProps;
import io.netty.handler.ssl.OpenSsl;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * TLS from Ashlar to its data sources, against real PostgreSQL: one server with {@code ssl=on}
 * (certificates the test makes itself, {@link TestCertificates}) whose pg_hba.conf refuses clear
 * text to every user but one, and one without TLS. Each case is a pooled logical database with one
 * data source, as a configuration file names it, reached through the proxy with pgjdbc; what the
 * backend says about the proxy's connection ({@code pg_stat_ssl}) shows whether it is encrypted.
 * Every case runs twice: with OpenSSL (netty-tcnative's BoringSSL, the default where it is on the
 * class path) and with the JDK's TLS ({@code -Dashlar.backendTlsProvider=jdk}), whose failures
 * read differently inside.
 */
final class BackendTlsTest {

    private static final String APP_PASSWORD = "app-secret";
    private static final String MD5_PASSWORD = "md5-secret";
    private static final String PROVIDER_PROPERTY = "ashlar.backendTlsProvider";

    /**
     * First match wins. The test's own user {@code postgres} may always connect (the embedded
     * server's readiness check); {@code plain_only} may not use TLS; everyone else must.
     */
    private static final String PG_HBA = """
            host      all  postgres    all  trust
            hostssl   all  plain_only  all  reject
            host      all  plain_only  all  trust
            hostnossl all  all         all  reject
            hostssl   all  cert_user   all  cert
            hostssl   all  md5_user    all  md5
            hostssl   all  all         all  scram-sha-256
            """;

    private static Path dir;
    private static TestCertificates certificates;
    private static EmbeddedPostgres tlsServer;
    private static EmbeddedPostgres clearServer;
    private static final Map<String, ProxyRuntime> PROXIES = new LinkedHashMap<>();

    @BeforeAll
    static void start() throws Exception {
        assertTrue(OpenSsl.isAvailable(), () -> "netty-tcnative is not on the class path: " + OpenSsl.unavailabilityCause());
        dir = Files.createTempDirectory("ashlar-tls");
        certificates = TestCertificates.create(dir);
        tlsServer = EmbeddedPostgres.builder().setServerConfig("max_prepared_transactions", "64")
                .setServerConfig("ssl", "on")
                .setServerConfig("ssl_cert_file", certificates.serverCert.toString())
                .setServerConfig("ssl_key_file", certificates.serverKey.toString())
                .setServerConfig("ssl_ca_file", certificates.caCert.toString())
                .setDataDirectoryCustomizer(data -> {
                    try {
                        Files.writeString(data.toPath().resolve("pg_hba.conf"), PG_HBA);
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                })
                .start();
        try (Connection c = tlsServer.getPostgresDatabase().getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE USER app PASSWORD '" + APP_PASSWORD + "'");
            s.execute("SET password_encryption = 'md5'");
            s.execute("CREATE USER md5_user PASSWORD '" + MD5_PASSWORD + "'");
            s.execute("CREATE USER " + TestCertificates.CLIENT_USER);
            s.execute("CREATE USER plain_only");
        }
        clearServer = EmbeddedPostgres.builder().setServerConfig("max_prepared_transactions", "64").start();
        PROXIES.put("openssl", startProxy(null));
        PROXIES.put("jdk", startProxy("jdk"));
    }

    private static ProxyRuntime startProxy(String provider) throws InterruptedException {
        String tls = "127.0.0.1:" + tlsServer.getPort();
        String clear = "127.0.0.1:" + clearServer.getPort();
        List<LogicalDatabaseConfig> databases = new ArrayList<>();
        databases.add(database("require", tls, "app", "sslmode=require", ""));
        databases.add(database("verify_full", tls, "app", "sslmode=verify-full&sslrootcert=" + certificates.caCert, ""));
        databases.add(database("ssl_true", tls, "app", "ssl=true", "sslrootcert: " + certificates.caCert));
        databases.add(database("other_ca", tls, "app", "sslmode=verify-full&sslrootcert=" + certificates.otherCaCert, ""));
        databases.add(database("verify_ca_by_name", "localhost:" + tlsServer.getPort(), "app",
                "sslmode=verify-ca&sslrootcert=" + certificates.caCert, ""));
        databases.add(database("verify_full_by_name", "localhost:" + tlsServer.getPort(), "app",
                "sslmode=verify-full&sslrootcert=" + certificates.caCert, ""));
        databases.add(database("require_clear_server", clear, "postgres", "sslmode=require", ""));
        databases.add(database("prefer_clear_server", clear, "postgres", "", ""));
        databases.add(database("prefer_refused", tls, "plain_only", "sslmode=prefer", ""));
        databases.add(database("allow_refused", tls, "app", "sslmode=allow", ""));
        databases.add(database("disable_refused", tls, "app", "sslmode=disable", ""));
        databases.add(database("cert_pem", tls, TestCertificates.CLIENT_USER, "sslmode=verify-full",
                "sslrootcert: " + certificates.caCert + "\n      sslcert: " + certificates.clientCert
                        + "\n      sslkey: " + certificates.clientKeyPem));
        databases.add(database("cert_der", tls, TestCertificates.CLIENT_USER, "sslmode=require",
                "sslcert: " + certificates.clientCert + "\n      sslkey: " + certificates.clientKeyDer));
        databases.add(database("cert_encrypted", tls, TestCertificates.CLIENT_USER, "sslmode=require",
                "sslcert: " + certificates.clientCert + "\n      sslkey: " + certificates.clientKeyEncrypted
                        + "\n      sslpassword: " + TestCertificates.KEY_PASSWORD));
        databases.add(database("cert_pkcs12", tls, TestCertificates.CLIENT_USER, "sslmode=require",
                "sslkey: " + certificates.clientPkcs12 + "\n      sslpassword: " + TestCertificates.KEY_PASSWORD));
        databases.add(database("cert_missing", tls, TestCertificates.CLIENT_USER, "sslmode=require", "sslcert: \"\""));
        databases.add(database("binding_required", tls, "app", "sslmode=require&channelBinding=require", ""));
        databases.add(database("binding_md5", tls, "md5_user", "sslmode=require&channelBinding=require", ""));
        databases.add(database("md5_over_tls", tls, "md5_user", "sslmode=require", ""));
        ServerConfig server = new ServerConfig(ModeConfig.STANDALONE, List.of(new ProxyUser("root", "%", "root",
                ProxyUser.SCRAM_SHA_256)), ServerProps.DEFAULTS);
        String before = System.getProperty(PROVIDER_PROPERTY);
        try {
            if (provider != null) {
                System.setProperty(PROVIDER_PROPERTY, provider);
            }
            return ProxyRuntime.start(new ProxyConfiguration(server, databases), 0);
        } finally {
            if (before == null) {
                System.clearProperty(PROVIDER_PROPERTY);
            } else {
                System.setProperty(PROVIDER_PROPERTY, before);
            }
        }
    }

    private static LogicalDatabaseConfig database(String name, String hostAndPort, String user, String urlSettings, String props) {
        String password = switch (user) {
            case "app" -> APP_PASSWORD;
            case "md5_user" -> MD5_PASSWORD;
            default -> "";
        };
        String yaml = "databaseName: " + name + "\ndataSources:\n  ds_" + name + ":\n"
                + "    url: \"jdbc:postgresql://" + hostAndPort + "/postgres" + (urlSettings.isEmpty() ? "" : "?" + urlSettings) + "\"\n"
                + "    username: " + user + "\n    password: \"" + password + "\"\n"
                + "    connectionTimeoutMilliseconds: 10000\n"
                + (props.isEmpty() ? "" : "    props:\n      " + props + "\n");
        return ProxyConfigurationLoader.loadDatabase("config-" + name + ".yaml", yaml);
    }

    @AfterAll
    static void stop() throws IOException {
        PROXIES.values().forEach(ProxyRuntime::close);
        if (tlsServer != null) {
            tlsServer.close();
        }
        if (clearServer != null) {
            clearServer.close();
        }
        if (dir != null) {
            try (var files = Files.list(dir)) {
                for (Path each : files.toList()) {
                    Files.delete(each);
                }
            }
            Files.delete(dir);
        }
    }

    private static Connection connect(String provider, String database) throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + PROXIES.get(provider).port() + "/" + database,
                "root", "root");
    }

    /** What the backend says of the connection that runs the statement: {ssl, client_dn, user}. */
    private static String[] backendSsl(String provider, String database) throws SQLException {
        try (Connection c = connect(provider, database); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT ssl::text, coalesce(client_dn, ''), current_user FROM pg_stat_ssl"
                     + " WHERE pid = pg_backend_pid()")) {
            assertTrue(rs.next());
            return new String[] {rs.getString(1), rs.getString(2), rs.getString(3)};
        }
    }

    /** The error a statement on {@code database} gets, which must be 08006 naming the data source and the reason. */
    private static String failure(String provider, String database) {
        SQLException e = assertThrows(SQLException.class, () -> backendSsl(provider, database));
        assertEquals("08006", e.getSQLState(), e::getMessage);
        // Known down already (its health check tried it when the proxy started), or found so by this statement.
        assertTrue(e.getMessage().contains("data source ds_" + database + " is down: ")
                || e.getMessage().contains("could not connect to data source ds_" + database), e::getMessage);
        return e.getMessage();
    }

    @ParameterizedTest
    @ValueSource(strings = {"openssl", "jdk"})
    void requireEncrypts(String provider) throws SQLException {
        String[] ssl = backendSsl(provider, "require");
        assertEquals("true", ssl[0]);
        assertEquals("app", ssl[2]);
    }

    @ParameterizedTest
    @ValueSource(strings = {"openssl", "jdk"})
    void aLargeResultCrossesTheLinkWhole(String provider) throws SQLException {
        // many TLS records per read, and reads paused and resumed while pgjdbc takes its rows
        try (Connection c = connect(provider, "require"); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT i, repeat(md5(i::text), 8) FROM generate_series(1, 60000) i")) {
            long rows = 0;
            long sum = 0;
            while (rs.next()) {
                rows++;
                sum += rs.getInt(1);
                assertEquals(256, rs.getString(2).length());
            }
            assertEquals(60_000, rows);
            assertEquals(60_000L * 60_001 / 2, sum);
        }
    }

    @Test
    void aCancelReachesABackendThatRefusesClearText() throws Exception {
        // pgjdbc and libpq send CancelRequest in clear text, and PostgreSQL checks no pg_hba.conf rule for it
        try (Connection c = connect("openssl", "require"); Statement s = c.createStatement()) {
            Thread canceller = Thread.ofPlatform().start(() -> {
                try {
                    Thread.sleep(500);
                    s.cancel();
                } catch (InterruptedException | SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            SQLException e = assertThrows(SQLException.class, () -> s.execute("SELECT pg_sleep(60)"));
            canceller.join();
            assertEquals("57014", e.getSQLState(), e::getMessage);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"openssl", "jdk"})
    void verifyFullWithTheRightRootCertificate(String provider) throws SQLException {
        assertEquals("true", backendSsl(provider, "verify_full")[0]);
        assertEquals("true", backendSsl(provider, "ssl_true")[0]);
    }

    @ParameterizedTest
    @ValueSource(strings = {"openssl", "jdk"})
    void verifyFullWithAnotherRootCertificateFails(String provider) {
        String message = failure(provider, "other_ca");
        assertTrue(message.contains("the server's certificate is unknown") && message.contains(certificates.otherCaCert.toString()),
                message);
    }

    @ParameterizedTest
    @ValueSource(strings = {"openssl", "jdk"})
    void verifyFullChecksTheHostNameAndVerifyCaDoesNot(String provider) throws SQLException {
        String message = failure(provider, "verify_full_by_name");
        assertTrue(message.contains("does not name the host localhost"), message);
        assertEquals("true", backendSsl(provider, "verify_ca_by_name")[0]);
    }

    @ParameterizedTest
    @ValueSource(strings = {"openssl", "jdk"})
    void requireAgainstAServerWithoutTlsFails(String provider) {
        String message = failure(provider, "require_clear_server");
        assertTrue(message.contains("the server does not support SSL") && message.contains("sslmode=require"), message);
    }

    @Test
    void preferAgainstAServerWithoutTlsGoesOnInClearText() throws SQLException {
        assertEquals("false", backendSsl("openssl", "prefer_clear_server")[0]);
    }

    @Test
    void preferGoesOnInClearTextWhenTheServerRefusesTls() throws SQLException {
        assertEquals("false", backendSsl("openssl", "prefer_refused")[0]);
    }

    @Test
    void allowTurnsToTlsWhenTheServerRefusesClearText() throws SQLException {
        assertEquals("true", backendSsl("openssl", "allow_refused")[0]);
    }

    @Test
    void disableGetsTheServersRefusal() {
        String message = failure("openssl", "disable_refused");
        assertTrue(message.contains("pg_hba.conf rejects connection") && message.contains("28000"), message);
    }

    @ParameterizedTest
    @ValueSource(strings = {"openssl", "jdk"})
    void clientCertificateLogin(String provider) throws SQLException {
        for (String database : List.of("cert_pem", "cert_der", "cert_encrypted", "cert_pkcs12")) {
            String[] ssl = backendSsl(provider, database);
            assertEquals("true", ssl[0], database);
            assertEquals("/CN=" + TestCertificates.CLIENT_USER, ssl[1], database);
            assertEquals(TestCertificates.CLIENT_USER, ssl[2], database);
        }
        String message = failure(provider, "cert_missing");
        assertTrue(message.contains("connection requires a valid client certificate"), message);
    }

    @ParameterizedTest
    @ValueSource(strings = {"openssl", "jdk"})
    void channelBinding(String provider) throws SQLException {
        // The server checks the binding data (the hash of its own certificate): a wrong one fails the login.
        assertEquals("true", backendSsl(provider, "binding_required")[0]);
        String message = failure(provider, "binding_md5");
        assertTrue(message.contains("channelBinding=require, but the server asks for MD5"), message);
        assertEquals("true", backendSsl(provider, "md5_over_tls")[0]);
    }

    @Test
    void settingsThatCannotWorkAreRefusedAtLoad() {
        ConfigurationException mode = assertThrows(ConfigurationException.class,
                () -> database("bad_mode", "127.0.0.1:1", "app", "sslmode=verify", ""));
        assertTrue(mode.getMessage().contains("invalid sslmode 'verify'"), mode::getMessage);
        ConfigurationException factory = assertThrows(ConfigurationException.class,
                () -> database("bad_factory", "127.0.0.1:1", "app", "ssl=true&sslfactory=org.postgresql.ssl.NonValidatingFactory", ""));
        assertTrue(factory.getMessage().contains("sslfactory is not supported"), factory::getMessage);
        ConfigurationException binding = assertThrows(ConfigurationException.class,
                () -> database("bad_binding", "127.0.0.1:1", "app", "sslmode=disable&channelBinding=require", ""));
        assertTrue(binding.getMessage().contains("channelBinding=require needs TLS"), binding::getMessage);
    }

    @Test
    void aMissingRootCertificateStopsTheStart() {
        Path missing = dir.resolve("no-such-root.crt");
        ServerConfig server = new ServerConfig(ModeConfig.STANDALONE, List.of(new ProxyUser("root", "%", "root",
                ProxyUser.SCRAM_SHA_256)), ServerProps.DEFAULTS);
        LogicalDatabaseConfig config = database("missing_root", "127.0.0.1:" + tlsServer.getPort(), "app",
                "sslmode=verify-ca&sslrootcert=" + missing, "");
        ConfigurationException e = assertThrows(ConfigurationException.class,
                () -> ProxyRuntime.start(new ProxyConfiguration(server, List.of(config)), 0));
        assertTrue(e.getMessage().contains("data source ds_missing_root") && e.getMessage().contains("sslrootcert " + missing
                + " does not exist"), e::getMessage);
        assertFalse(Files.exists(missing));
    }
}
