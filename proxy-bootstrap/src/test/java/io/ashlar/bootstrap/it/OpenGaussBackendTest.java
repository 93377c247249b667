package io.ashlar.bootstrap.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ashlar.backend.config.LogicalDatabaseConfig;
import io.ashlar.backend.config.ProxyUser;
import io.ashlar.bootstrap.ProxyRuntime;
import io.ashlar.bootstrap.config.ModeConfig;
import io.ashlar.bootstrap.config.ProxyConfiguration;
import io.ashlar.bootstrap.config.ProxyConfigurationLoader;
import io.ashlar.bootstrap.config.ServerConfig;
import io.ashlar.bootstrap.config.ServerProps;
import io.ashlar.frontend.auth.LoginMethod;
import io.ashlar.protocol.ClientDialect;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Data sources of type openGauss ({@code jdbc:opengauss://}): Ashlar's backend connections log in
 * as openGauss's JDBC driver does, with protocol 3.51 (or 3.50) and openGauss's SHA256 exchange.
 * No openGauss server can run here; the server is a first Ashlar proxy (over embedded PostgreSQL),
 * whose openGauss side was tested against the real openGauss JDBC driver (OpenGaussDriverTest).
 * A second Ashlar has the first one as its data source, and pgjdbc runs statements through both;
 * the first proxy's login counts show its client was an openGauss client that logged in with
 * SHA256 (3.51 and 3.50), or with MD5 for a user configured so, and never with SCRAM.
 */
final class OpenGaussBackendTest {

    private static ProxiedPostgres first;
    private static ProxyRuntime second;

    @BeforeAll
    static void start() throws Exception {
        first = ProxiedPostgres.start();
        String url = "jdbc:opengauss://127.0.0.1:" + first.proxyPort() + "/" + ProxiedPostgres.DATABASE;
        List<LogicalDatabaseConfig> databases = new ArrayList<>();
        databases.add(database("og_351", url, ProxiedPostgres.SCRAM_USER, ""));
        databases.add(database("og_350", url, ProxiedPostgres.SCRAM_USER, "    props:\n      protocolVersion: 350\n"));
        databases.add(database("og_md5", url, ProxiedPostgres.MD5_USER, ""));
        databases.add(database("og_wrong", url + "?password=wrong", "", "    props:\n      user: root\n"));
        ServerConfig server = new ServerConfig(ModeConfig.STANDALONE, List.of(new ProxyUser("app", "%", "app", ProxyUser.SCRAM_SHA_256)),
                ServerProps.DEFAULTS);
        second = ProxyRuntime.start(new ProxyConfiguration(server, databases), 0);
    }

    private static LogicalDatabaseConfig database(String name, String url, String user, String extra) {
        String credentials = user.isEmpty() ? "" : "    username: " + user + "\n    password: \"" + ProxiedPostgres.password(user) + "\"\n";
        return ProxyConfigurationLoader.loadDatabase("config-" + name + ".yaml", "databaseName: " + name + "\ndataSources:\n"
                + "  og_0:\n    url: \"" + url + "\"\n" + credentials + extra);
    }

    @AfterAll
    static void stop() throws Exception {
        if (second != null) {
            second.close();
        }
        if (first != null) {
            first.close();
        }
    }

    private static Connection connect(String database) throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + second.port() + "/" + database, "app", "app");
    }

    private static long logins(ClientDialect dialect, LoginMethod method) {
        return first.logins(dialect, method);
    }

    @Test
    void sha256Over351RunsStatements() throws SQLException {
        long before = logins(ClientDialect.OPENGAUSS_3_51, LoginMethod.OPENGAUSS_SHA256);
        try (Connection c = connect("og_351"); Statement s = c.createStatement()) {
            try (ResultSet rs = s.executeQuery("SELECT current_user, 6 * 7")) {
                assertTrue(rs.next());
                assertEquals(ProxiedPostgres.BACKEND_USER, rs.getString(1)); // the first proxy's own backend user
                assertEquals(42, rs.getInt(2));
            }
            s.execute("CREATE TABLE og_t (id int PRIMARY KEY, name text)");
            c.setAutoCommit(false);
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO og_t VALUES (?, ?)")) {
                for (int i = 1; i <= 3; i++) {
                    ps.setInt(1, i);
                    ps.setString(2, "row " + i);
                    ps.executeUpdate();
                }
            }
            c.commit();
            try (PreparedStatement ps = c.prepareStatement("SELECT name FROM og_t WHERE id = ?")) {
                ps.setInt(1, 2);
                try (ResultSet rs = ps.executeQuery()) {
                    assertTrue(rs.next());
                    assertEquals("row 2", rs.getString(1));
                }
            }
            c.rollback();
            c.setAutoCommit(true);
            s.execute("DROP TABLE og_t");
        }
        assertTrue(logins(ClientDialect.OPENGAUSS_3_51, LoginMethod.OPENGAUSS_SHA256) > before);
        assertEquals(0, logins(ClientDialect.POSTGRESQL, LoginMethod.SCRAM_SHA_256));
        assertEquals(0, logins(ClientDialect.POSTGRESQL, LoginMethod.MD5));
    }

    @Test
    void sha256Over350() throws SQLException {
        long before = logins(ClientDialect.OPENGAUSS_3_50, LoginMethod.OPENGAUSS_SHA256);
        try (Connection c = connect("og_350"); Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT 1")) {
            assertTrue(rs.next());
        }
        assertTrue(logins(ClientDialect.OPENGAUSS_3_50, LoginMethod.OPENGAUSS_SHA256) > before);
    }

    @Test
    void md5ForAUserTheServerChecksWithMd5() throws SQLException {
        long before = logins(ClientDialect.OPENGAUSS_3_51, LoginMethod.MD5);
        try (Connection c = connect("og_md5"); Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT 1")) {
            assertTrue(rs.next());
        }
        assertTrue(logins(ClientDialect.OPENGAUSS_3_51, LoginMethod.MD5) > before);
    }

    @Test
    void aWrongPasswordNamesTheDataSourceAndTheServersReason() {
        // pgjdbc's first statement runs at connect: the backend connection is made for it
        SQLException e = assertThrows(SQLException.class, () -> {
            try (Connection c = connect("og_wrong"); Statement s = c.createStatement()) {
                s.executeQuery("SELECT 1");
            }
        });
        assertEquals("08006", e.getSQLState(), e::getMessage);
        assertTrue(e.getMessage().contains("data source og_0") && e.getMessage().contains("Invalid username/password,login denied."),
                e.getMessage());
    }
}
