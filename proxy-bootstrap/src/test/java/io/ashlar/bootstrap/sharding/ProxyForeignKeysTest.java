package io.ashlar.bootstrap.sharding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ashlar.backend.config.LogicalDatabaseConfig;
import io.ashlar.bootstrap.ProxyRuntime;
import io.ashlar.bootstrap.config.ProxyConfiguration;
import io.ashlar.bootstrap.config.ProxyConfigurationLoader;
import io.ashlar.bootstrap.config.ServerConfig;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.postgresql.util.PSQLException;

/**
 * Foreign keys whose rows may be on different data sources, enforced by the proxy (2 data sources): order lines
 * sharded by their own warehouse reference the stock of their supplying warehouse, which may be the other data source's.
 * Each case is also what PostgreSQL answers for the same statements on one database (messages, SQLSTATEs, no effect of
 * a failed statement); two sessions racing a child insert against the parent's delete never leave an orphan; the key
 * survives a restart of the proxy.
 */
class ProxyForeignKeysTest {

    private static final String CONFIG = """
            databaseName: sharding_db
            dataSources:
              ds_0:
                url: "@DS0@"
                username: postgres
                password: ""
              ds_1:
                url: "@DS1@"
                username: postgres
                password: ""
            rules:
              - !SHARDING
                tables:
                  t_stock:
                    actualDataNodes: ds_${0..1}.t_stock
                    databaseStrategy: {standard: {shardingColumn: s_w_id, shardingAlgorithmName: mod_2}}
                  t_line:
                    actualDataNodes: ds_${0..1}.t_line
                    databaseStrategy: {standard: {shardingColumn: l_w_id, shardingAlgorithmName: mod_2}}
                  t_plain:
                    actualDataNodes: ds_${0..1}.t_plain
                    databaseStrategy: {standard: {shardingColumn: w_id, shardingAlgorithmName: mod_2}}
                shardingAlgorithms:
                  mod_2:
                    type: MOD
                    props:
                      sharding-count: 2
            """;

    private static final String KEY = "alter table t_line add constraint l_stock_fkey foreign key (l_supply_w_id, l_i_id) references t_stock (s_w_id, s_i_id)";

    private static EmbeddedPostgres postgres;

    private static LogicalDatabaseConfig database;

    private static ProxyRuntime proxy;

    @BeforeAll
    static void start() throws IOException, SQLException, InterruptedException {
        postgres = EmbeddedPostgres.builder().setServerConfig("max_prepared_transactions", "10").start();
        try (Connection connection = postgres.getPostgresDatabase().getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE DATABASE ds_0");
            statement.execute("CREATE DATABASE ds_1");
        }
        database = ProxyConfigurationLoader.loadDatabase("config-sharding.yaml", CONFIG.replace("@DS0@", url("ds_0")).replace("@DS1@", url("ds_1")));
        proxy = ProxyRuntime.start(new ProxyConfiguration(ServerConfig.DEFAULTS, List.of(database)), 0);
    }

    @AfterAll
    static void stop() throws IOException {
        try {
            if (proxy != null) {
                proxy.close();
            }
        } finally {
            if (postgres != null) {
                postgres.close();
            }
        }
    }

    /** Stock of warehouses 1 (ds_1) and 2 (ds_0), items 1 and 2; order lines of warehouse 1 supplied by warehouse 2 and back. */
    @BeforeEach
    void tables() throws SQLException {
        try (Connection connection = proxy(); Statement statement = connection.createStatement()) {
            statement.execute("drop table if exists t_line");
            statement.execute("drop table if exists t_stock");
            statement.execute("create table t_stock (s_w_id int, s_i_id int, s_quantity int, primary key (s_w_id, s_i_id))");
            statement.execute("create table t_line (l_w_id int, l_id int, l_supply_w_id int, l_i_id int, primary key (l_w_id, l_id))");
            statement.execute("insert into t_stock values (1, 1, 10), (1, 2, 10), (2, 1, 10), (2, 2, 10)");
            statement.execute("insert into t_line values (1, 1, 2, 1), (2, 1, 1, 2), (1, 2, null, 5)");
        }
    }

