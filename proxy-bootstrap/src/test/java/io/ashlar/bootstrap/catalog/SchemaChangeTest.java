package io.ashlar.bootstrap.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.util.PSQLException;

/**
 * The logical schema follows changes: DDL through the proxy is seen by every other session (after the transaction
 * that made it commits); CREATE TABLE of a table of the rules makes its actual tables, or answers as PostgreSQL
 * does when it exists; a table made on a data source behind the proxy's back is found when a statement first names
 * it, and by REFRESH TABLE METADATA; actual tables that disagree are reported, naming the data source and table.
 */
final class SchemaChangeTest {

    private static CatalogDatabases databases;

    @BeforeAll
    static void start() throws Exception {
        databases = CatalogDatabases.start();
    }

    @AfterAll
    static void stop() throws Exception {
        if (databases != null) {
            databases.close();
        }
    }

    @Test
    void ddlThroughTheProxyIsSeenByAnotherSession() throws SQLException {
        String columns = "SELECT column_name, data_type, is_nullable FROM information_schema.columns"
                + " WHERE table_name = 't_order' ORDER BY ordinal_position";
        String indexes = "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 't_order' ORDER BY 1";
        try (Connection other = databases.proxy(""); Connection reference = databases.reference("")) {
            assertEquals(rows(reference, columns), rows(other, columns), "before");
            for (Connection each : List.of(databases.proxy(""), databases.reference(""))) {
                try (each; Statement statement = each.createStatement()) {
                    statement.execute("ALTER TABLE t_order ADD COLUMN tracking varchar(40) NOT NULL DEFAULT ''");
                    statement.execute("CREATE INDEX idx_order_tracking ON t_order (tracking)");
                }
            }
            assertEquals(rows(reference, columns), rows(other, columns), "after ALTER TABLE through the proxy");
            assertEquals(rows(reference, indexes), rows(other, indexes), "after CREATE INDEX through the proxy");
            for (Connection each : List.of(databases.proxy(""), databases.reference(""))) {
                try (each; Statement statement = each.createStatement()) {
                    statement.execute("DROP INDEX idx_order_tracking");
                    statement.execute("ALTER TABLE t_order DROP COLUMN tracking");
                }
            }
            assertEquals(rows(reference, columns), rows(other, columns), "after ALTER TABLE ... DROP COLUMN");
            assertEquals(rows(reference, indexes), rows(other, indexes), "after DROP INDEX without a table name");
        }
    }

    @Test
    void ddlInATransactionIsSeenWhenItCommits() throws SQLException {
        String columns = "SELECT column_name FROM information_schema.columns WHERE table_name = 't_dict' ORDER BY ordinal_position";
        try (Connection writer = databases.proxy(""); Connection other = databases.proxy("");
                Statement statement = writer.createStatement()) {
            List<String> before = rows(other, columns);
            writer.setAutoCommit(false);
            statement.execute("ALTER TABLE t_dict ADD COLUMN rolled_back text");
            writer.rollback();
            assertEquals(before, rows(other, columns), "after ROLLBACK");
            statement.execute("ALTER TABLE t_dict ADD COLUMN kept text");
            assertEquals(before, rows(other, columns), "before COMMIT");
            writer.commit();
            List<String> expected = new ArrayList<>(before);
            expected.add("kept");
            assertEquals(expected, rows(other, columns), "after COMMIT");
            statement.execute("ALTER TABLE t_dict DROP COLUMN kept");
            writer.commit();
        }
    }

