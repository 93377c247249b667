package io.ashlar.bootstrap.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;

/**
 * ShardingSphere's {@code DATABASE_PERMITTED} privilege with {@code user-database-mappings}: a user
 * reaches the logical databases granted to it and no other, and is told nothing about those it was
 * not granted: one that exists and one that does not get the same 42501, PostgreSQL's answer to a
 * database without CONNECT privilege. Only after the password: a wrong one is 28P01 whatever the
 * database.
 */
final class DatabasePrivilegeTest {

    private static final String OTHER = "other_db";

    private static ProxiedPostgres server;

    @BeforeAll
    static void start() throws Exception {
        server = ProxiedPostgres.startWithServerYaml("""
                authority:
                  users:
                    - user: root
                      password: root
                    - user: app@%
                      password: app-secret
                    - user: nogrant
                      password: nogrant-secret
                  privilege:
                    type: DATABASE_PERMITTED
                    props:
                      user-database-mappings: root@%=it_db, root@%=other_db, app@=it_db, app@%=dropped_db
                """, OTHER);
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

    private static void assertLogsIn(String database, String user, String password) throws SQLException {
        try (Connection c = login(database, user, password); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT 1")) {
            assertTrue(rs.next());
        }
    }

    private static ServerErrorMessage refusal(String sqlState, String database, String user, String password) {
        PSQLException e = assertThrows(PSQLException.class, () -> login(database, user, password).close());
        assertEquals(sqlState, e.getSQLState(), () -> ResultDump.error(e));
        return e.getServerErrorMessage();
    }

    @Test
    void aUserReachesTheDatabasesGrantedToIt() throws SQLException {
        assertLogsIn(ProxiedPostgres.DATABASE, "app", "app-secret");
        assertLogsIn(ProxiedPostgres.DATABASE, "root", "root");
        assertLogsIn(OTHER, "root", "root");
    }

    @Test
    void aDatabaseNotGrantedIsRefusedAlikeWhetherItExistsOrNot() {
        ServerErrorMessage existing = refusal("42501", OTHER, "app", "app-secret");
        assertEquals("permission denied for database \"" + OTHER + "\"", existing.getMessage());
        assertEquals("User does not have CONNECT privilege.", existing.getDetail());
        assertEquals("FATAL", existing.getSeverity());
        ServerErrorMessage missing = refusal("42501", "no_such_db", "app", "app-secret");
        assertEquals("permission denied for database \"no_such_db\"", missing.getMessage());
        assertEquals(existing.getDetail(), missing.getDetail());
        refusal("42501", ProxiedPostgres.DATABASE, "nogrant", "nogrant-secret");
    }

    /** The grant names it already: saying it does not exist tells nothing new. Every user's grants are its own. */
    @Test
    void aGrantedDatabaseThatDoesNotExistIsStill3D000() {
        refusal("3D000", "dropped_db", "app", "app-secret");
        refusal("42501", "no_such_db", "root", "root");
    }

    @Test
    void thePasswordIsCheckedFirst() {
        refusal("28P01", OTHER, "app", "wrong");
        refusal("28P01", "no_such_db", "app", "wrong");
    }
}