    @Test
    void addValidatesExistingRowsAndNeedsAUniqueKey() throws SQLException {
        try (Connection connection = proxy(); Statement statement = connection.createStatement()) {
            statement.execute("insert into t_line values (2, 2, 1, 3)");
            SQLException orphan = assertThrows(SQLException.class, () -> statement.execute(KEY));
            assertEquals("23503", orphan.getSQLState());
            assertEquals("insert or update on table \"t_line\" violates foreign key constraint \"l_stock_fkey\"", serverMessage(orphan));
            assertEquals("Key (l_supply_w_id, l_i_id)=(1, 3) is not present in table \"t_stock\".", detail(orphan));
            assertEquals("", placeholders("ds_0") + placeholders("ds_1"), "nothing recorded after a failed ADD");
            statement.execute("delete from t_line where l_w_id = 2 and l_id = 2");

            SQLException notUnique = assertThrows(SQLException.class,
                    () -> statement.execute("alter table t_line add foreign key (l_supply_w_id) references t_stock (s_w_id)"));
            assertEquals("42830", notUnique.getSQLState());
            assertEquals("there is no unique constraint matching given keys for referenced table \"t_stock\"", serverMessage(notUnique));

            SQLException cascade = assertThrows(SQLException.class, () -> statement.execute(KEY + " on delete cascade"));
            assertEquals("0A000", cascade.getSQLState());
            assertTrue(serverMessage(cascade).contains("ON DELETE CASCADE is not supported")
                    && serverMessage(cascade).contains("NO ACTION / RESTRICT"), serverMessage(cascade));
            SQLException deferrable = assertThrows(SQLException.class, () -> statement.execute(KEY + " deferrable initially deferred"));
            assertEquals("0A000", deferrable.getSQLState());
            assertTrue(serverMessage(deferrable).contains("DEFERRABLE"), serverMessage(deferrable));

            statement.execute(KEY);
            assertEquals("t_line l_stock_fkey\n", placeholders("ds_0"));
            assertEquals("t_line l_stock_fkey\n", placeholders("ds_1"));
            try (ResultSet rs = statement.executeQuery("select conname, contype, pg_get_constraintdef(oid) from pg_constraint"
                    + " where conrelid = 't_line'::regclass and contype = 'f'")) {
                assertTrue(rs.next(), "the logical catalog shows the key");
                assertEquals("l_stock_fkey", rs.getString(1));
                assertEquals("FOREIGN KEY (l_supply_w_id, l_i_id) REFERENCES t_stock(s_w_id, s_i_id)", rs.getString(3));
                assertFalse(rs.next());
            }
            SQLException twice = assertThrows(SQLException.class, () -> statement.execute(KEY));
            assertEquals("42710", twice.getSQLState(), twice.getMessage());

            statement.execute("alter table t_line drop constraint l_stock_fkey");
            assertEquals("", placeholders("ds_0") + placeholders("ds_1"));
            statement.execute("insert into t_line values (2, 3, 1, 99)");
        }
    }

