package io.ashlar.bootstrap.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.Properties;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.postgresql.PGConnection;

/**
 * Logging in through the proxy with pgjdbc, for each authentication method a proxy user may have:
 * the right password lets the client in, a wrong one is refused with 28P01
 * ({@code invalid_password}), an unknown user too (after the same exchange), and an unknown logical
 * database with 3D000 ({@code invalid_catalog_name}).
 *
 * @see <a href="https://www.postgresql.org/docs/current/auth-password.html">PostgreSQL: Password Authentication</a>
 * @see <a href="https://www.postgresql.org/docs/current/sasl-authentication.html">PostgreSQL: SASL Authentication</a>
 */
final class LoginTest {

    private static ProxiedPostgres server;

    @BeforeAll
    static void start() throws Exception {
        server = ProxiedPostgres.start();
    }

    @AfterAll
    static void stop() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    private static Connection login(String database, String user, String password) throws SQLException {
        Properties properties = new Properties();
        properties.setProperty("user", user);
        properties.setProperty("password", password);
        properties.setProperty("connectTimeout", "10");
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + server.proxyPort() + "/" + database, properties);
    }

    private static void assertLoginFails(String sqlState, String database, String user, String password) {
        SQLException e = assertThrows(SQLException.class, () -> login(database, user, password).close());
        assertEquals(sqlState, e.getSQLState(), () -> ResultDump.error(e));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {ProxiedPostgres.SCRAM_USER, ProxiedPostgres.MD5_USER, ProxiedPostgres.PASSWORD_USER,
            ProxiedPostgres.DEFAULT_METHOD_USER})
    void rightPasswordLogsIn(String user) throws SQLException {
        try (Connection c = login(ProxiedPostgres.DATABASE, user, ProxiedPostgres.password(user));
             Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT 40 + 2")) {
            assertTrue(rs.next());
            assertEquals(42, rs.getInt(1));
            assertEquals(user, c.unwrap(PGConnection.class).getParameterStatus("session_authorization"));
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {ProxiedPostgres.SCRAM_USER, ProxiedPostgres.MD5_USER, ProxiedPostgres.PASSWORD_USER,
            ProxiedPostgres.DEFAULT_METHOD_USER})
    void wrongPasswordIsRefusedWith28P01(String user) {
        assertLoginFails("28P01", ProxiedPostgres.DATABASE, user, ProxiedPostgres.password(user) + "x");
        assertLoginFails("28P01", ProxiedPostgres.DATABASE, user, ProxiedPostgres.password(user).toUpperCase(Locale.ROOT));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {ProxiedPostgres.SCRAM_USER, ProxiedPostgres.MD5_USER, ProxiedPostgres.PASSWORD_USER,
            ProxiedPostgres.DEFAULT_METHOD_USER})
    void anotherUsersPasswordIsRefusedWith28P01(String user) {
        String other = user.equals(ProxiedPostgres.SCRAM_USER) ? ProxiedPostgres.MD5_USER : ProxiedPostgres.SCRAM_USER;
        assertLoginFails("28P01", ProxiedPostgres.DATABASE, user, ProxiedPostgres.password(other));
    }

    /**
     * The request each user gets after its StartupMessage: a user whose configuration names no method
     * gets AuthenticationMD5Password, as from ShardingSphere-Proxy, so that every PostgreSQL client can log in.
     */
    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({ProxiedPostgres.DEFAULT_METHOD_USER + ", 5", ProxiedPostgres.MD5_USER + ", 5",
            ProxiedPostgres.SCRAM_USER + ", 10", ProxiedPostgres.PASSWORD_USER + ", 3"})
    void eachUserIsAskedForItsMethod(String user, int authenticationCode) throws IOException {
        try (RawConnection raw = new RawConnection(server.proxyPort())) {
            raw.send(RawConnection.startupPacket(user, ProxiedPostgres.DATABASE));
            RawConnection.Message request = raw.read();
            assertEquals('R', request.type(), request::toString);
            assertEquals(authenticationCode, ByteBuffer.wrap(request.body()).getInt(), request::toString);
        }
    }

    /**
     * A user nobody configured goes through the exchange of users who name no method (MD5 here) and fails as
     * a wrong password does: nothing tells a client which users exist (PostgreSQL's mock authentication).
     */
    @Test
    void unknownUserGoesThroughTheExchangeAndIsRefusedWith28P01() throws IOException {
        assertLoginFails("28P01", ProxiedPostgres.DATABASE, "nobody", "root");
        assertLoginFails("28P01", "no_such_db", "nobody", "root");
        try (RawConnection raw = new RawConnection(server.proxyPort())) {
            raw.send(RawConnection.startupPacket("nobody", ProxiedPostgres.DATABASE));
            RawConnection.Message request = raw.read();
            assertEquals('R', request.type(), request::toString);
            assertEquals(5, ByteBuffer.wrap(request.body()).getInt(), "AuthenticationMD5Password, as " + ProxiedPostgres.DEFAULT_METHOD_USER);
        }
    }

    @Test
    void unknownDatabaseIsRefusedWith3D000() {
        assertLoginFails("3D000", "no_such_db", ProxiedPostgres.SCRAM_USER, ProxiedPostgres.password(ProxiedPostgres.SCRAM_USER));
    }

    @Test
    void backendDatabaseNameIsNotALogicalDatabase() {
        assertLoginFails("3D000", ProxiedPostgres.BACKEND_DATABASE, ProxiedPostgres.SCRAM_USER,
                ProxiedPostgres.password(ProxiedPostgres.SCRAM_USER));
    }

    @Test
    void failedLoginsDoNotDisturbALoggedInSession() throws SQLException {
        try (Connection c = login(ProxiedPostgres.DATABASE, ProxiedPostgres.SCRAM_USER, "root")) {
            for (int i = 0; i < 5; i++) {
                assertLoginFails("28P01", ProxiedPostgres.DATABASE, ProxiedPostgres.SCRAM_USER, "wrong" + i);
                try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT " + i)) {
                    assertTrue(rs.next());
                    assertEquals(i, rs.getInt(1));
                }
            }
        }
    }
}
