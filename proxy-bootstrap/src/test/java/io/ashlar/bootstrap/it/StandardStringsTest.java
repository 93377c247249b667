package io.ashlar.bootstrap.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * String literals with backslashes. A sharded database's lexer reads literals as standard SQL does (a
 * backslash is a plain character), so it routes by what PostgreSQL reads only while the session's
 * {@code standard_conforming_strings} is on: turning it off is refused with 0A000 and undone (at login
 * too), where it was passed on and left the proxy and its shards reading the same text differently. A
 * pooled database relays the setting as PostgreSQL takes it. Values the proxy writes into SQL itself
 * (an INSERT ... SELECT it runs as a read and a multi-row INSERT) keep their backslashes and quotes.
 */
final class StandardStringsTest {

    private static final String TRICKY = "a\\b'c\\\\d\\'";

    private static ProxiedPostgres server;

    @BeforeAll
    static void start() throws Exception {
        server = ProxiedPostgres.startSharded(true);
    }

    @AfterAll
    static void stop() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void aShardedSessionKeepsStandardStrings() throws SQLException {
        try (Connection c = server.proxy(""); Statement s = c.createStatement()) {
            SQLException refused = assertThrows(SQLException.class, () -> s.execute("SET standard_conforming_strings = off"));
            assertEquals("0A000", refused.getSQLState());
            assertTrue(refused.getMessage().contains("standard_conforming_strings off is not supported"), refused.getMessage());
            assertEquals("on", single(s, "SHOW standard_conforming_strings"));
            // Read as standard SQL reads it, by the proxy and the shard alike.
            assertEquals("3", single(s, "SELECT length('a\\b')"));
            assertEquals("0", single(s, "SELECT count(*) FROM t_og WHERE id = -1 AND 'x\\' = 'x\\'"));
        }
    }

    @Test
    void aShardedLoginAskingForNonStandardStringsIsRefused() {
        SQLException refused = assertThrows(SQLException.class,
                () -> server.proxy("options=-c%20standard_conforming_strings=off").close());
        assertEquals("0A000", refused.getSQLState());
        assertTrue(refused.getMessage().contains("standard_conforming_strings"), refused.getMessage());
    }

    @Test
    void aPooledSessionRelaysTheSettingAsPostgresqlTakesIt() throws SQLException {
        String url = "jdbc:postgresql://127.0.0.1:" + server.proxyPort() + "/" + ProxiedPostgres.POOLED_DATABASE;
        try (Connection c = DriverManager.getConnection(url, ProxiedPostgres.SCRAM_USER, ProxiedPostgres.password(ProxiedPostgres.SCRAM_USER));
             Statement s = c.createStatement()) {
            s.execute("SET standard_conforming_strings = off");
            assertEquals("off", single(s, "SHOW standard_conforming_strings"));
            assertEquals("2", single(s, "SELECT length('a\\b')"), "\\b read as an escape, as PostgreSQL reads it");
        }
    }

    @Test
    void valuesTheProxyWritesIntoSqlKeepBackslashesAndQuotes() throws SQLException {
        try (Connection c = server.proxy("")) {
            try (PreparedStatement insert = c.prepareStatement("INSERT INTO t_og (id, name) VALUES (?, ?)")) {
                insert.setInt(1, 7001);
                insert.setString(2, TRICKY);
                insert.executeUpdate();
            }
            try (Statement s = c.createStatement()) {
                // The key changes, so the rows move between shards: read, then inserted as VALUES the proxy writes.
                assertEquals(1, s.executeUpdate("INSERT INTO t_og (id, name) SELECT id + 1, name FROM t_og WHERE id = 7001"));
                assertEquals(TRICKY, single(s, "SELECT name FROM t_og WHERE id = 7002"));
                s.execute("DELETE FROM t_og WHERE id IN (7001, 7002)");
            }
        }
    }

    private static String single(Statement s, String sql) throws SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            assertTrue(rs.next(), sql);
            return rs.getString(1);
        }
    }
}