    @Test
    void createTableOfATableInTheRulesBehavesAsOnPostgresql() throws SQLException {
        String create = "CREATE TABLE t_ddl (id integer PRIMARY KEY, label text NOT NULL)";
        try (Connection proxied = databases.proxy(""); Connection reference = databases.reference("");
                Connection other = databases.proxy("");
                Statement viaProxy = proxied.createStatement(); Statement direct = reference.createStatement()) {
            viaProxy.execute(create);
            direct.execute(create);
            for (String dataSource : List.of("ds_0", "ds_1")) {
                try (Connection shard = databases.shard(dataSource)) {
                    assertEquals(List.of("t_ddl_0", "t_ddl_1"), rows(shard, "SELECT tablename FROM pg_tables WHERE tablename LIKE 't\\_ddl%' ORDER BY 1"),
                            "actual tables on " + dataSource);
                }
            }
            assertEquals(List.of("t_ddl"), rows(other, "SELECT tablename FROM pg_tables WHERE tablename LIKE 't\\_ddl%'"),
                    "another session sees the logical table");
            String ifNotExists = "CREATE TABLE IF NOT EXISTS t_ddl (id integer PRIMARY KEY, label text NOT NULL)";
            viaProxy.execute(ifNotExists);
            direct.execute(ifNotExists);
            assertEquals(warnings(direct.getWarnings()), warnings(viaProxy.getWarnings()), "the notices of " + ifNotExists);
            PSQLException expected = assertThrows(PSQLException.class, () -> direct.execute(create));
            PSQLException actual = assertThrows(PSQLException.class, () -> viaProxy.execute(create));
            assertEquals(expected.getSQLState() + " " + expected.getServerErrorMessage().getMessage(),
                    actual.getSQLState() + " " + actual.getServerErrorMessage().getMessage(), create + " again");
            viaProxy.execute("INSERT INTO t_ddl (id, label) VALUES (1, 'one'), (2, 'two'), (3, 'three')");
            assertEquals(List.of("1 | one", "2 | two", "3 | three"), rows(other, "SELECT * FROM t_ddl ORDER BY id"));
            viaProxy.execute("DROP TABLE t_ddl");
            direct.execute("DROP TABLE t_ddl");
            assertEquals(List.of(), rows(other, "SELECT tablename FROM pg_tables WHERE tablename LIKE 't\\_ddl%'"),
                    "another session after DROP TABLE");
            viaProxy.execute("DROP TABLE IF EXISTS t_ddl");
            direct.execute("DROP TABLE IF EXISTS t_ddl");
            assertEquals(warnings(direct.getWarnings()), warnings(viaProxy.getWarnings()), "the notice of DROP TABLE IF EXISTS");
        }
    }

    @Test
    void aTableMadeBehindTheProxysBackIsFoundWhenAStatementNamesIt() throws SQLException {
        try (Connection shard = databases.shard("ds_1"); Statement statement = shard.createStatement()) {
            statement.execute("CREATE TABLE t_behind (id integer PRIMARY KEY, name text)");
            statement.execute("INSERT INTO t_behind VALUES (1, 'made on ds_1')");
        }
        try (Connection proxied = databases.proxy(""); Statement statement = proxied.createStatement()) {
            assertEquals(List.of("1 | made on ds_1"), rows(proxied, "SELECT * FROM t_behind"));
            statement.execute("INSERT INTO t_behind VALUES (2, 'through the proxy')");
            assertEquals(List.of("t_behind"), rows(proxied, "SELECT relname FROM pg_class WHERE relname = 't_behind'"),
                    "the catalog knows it");
            PSQLException missing = assertThrows(PSQLException.class, () -> statement.executeQuery("SELECT * FROM t_later"));
            assertEquals("42P01", missing.getSQLState());
        }
        try (Connection shard = databases.shard("ds_1"); Statement statement = shard.createStatement()) {
            assertEquals(List.of("1", "2"), rows(shard, "SELECT id FROM t_behind ORDER BY id"), "rows on ds_1");
            statement.execute("CREATE TABLE t_later (id integer)");
            statement.execute("INSERT INTO t_later VALUES (42)");
        }
        try (Connection proxied = databases.proxy("")) {
            assertEquals(List.of("42"), rows(proxied, "SELECT * FROM t_later"), "a table named before it existed");
        }
    }