    @Test
    void childWritesAreChecked() throws SQLException {
        try (Connection connection = proxy(); Statement statement = connection.createStatement()) {
            statement.execute(KEY);
            statement.execute("insert into t_line values (1, 10, 2, 2), (2, 10, 1, 1), (1, 11, null, 99)");
            SQLException missing = assertThrows(SQLException.class, () -> statement.execute("insert into t_line values (1, 12, 2, 1), (2, 12, 1, 7)"));
            assertEquals("23503", missing.getSQLState());
            assertEquals("insert or update on table \"t_line\" violates foreign key constraint \"l_stock_fkey\"", serverMessage(missing));
            assertEquals("Key (l_supply_w_id, l_i_id)=(1, 7) is not present in table \"t_stock\".", detail(missing));
            assertEquals(0, count(statement, "select count(*) from t_line where l_id = 12"), "no row of the failed INSERT");

            // One query string of two statements: an implicit transaction, so the first is undone with the second.
            SQLException several = assertThrows(SQLException.class, () -> statement.execute("insert into t_line values (1, 15, 2, 1);"
                    + " insert into t_line values (2, 15, 1, 9)"));
            assertEquals("23503", several.getSQLState());
            assertEquals(0, count(statement, "select count(*) from t_line where l_id = 15"));

            SQLException select = assertThrows(SQLException.class, () -> statement.execute("insert into t_line select 1, 13, 2, 1"));
            assertEquals("0A000", select.getSQLState());
            assertTrue(serverMessage(select).contains("l_stock_fkey") && serverMessage(select).contains("INSERT ... SELECT"), serverMessage(select));
            SQLException expression = assertThrows(SQLException.class, () -> statement.execute("insert into t_line values (1, 13, 1 + 1, 1)"));
            assertEquals("0A000", expression.getSQLState());

            SQLException upsert = assertThrows(SQLException.class, () -> statement.execute("insert into t_line values (1, 10, 2, 2)"
                    + " on conflict (l_w_id, l_id) do update set l_i_id = excluded.l_i_id"));
            assertEquals("0A000", upsert.getSQLState(), upsert.getMessage());
            // PostgreSQL checks only the rows inserted: a conflicting row with a missing key is no error.
            statement.execute("insert into t_line values (1, 10, 2, 9) on conflict do nothing");
            SQLException inserted = assertThrows(SQLException.class, () -> statement.execute("insert into t_line values (1, 14, 2, 9) on conflict do nothing"));
            assertEquals("23503", inserted.getSQLState());
            assertEquals(0, count(statement, "select count(*) from t_line where l_id = 14"));

            org.postgresql.copy.CopyManager copy = connection.unwrap(org.postgresql.PGConnection.class).getCopyAPI();
            SQLException copied = assertThrows(SQLException.class, () -> copy.copyIn("copy t_line from stdin", new java.io.StringReader("1\t99\t2\t1\n")));
            assertEquals("0A000", copied.getSQLState(), copied.getMessage());

            statement.execute("update t_line set l_supply_w_id = 1, l_i_id = 1 where l_w_id = 1 and l_id = 10");
            SQLException update = assertThrows(SQLException.class,
                    () -> statement.execute("update t_line set l_supply_w_id = 3, l_i_id = 1 where l_w_id = 1 and l_id = 10"));
            assertEquals("23503", update.getSQLState());
            assertEquals("Key (l_supply_w_id, l_i_id)=(3, 1) is not present in table \"t_stock\".", detail(update));
            statement.execute("update t_line set l_supply_w_id = 3, l_i_id = 1 where l_w_id = 1 and l_id = 999"); // no row: no error
            SQLException partial = assertThrows(SQLException.class, () -> statement.execute("update t_line set l_i_id = 2 where l_id = 10"));
            assertEquals("0A000", partial.getSQLState());
            assertEquals(1, count(statement, "select count(*) from t_line where l_w_id = 1 and l_id = 10 and l_supply_w_id = 1 and l_i_id = 1"));

            try (PreparedStatement insert = connection.prepareStatement("insert into t_line (l_w_id, l_id, l_supply_w_id, l_i_id) values (?, ?, ?, ?)")) {
                for (int i = 0; i < 7; i++) { // past pgjdbc's prepareThreshold: named statements, binary-capable
                    bind(insert, 1, 20 + i, 2, 1 + i % 2);
                    insert.executeUpdate();
                }
                bind(insert, 2, 30, 2, 9);
                SQLException extended = assertThrows(SQLException.class, insert::executeUpdate);
                assertEquals("23503", extended.getSQLState());
                assertEquals("Key (l_supply_w_id, l_i_id)=(2, 9) is not present in table \"t_stock\".", detail(extended));

                for (int i = 0; i < 4; i++) {
                    bind(insert, 1 + i % 2, 40 + i, 2 - i % 2, 1 + i / 2);
                    insert.addBatch();
                }
                insert.executeBatch();
                assertEquals(4, count(statement, "select count(*) from t_line where l_id between 40 and 43"));
                bind(insert, 1, 50, 1, 1);
                insert.addBatch();
                bind(insert, 2, 51, 1, 8);
                insert.addBatch();
                SQLException batch = assertThrows(SQLException.class, insert::executeBatch);
                SQLException cause = batch.getNextException() != null ? batch.getNextException() : batch;
                assertEquals("23503", cause.getSQLState(), cause.getMessage());
                assertEquals(0, count(statement, "select count(*) from t_line where l_id in (50, 51)"), "no row of the failed batch");
            }

            connection.setAutoCommit(false);
            statement.execute("insert into t_line values (1, 60, 2, 2)");
            SQLException inBlock = assertThrows(SQLException.class, () -> statement.execute("insert into t_line values (1, 61, 2, 5)"));
            assertEquals("23503", inBlock.getSQLState());
            SQLException aborted = assertThrows(SQLException.class, () -> statement.execute("select 1"));
            assertEquals("25P02", aborted.getSQLState());
            connection.rollback();
            connection.setAutoCommit(true);
            assertEquals(0, count(statement, "select count(*) from t_line where l_id in (60, 61)"));
        }
    }

