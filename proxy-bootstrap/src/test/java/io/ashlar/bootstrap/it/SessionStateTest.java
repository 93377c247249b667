package io.ashlar.bootstrap.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;

/**
 * What one session sets never reaches another: the pooled database here has a single backend
 * connection, so each session borrows exactly the connection the previous one gave back, and
 * whatever the previous one left on it would show. And a session's own settings behave as on
 * PostgreSQL: a login setting under its lower-case name can be changed, {@code set_config} is
 * reported with ParameterStatus like SET.
 *
 * @see <a href="https://www.postgresql.org/docs/current/sql-set.html">SET</a>
 * @see <a href="https://www.postgresql.org/docs/current/functions-admin.html#FUNCTIONS-ADMIN-SET">set_config</a>
 */
final class SessionStateTest {

    private static ProxiedPostgres server;

    @BeforeAll
    static void start() throws Exception {
        server = ProxiedPostgres.start(Map.of(), 1);
        try (Connection direct = server.direct(""); Statement s = direct.createStatement()) {
            s.execute("DROP ROLE IF EXISTS state_test_role");
            s.execute("CREATE ROLE state_test_role");
        }
    }

    @AfterAll
    static void stop() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    private static String one(Connection connection, String sql) throws SQLException {
        try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }

    private static void run(Connection connection, String sql) throws SQLException {
        try (Statement s = connection.createStatement()) {
            s.execute(sql);
        }
    }

    /** Runs {@code change} in one session, then checks that a new session sees the server's defaults. */
    private static void assertNotInherited(String change, String check, String expected) throws SQLException {
        try (Connection first = server.proxy("")) {
            run(first, change);
        }
        try (Connection second = server.proxy("")) {
            assertEquals(expected, one(second, check), () -> "after another session ran: " + change);
        }
    }

    @Test
    void setConfigInASelectDoesNotReachTheNextSession() throws SQLException {
        assertNotInherited("SELECT set_config('work_mem', '9MB', false)", "SHOW work_mem", "4MB");
    }

    @Test
    void setRoleDoesNotReachTheNextSession() throws SQLException {
        assertNotInherited("SET ROLE state_test_role", "SELECT current_user", ProxiedPostgres.BACKEND_USER);
    }

    @Test
    void setSessionAuthorizationDoesNotReachTheNextSession() throws SQLException {
        assertNotInherited("SET SESSION AUTHORIZATION state_test_role", "SELECT session_user", ProxiedPostgres.BACKEND_USER);
    }

    @Test
    void defaultReadOnlyDoesNotReachTheNextSession() throws SQLException {
        assertNotInherited("SET default_transaction_read_only TO on", "SHOW default_transaction_read_only", "off");
        assertNotInherited("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY", "SHOW default_transaction_read_only", "off");
    }

    @Test
    void procedureSettingsDoNotReachTheNextSession() throws SQLException {
        assertNotInherited("DO $$ BEGIN PERFORM set_config('search_path', 'pg_catalog', false); END $$",
                "SHOW search_path", "\"$user\", public");
    }

    @Test
    void sessionAdvisoryLockStaysWithItsSession() throws SQLException {
        try (Connection holder = server.proxy("")) {
            run(holder, "SELECT pg_advisory_lock(4711)");
            // The lock's connection stays with its session: the pool's only connection is taken,
            // so a second session cannot run at all while the first lives (and so cannot see it).
            assertEquals("t", one(holder, "SELECT pg_advisory_unlock(4711)"));
        }
        try (Connection next = server.proxy("")) {
            assertEquals("0", one(next, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'"));
        }
    }

    @Test
    void advisoryLockLeftHeldIsReleasedWhenItsSessionEnds() throws SQLException {
        try (Connection holder = server.proxy("")) {
            run(holder, "SELECT pg_advisory_lock(4712)");
        }
        try (Connection next = server.proxy("")) {
            assertEquals("0", one(next, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'"));
        }
    }

    @Test
    void loginSettingsUnderLowerCaseNamesCanBeChanged() throws SQLException {
        try (Connection c = server.proxy("options=-c%20timezone=Asia/Tokyo%20-c%20intervalstyle=iso_8601")) {
            assertEquals("Asia/Tokyo", one(c, "SHOW TimeZone"));
            run(c, "SET TimeZone TO 'UTC'");
            run(c, "SET IntervalStyle TO postgres");
            assertEquals("UTC", one(c, "SHOW timezone"));
            assertEquals("postgres", one(c, "SHOW intervalstyle"));
            run(c, "RESET timezone");
            assertEquals("Asia/Tokyo", one(c, "SHOW TimeZone"), "RESET returns to the login value");
        }
    }

    @Test
    void setConfigOfAReportedSettingIsReported() throws SQLException {
        try (Connection c = server.proxy("")) {
            run(c, "SELECT set_config('TimeZone', 'Europe/Paris', false)");
            assertEquals("Europe/Paris", c.unwrap(PGConnection.class).getParameterStatus("TimeZone"));
            c.setAutoCommit(false);
            run(c, "SET LOCAL TimeZone = 'America/New_York'");
            assertEquals("America/New_York", c.unwrap(PGConnection.class).getParameterStatus("TimeZone"));
            c.commit();
            assertEquals("Europe/Paris", c.unwrap(PGConnection.class).getParameterStatus("TimeZone"),
                    "SET LOCAL ends with its transaction, and the client is told");
            run(c, "SET TimeZone = 'Asia/Seoul'");
            c.rollback();
            assertEquals("Europe/Paris", c.unwrap(PGConnection.class).getParameterStatus("TimeZone"),
                    "a rolled-back SET is undone, and the client is told");
            assertEquals("Europe/Paris", one(c, "SHOW TimeZone"));
        }
    }
}
