package io.ashlar.bootstrap.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * CREATE FUNCTION and CREATE PROCEDURE on a sharded database whose bodies read a single table (on the default data
 * source, ds_0, only). Found running a Flyway repeatable migration: the CREATE went to every data source, and ds_1,
 * which has no such table, checked the body (check_function_bodies) and failed the statement with 42P01.
 */
final class ShardedRoutineBodyTest {

    private static ProxiedPostgres server;

    @BeforeAll
    static void start() throws Exception {
        server = ProxiedPostgres.startSharded();
        try (Connection c = server.proxy(""); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS app_user (id bigserial PRIMARY KEY, email text)");
            s.execute("INSERT INTO app_user (email) VALUES ('a@example.org'), ('b@example.org')");
            s.execute("INSERT INTO t_og (id, name) VALUES (0, 'on ds_0'), (1, 'on ds_1')");
        }
    }

    @AfterAll
    static void stop() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "preferQueryMode=simple"})
    void aFunctionReadingASingleTableIsCreatedOnEveryDataSource(String mode) throws Exception {
        String name = "user_count" + (mode.isEmpty() ? "" : "_simple");
        try (Connection c = server.proxy(mode); Statement s = c.createStatement()) {
            s.execute("CREATE OR REPLACE FUNCTION " + name + "() RETURNS bigint LANGUAGE sql AS $$ SELECT count(*) FROM app_user $$");
            try (ResultSet rs = s.executeQuery("SELECT " + name + "()")) {
                assertTrue(rs.next());
                assertEquals(2, rs.getLong(1));
            }
            // Replaced, as a repeatable migration does when its checksum changed.
            s.execute("CREATE OR REPLACE FUNCTION " + name + "() RETURNS bigint LANGUAGE sql AS $$ SELECT count(*) + 0 FROM app_user $$");
            assertDefinedOn(name, true, true);
            assertBodiesCheckedOnEveryConnection(s);
            s.execute("DROP FUNCTION " + name + "()");
            assertDefinedOn(name, false, false);
        }
    }

    @Test
    void aProcedureReadingASingleTableIsCreatedOnEveryDataSource() throws Exception {
        try (Connection c = server.proxy(""); Statement s = c.createStatement()) {
            s.execute("CREATE PROCEDURE add_user(e text) LANGUAGE sql AS $$ INSERT INTO app_user (email) VALUES (e) $$");
            try {
                assertDefinedOn("add_user", true, true);
                s.execute("CALL add_user('c@example.org')");
                try (ResultSet rs = s.executeQuery("SELECT count(*) FROM app_user WHERE email = 'c@example.org'")) {
                    assertTrue(rs.next());
                    assertEquals(1, rs.getLong(1));
                }
            } finally {
                s.execute("DELETE FROM app_user WHERE email = 'c@example.org'");
                s.execute("DROP PROCEDURE IF EXISTS add_user(text)");
            }
        }
    }

    /** In the client's block the CREATE joins its transaction; the block's later statements still check bodies. */
    @Test
    void aFunctionCreatedInABlockIsCreatedEverywhereAtCommit() throws Exception {
        try (Connection c = server.proxy(""); Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            s.execute("INSERT INTO t_og (id, name) VALUES (40, 'x'), (41, 'y')");
            s.execute("CREATE FUNCTION user_emails() RETURNS SETOF text LANGUAGE sql AS $$ SELECT email FROM app_user $$");
            SQLException wrong = assertThrows(SQLException.class,
                    () -> s.execute("CREATE FUNCTION wrong_in_block() RETURNS bigint LANGUAGE sql AS $$ SELECT count(*) FROM no_such_table $$"));
            assertEquals("42P01", wrong.getSQLState(), wrong.getMessage());
            c.rollback();
            assertDefinedOn("user_emails", false, false);
            s.execute("CREATE FUNCTION user_emails() RETURNS SETOF text LANGUAGE sql AS $$ SELECT email FROM app_user $$");
            s.execute("INSERT INTO t_og (id, name) VALUES (40, 'x'), (41, 'y')");
            c.commit();
            c.setAutoCommit(true);
            try {
                assertDefinedOn("user_emails", true, true);
            } finally {
                s.execute("DROP FUNCTION user_emails()");
                s.execute("DELETE FROM t_og WHERE id IN (40, 41)");
            }
        }
    }

    /**
     * A Flyway migration: the table and the function over it in one transaction (the table not committed yet on the
     * default data source, which checks the body), and the same as one query string.
     */
    @Test
    void aTableAndAFunctionOverItInOneMigration() throws Exception {
        try (Connection c = server.proxy(""); Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            s.execute("CREATE TABLE app_role (id bigserial PRIMARY KEY, name text)");
            s.execute("CREATE OR REPLACE FUNCTION role_count() RETURNS bigint LANGUAGE sql AS $$ SELECT count(*) FROM app_role $$");
            c.commit();
            c.setAutoCommit(true);
            try (Connection simple = server.proxy("preferQueryMode=simple"); Statement t = simple.createStatement()) {
                t.execute("CREATE TABLE app_group (id bigserial PRIMARY KEY, name text);"
                        + " CREATE FUNCTION group_count() RETURNS bigint LANGUAGE sql AS $$ SELECT count(*) FROM app_group $$");
            }
            try {
                assertDefinedOn("role_count", true, true);
                assertDefinedOn("group_count", true, true);
                try (ResultSet rs = s.executeQuery("SELECT role_count() + group_count()")) {
                    assertTrue(rs.next());
                    assertEquals(0, rs.getLong(1));
                }
            } finally {
                s.execute("DROP FUNCTION IF EXISTS role_count()");
                s.execute("DROP FUNCTION IF EXISTS group_count()");
                s.execute("DROP TABLE IF EXISTS app_role");
                s.execute("DROP TABLE IF EXISTS app_group");
            }
        }
    }

    /** A body PostgreSQL finds wrong fails once, with PostgreSQL's error, and is made nowhere. */
    @Test
    void aWrongBodyFailsWithPostgresqlsErrorAndIsCreatedNowhere() throws Exception {
        try (Connection c = server.proxy(""); Statement s = c.createStatement()) {
            SQLException missing = assertThrows(SQLException.class,
                    () -> s.execute("CREATE OR REPLACE FUNCTION wrong_count() RETURNS bigint LANGUAGE sql AS $$ SELECT count(*) FROM no_such_table $$"));
            assertEquals("42P01", missing.getSQLState(), missing.getMessage());
            assertTrue(missing.getMessage().contains("relation \"no_such_table\" does not exist"), missing.getMessage());
            SQLException column = assertThrows(SQLException.class,
                    () -> s.execute("CREATE FUNCTION wrong_column() RETURNS bigint LANGUAGE sql AS $$ SELECT count(nosuch) FROM app_user $$"));
            assertEquals("42703", column.getSQLState(), column.getMessage());
            assertDefinedOn("wrong_count", false, false);
            assertDefinedOn("wrong_column", false, false);
        }
    }

    /** A body that is fine everywhere is made as before; so is one whose tables are everywhere, in BEGIN ATOMIC. */
    @Test
    void aBodyFineEverywhereIsCreatedEverywhere() throws Exception {
        try (Connection c = server.proxy(""); Statement s = c.createStatement()) {
            s.execute("CREATE FUNCTION add_one(x int) RETURNS int LANGUAGE sql BEGIN ATOMIC SELECT x + 1; END");
            s.execute("CREATE FUNCTION add_two(x int) RETURNS int LANGUAGE plpgsql AS $$ BEGIN RETURN x + 2; END $$");
            try {
                assertDefinedOn("add_one", true, true);
                assertDefinedOn("add_two", true, true);
                try (ResultSet rs = s.executeQuery("SELECT add_one(1), add_two(1)")) {
                    assertTrue(rs.next());
                    assertEquals(2, rs.getInt(1));
                    assertEquals(3, rs.getInt(2));
                }
            } finally {
                s.execute("DROP FUNCTION IF EXISTS add_one(int)");
                s.execute("DROP FUNCTION IF EXISTS add_two(int)");
            }
        }
    }

    /**
     * A SQL-standard body (BEGIN ATOMIC, RETURN) is parsed where it is created, whatever check_function_bodies says:
     * ds_1, which has no app_user, cannot hold it. Refused by name, with the way out, and made nowhere.
     */
    @ParameterizedTest
    @ValueSource(strings = {
        "CREATE FUNCTION atomic_count() RETURNS bigint LANGUAGE sql BEGIN ATOMIC SELECT count(*) FROM app_user; END",
        "CREATE OR REPLACE FUNCTION atomic_count() RETURNS bigint LANGUAGE sql RETURN (SELECT count(*) FROM app_user)"})
    void aStandardBodyReadingASingleTableIsRefusedByName(String sql) throws Exception {
        try (Connection c = server.proxy(""); Statement s = c.createStatement()) {
            SQLException refused = assertThrows(SQLException.class, () -> s.execute(sql));
            assertEquals("0A000", refused.getSQLState(), refused.getMessage());
            assertTrue(refused.getMessage().contains("atomic_count"), refused.getMessage());
            assertTrue(refused.getMessage().contains("relation \"app_user\" does not exist"), refused.getMessage());
            assertTrue(refused.getMessage().contains("AS $$"), refused.getMessage());
            assertDefinedOn("atomic_count", false, false);
        }
    }

    /** A body reading a sharded table: its logical name is no relation on any data source. */
    @Test
    void aSqlBodyReadingAShardedTableIsRefusedByName() throws Exception {
        try (Connection c = server.proxy(""); Statement s = c.createStatement()) {
            SQLException refused = assertThrows(SQLException.class,
                    () -> s.execute("CREATE FUNCTION og_count() RETURNS bigint LANGUAGE sql AS $$ SELECT count(*) FROM t_og $$"));
            assertEquals("0A000", refused.getSQLState(), refused.getMessage());
            assertTrue(refused.getMessage().contains("og_count"), refused.getMessage());
            assertTrue(refused.getMessage().contains("sharded table t_og"), refused.getMessage());
            assertDefinedOn("og_count", false, false);
        }
    }

    /** A body that says "concurrently" is still one CREATE in one transaction over the data sources. */
    @Test
    void aBodyThatSaysConcurrentlyIsStillCheckedOnce() throws Exception {
        try (Connection c = server.proxy(""); Statement s = c.createStatement()) {
            s.execute("CREATE FUNCTION refresh_users() RETURNS bigint LANGUAGE sql AS"
                    + " $$ SELECT count(*) FROM app_user WHERE email <> 'refreshed concurrently' $$");
            try {
                assertDefinedOn("refresh_users", true, true);
            } finally {
                s.execute("DROP FUNCTION refresh_users()");
            }
        }
    }

    /** PREVIEW shows the data sources that do not check the body, and the statement that tells them so. */
    @Test
    void previewShowsWhereTheBodyIsNotChecked() throws Exception {
        String create = "CREATE FUNCTION user_count_preview() RETURNS bigint LANGUAGE sql AS $$ SELECT count(*) FROM app_user $$";
        try (Connection c = server.proxy("preferQueryMode=simple"); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("PREVIEW " + create)) {
            java.util.List<String> rows = new java.util.ArrayList<>();
            while (rs.next()) {
                rows.add(rs.getString(1) + "|" + rs.getString(2));
            }
            assertEquals(java.util.List.of("ds_0|" + create, "ds_1|SET LOCAL check_function_bodies = off; " + create), rows);
        }
        assertDefinedOn("user_count_preview", false, false);
    }

    private static void assertDefinedOn(String function, boolean ds0, boolean ds1) throws SQLException {
        boolean[] expected = {ds0, ds1};
        String[] dataSources = {"ds_0", "ds_1"};
        for (int i = 0; i < 2; i++) {
            try (Connection shard = server.backend(dataSources[i]); Statement direct = shard.createStatement();
                    ResultSet rs = direct.executeQuery("SELECT count(*) FROM pg_proc WHERE proname = '" + function + "'")) {
                assertTrue(rs.next());
                assertEquals(expected[i] ? 1 : 0, rs.getInt(1), function + " on " + dataSources[i]);
            }
        }
    }

    /** check_function_bodies as the next statements on each data source see it: on, as the connections were. */
    private static void assertBodiesCheckedOnEveryConnection(Statement s) throws SQLException {
        // id 0 lives on ds_0, id 1 on ds_1: the setting read there, on the connection the session uses.
        for (int id = 0; id < 2; id++) {
            try (ResultSet rs = s.executeQuery("SELECT current_setting('check_function_bodies') FROM t_og WHERE id = " + id)) {
                assertTrue(rs.next());
                assertEquals("on", rs.getString(1), "ds_" + id);
            }
        }
    }
}