    @Test
    void parentWritesAreChecked() throws SQLException {
        try (Connection connection = proxy(); Statement statement = connection.createStatement()) {
            statement.execute(KEY);
            SQLException delete = assertThrows(SQLException.class, () -> statement.execute("delete from t_stock where s_w_id = 2"));
            assertEquals("23503", delete.getSQLState());
            assertEquals("update or delete on table \"t_stock\" violates foreign key constraint \"l_stock_fkey\" on table \"t_line\"",
                    serverMessage(delete));
            assertEquals("Key (s_w_id, s_i_id)=(2, 1) is still referenced from table \"t_line\".", detail(delete));
            assertEquals(4, count(statement, "select count(*) from t_stock"), "the failed DELETE deleted nothing");
            statement.execute("delete from t_stock where s_w_id = 2 and s_i_id = 2");
            assertEquals(3, count(statement, "select count(*) from t_stock"));

            try (PreparedStatement parameterized = connection.prepareStatement("delete from t_stock where s_w_id = ? and s_i_id = ?")) {
                parameterized.setInt(1, 1);
                parameterized.setInt(2, 2);
                SQLException referenced = assertThrows(SQLException.class, parameterized::executeUpdate);
                assertEquals("23503", referenced.getSQLState());
                assertEquals("Key (s_w_id, s_i_id)=(1, 2) is still referenced from table \"t_line\".", detail(referenced));
            }

            SQLException aliased = assertThrows(SQLException.class, () -> statement.execute("delete from only t_stock as s where s.s_w_id = 1 and s.s_i_id = 2"));
            assertEquals("23503", aliased.getSQLState(), aliased.getMessage());
            try (PreparedStatement parameterized = connection.prepareStatement("update t_stock set s_i_id = ? where s_w_id = ? and s_i_id = ?")) {
                parameterized.setInt(1, 7);
                parameterized.setInt(2, 1);
                parameterized.setInt(3, 2);
                SQLException referenced = assertThrows(SQLException.class, parameterized::executeUpdate);
                assertEquals("23503", referenced.getSQLState(), referenced.getMessage());
                parameterized.setInt(1, 2);
                assertEquals(1, parameterized.executeUpdate(), "the same key: nothing removed");
            }
            // A parameter of unspecified type that only SET names (pgjdbc's setObject with Types.OTHER).
            try (PreparedStatement untyped = connection.prepareStatement("update t_stock set s_quantity = ?, s_i_id = s_i_id where s_w_id = ?")) {
                untyped.setObject(1, "3", java.sql.Types.OTHER);
                untyped.setInt(2, 1);
                assertEquals(2, untyped.executeUpdate());
            }
            SQLException update = assertThrows(SQLException.class, () -> statement.execute("update t_stock set s_i_id = 5 where s_w_id = 2 and s_i_id = 1"));
            assertEquals("23503", update.getSQLState());
            statement.execute("update t_stock set s_quantity = 5 where s_w_id = 2");
            statement.execute("update t_stock set s_i_id = s_i_id where s_w_id = 2"); // the same keys: nothing removed

            SQLException truncate = assertThrows(SQLException.class, () -> statement.execute("truncate t_stock"));
            assertEquals("0A000", truncate.getSQLState());
            assertEquals("cannot truncate a table referenced in a foreign key constraint", serverMessage(truncate));
            SQLException drop = assertThrows(SQLException.class, () -> statement.execute("drop table t_stock"));
            assertEquals("2BP01", drop.getSQLState());
            assertEquals("cannot drop table t_stock because other objects depend on it", serverMessage(drop));
            statement.execute("truncate t_line, t_stock");
            statement.execute("drop table t_stock cascade");
            assertEquals("", placeholders("ds_0") + placeholders("ds_1"), "DROP ... CASCADE drops the key");
            statement.execute("insert into t_line values (1, 70, 2, 2)");
        }
    }