    @Test
    void refreshTableMetadataReadsTablesAgainAndReportsDisagreements() throws SQLException {
        try (Connection shard = databases.shard("ds_1"); Statement statement = shard.createStatement()) {
            statement.execute("CREATE TABLE t_quiet (id integer PRIMARY KEY)");
            statement.execute("ALTER TABLE t_order_1 ADD COLUMN extra integer");
        }
        String quiet = "SELECT relname FROM pg_class WHERE relname = 't_quiet'";
        try (Connection proxied = databases.proxy(""); Statement statement = proxied.createStatement()) {
            assertEquals(List.of(), rows(proxied, quiet), "before REFRESH TABLE METADATA");
            statement.execute("REFRESH TABLE METADATA");
            assertEquals(List.of("t_quiet"), rows(proxied, quiet), "after REFRESH TABLE METADATA");
            assertEquals(List.of("01000 logical table t_order: data source ds_1, table t_order_1 differs from ds_0.t_order_0:"
                    + " columns (order_id, user_id, status, amount, note, created_at, seq, extra) instead of"
                    + " (order_id, user_id, status, amount, note, created_at, seq)"), warnings(statement.getWarnings()),
                    "one warning per actual table that differs from the first");
            try (Connection shard = databases.shard("ds_1"); Statement direct = shard.createStatement()) {
                direct.execute("ALTER TABLE t_order_1 DROP COLUMN extra");
            }
            statement.execute("REFRESH TABLE METADATA t_order FROM STORAGE UNIT ds_1");
            assertEquals(List.of(), warnings(statement.getWarnings()), "once they agree again");
            assertEquals("42704", assertThrows(PSQLException.class,
                    () -> statement.execute("REFRESH TABLE METADATA t_order FROM STORAGE UNIT ds_9")).getSQLState());
            assertEquals("42P01", assertThrows(PSQLException.class,
                    () -> statement.execute("REFRESH TABLE METADATA t_none")).getSQLState());
            assertEquals("42601", assertThrows(PSQLException.class,
                    () -> statement.execute("REFRESH TABLE METADATA t_order FROM somewhere")).getSQLState());
        }
    }

    @Test
    void selectStarGivesTheLogicalColumnOrderWhereActualTablesDiffer() throws SQLException {
        try (Connection proxied = databases.proxy(""); Statement statement = proxied.createStatement()) {
            statement.execute("DROP TABLE IF EXISTS t_ddl");
            statement.execute("CREATE TABLE t_ddl (id integer PRIMARY KEY, label text NOT NULL)");
        }
        try (Connection shard = databases.shard("ds_1"); Statement statement = shard.createStatement()) {
            statement.execute("DROP TABLE t_ddl_1");
            statement.execute("CREATE TABLE t_ddl_1 (label text NOT NULL, id integer PRIMARY KEY)");
        }
        try (Connection proxied = databases.proxy(""); Statement statement = proxied.createStatement()) {
            statement.execute("REFRESH TABLE METADATA t_ddl");
            assertEquals(List.of("01000 logical table t_ddl: data source ds_1, table t_ddl_1 differs from ds_0.t_ddl_0:"
                    + " columns (label, id) instead of (id, label)"), warnings(statement.getWarnings()));
            statement.execute("INSERT INTO t_ddl (id, label) VALUES (1, 'one'), (2, 'two'), (3, 'three'), (4, 'four')");
            List<String> expected = List.of("1 | one", "2 | two", "3 | three", "4 | four");
            assertEquals(expected, rows(proxied, "SELECT * FROM t_ddl ORDER BY id"));
            assertEquals(expected, rows(proxied, "SELECT d.* FROM t_ddl AS d WHERE d.id > 0 ORDER BY 1"));
            assertEquals(List.of("3 | three"), rows(proxied, "SELECT * FROM t_ddl WHERE id = 3"));
            statement.execute("DROP TABLE t_ddl");
        }
    }

    private static List<String> warnings(SQLWarning warning) {
        List<String> result = new ArrayList<>();
        for (SQLWarning each = warning; each != null; each = each.getNextWarning()) {
            result.add(each.getSQLState() + " " + each.getMessage());
        }
        return result;
    }

    private static List<String> rows(Connection connection, String sql) throws SQLException {
        List<String> result = new ArrayList<>();
        try (Statement statement = connection.createStatement(); ResultSet rows = statement.executeQuery(sql)) {
            int columns = rows.getMetaData().getColumnCount();
            while (rows.next()) {
                StringBuilder row = new StringBuilder();
                for (int i = 1; i <= columns; i++) {
                    row.append(i == 1 ? "" : " | ").append(rows.getString(i));
                }
                result.add(row.toString());
            }
        }
        return result;
    }
}