    /** A child insert and the parent's delete in two sessions, in both orders: the second waits, then fails; no orphan. */
    @Test
    void racingSessionsLeaveNoOrphan() throws Exception {
        try (Connection setup = proxy(); Statement statement = setup.createStatement()) {
            statement.execute(KEY);
            statement.execute("insert into t_stock values (2, 3, 1), (2, 4, 1)");
        }
        try (Connection child = proxy(); Connection parent = proxy()) {
            child.setAutoCommit(false);
            child.createStatement().execute("insert into t_line values (1, 80, 2, 3)");
            CompletableFuture<SQLException> deleting = CompletableFuture.supplyAsync(() -> {
                try (Statement statement = parent.createStatement()) {
                    statement.execute("delete from t_stock where s_w_id = 2 and s_i_id = 3");
                    return null;
                } catch (SQLException e) {
                    return e;
                }
            });
            Thread.sleep(500);
            assertFalse(deleting.isDone(), "the delete waits for the child's lock");
            child.commit();
            SQLException failed = deleting.get(30, TimeUnit.SECONDS);
            assertTrue(failed != null && failed.getSQLState().equals("23503"), String.valueOf(failed));

            parent.setAutoCommit(false);
            parent.createStatement().execute("delete from t_stock where s_w_id = 2 and s_i_id = 4");
            CompletableFuture<SQLException> inserting = CompletableFuture.supplyAsync(() -> {
                try (Statement statement = child.createStatement()) {
                    statement.execute("insert into t_line values (1, 81, 2, 4)");
                    child.commit();
                    return null;
                } catch (SQLException e) {
                    return e;
                }
            });
            Thread.sleep(500);
            assertFalse(inserting.isDone(), "the insert waits for the parent's delete");
            parent.commit();
            SQLException orphan = inserting.get(30, TimeUnit.SECONDS);
            assertTrue(orphan != null && orphan.getSQLState().equals("23503"), String.valueOf(orphan));
            child.rollback();
        }
        try (Connection connection = proxy(); Statement statement = connection.createStatement()) {
            assertEquals(0, count(statement, "select count(*) from t_line l where l_supply_w_id is not null"
                    + " and not exists (select 1 from t_stock s where s.s_w_id = l.l_supply_w_id and s.s_i_id = l.l_i_id)"), "orphans");
            assertEquals(1, count(statement, "select count(*) from t_stock where s_w_id = 2 and s_i_id = 3"));
            assertEquals(0, count(statement, "select count(*) from t_stock where s_w_id = 2 and s_i_id = 4"));
        }
    }

    @Test
    void theKeySurvivesARestartOfTheProxy() throws Exception {
        try (Connection connection = proxy(); Statement statement = connection.createStatement()) {
            statement.execute(KEY);
        }
        // Another proxy on the same data sources, started now, reads the key with the schema.
        try (ProxyRuntime other = ProxyRuntime.start(new ProxyConfiguration(ServerConfig.DEFAULTS, List.of(database)), 0);
                Connection connection = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + other.port() + "/sharding_db", "root", "root");
                Statement statement = connection.createStatement()) {
            SQLException missing = assertThrows(SQLException.class, () -> statement.execute("insert into t_line values (2, 91, 1, 9)"));
            assertEquals("23503", missing.getSQLState());
        }
        proxy.close();
        proxy = ProxyRuntime.start(new ProxyConfiguration(ServerConfig.DEFAULTS, List.of(database)), 0);
        try (Connection connection = proxy(); Statement statement = connection.createStatement()) {
            SQLException missing = assertThrows(SQLException.class, () -> statement.execute("insert into t_line values (2, 90, 1, 9)"));
            assertEquals("23503", missing.getSQLState());
            SQLException referenced = assertThrows(SQLException.class, () -> statement.execute("delete from t_stock where s_w_id = 1"));
            assertEquals("23503", referenced.getSQLState());
        }
    }

    private static void bind(PreparedStatement statement, int warehouse, int id, int supply, int item) throws SQLException {
        statement.setInt(1, warehouse);
        statement.setInt(2, id);
        statement.setInt(3, supply);
        statement.setInt(4, item);
    }

    private static int count(Statement statement, String sql) throws SQLException {
        try (ResultSet rs = statement.executeQuery(sql)) {
            assertTrue(rs.next());
            return rs.getInt(1);
        }
    }

    private static String serverMessage(SQLException e) {
        return e instanceof PSQLException p && p.getServerErrorMessage() != null ? p.getServerErrorMessage().getMessage() : e.getMessage();
    }

    private static String detail(SQLException e) {
        return e instanceof PSQLException p && p.getServerErrorMessage() != null ? p.getServerErrorMessage().getDetail() : "";
    }

    /** The placeholders of proxy-enforced keys on a data source's actual tables, one line each. */
    private static String placeholders(String dataSource) throws SQLException {
        StringBuilder result = new StringBuilder();
        try (Connection connection = DriverManager.getConnection(url(dataSource), "postgres", "");
                Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery("select conrelid::regclass, conname from pg_constraint where contype = 'c'"
                        + " and pg_get_constraintdef(oid) like '%ashlar foreign key:%' order by 1::text, 2")) {
            while (rs.next()) {
                result.append(rs.getString(1)).append(' ').append(rs.getString(2)).append('\n');
            }
        }
        return result.toString();
    }

    private static Connection proxy() throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + proxy.port() + "/sharding_db?connectTimeout=10&socketTimeout=60", "root", "root");
    }

    private static String url(String database) {
        return "jdbc:postgresql://127.0.0.1:" + postgres.getPort() + "/" + database;
    }
}
