package io.ashlar.bootstrap.sharding;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.util.PSQLException;

/**
 * Schema statements as ORM migration tools (Django, Rails, Prisma, Knex, Alembic, Flyway) send them to a logical
 * database over two data sources: tables laid out alike (t_stock, t_line: one actual table per data source), a table
 * with two actual tables per data source (t_split, t_split_child) and single tables (made on the default data source).
 */
class OrmSchemaStatementsTest {

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
                  t_split:
                    actualDataNodes: ds_${0..1}.t_split_${0..1}
                    databaseStrategy: {standard: {shardingColumn: id, shardingAlgorithmName: mod_2}}
                    tableStrategy: {standard: {shardingColumn: id, shardingAlgorithmName: split_inline}}
                  t_split_child:
                    actualDataNodes: ds_${0..1}.t_split_child_${0..1}
                    databaseStrategy: {standard: {shardingColumn: id, shardingAlgorithmName: mod_2}}
                    tableStrategy: {standard: {shardingColumn: id, shardingAlgorithmName: split_child_inline}}
                shardingAlgorithms:
                  mod_2:
                    type: MOD
                    props:
                      sharding-count: 2
                  split_inline:
                    type: INLINE
                    props:
                      algorithm-expression: t_split_${id.intdiv(2) % 2}
                  split_child_inline:
                    type: INLINE
                    props:
                      algorithm-expression: t_split_child_${id.intdiv(2) % 2}
            """;

    private static EmbeddedPostgres postgres;

    private static ProxyRuntime proxy;

    @BeforeAll
    static void start() throws IOException, SQLException, InterruptedException {
        postgres = EmbeddedPostgres.builder().setServerConfig("max_prepared_transactions", "10").start();
        try (Connection connection = postgres.getPostgresDatabase().getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE DATABASE ds_0");
            statement.execute("CREATE DATABASE ds_1");
            statement.execute("CREATE DATABASE reference");
        }
        LogicalDatabaseConfig database = ProxyConfigurationLoader.loadDatabase("config-sharding.yaml",
                CONFIG.replace("@DS0@", url("ds_0")).replace("@DS1@", url("ds_1")));
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

    /** TRUNCATE, LOCK, VACUUM and ANALYZE of a sharded table with a single table: refused, naming both tables. */
    @Test
    void maintenanceOfAShardedAndASingleTableNamesTheTables() throws SQLException {
        try (Connection connection = proxy(); Statement statement = connection.createStatement()) {
            statement.execute("drop table if exists t_stock");
            statement.execute("drop table if exists t_solo");
            statement.execute("create table t_stock (s_w_id int, s_i_id int, primary key (s_w_id, s_i_id))");
            statement.execute("create table t_solo (id int primary key)");
            statement.execute("insert into t_stock values (1, 1), (2, 2)");
            for (String command : List.of("truncate t_stock, t_solo", "lock table t_stock, t_solo", "vacuum t_stock, t_solo", "analyze t_stock, t_solo")) {
                SQLException refused = assertThrows(SQLException.class, () -> statement.execute(command));
                assertEquals("0A000", refused.getSQLState(), command);
                String verb = command.substring(0, command.indexOf(' ')).toUpperCase(java.util.Locale.ROOT);
                assertEquals(verb + " of sharded table t_stock together with table t_solo (on ds_0) in one statement is not supported:"
                        + " t_stock has actual tables on data source ds_1, where t_solo is not; run the statement for each table", serverMessage(refused), command);
            }
            assertEquals(2, count(statement, "select count(*) from t_stock"), "the refused TRUNCATE truncated nothing");
            statement.execute("truncate t_stock");
            statement.execute("truncate t_solo");
            assertEquals(0, count(statement, "select count(*) from t_stock"));
            statement.execute("drop table t_stock");
            statement.execute("drop table t_solo");
        }
    }

    /** A serial column of a sharded table: its copies are interleaved by design, which is no difference between actual tables. */
    @Test
    void interleavedSerialSequencesAreNoDifference() throws SQLException {
        try (Connection connection = proxy(); Statement statement = connection.createStatement()) {
            statement.execute("drop table if exists t_line");
            statement.execute("create table t_line (l_w_id int, l_id serial, primary key (l_w_id, l_id))");
            statement.execute("insert into t_line (l_w_id) values (1), (2), (1), (2)");
            assertEquals(4, count(statement, "select count(distinct l_id) from t_line"), "the copies hand out distinct values");
            statement.execute("refresh table metadata t_line");
            assertEquals("", warnings(statement.getWarnings()), "no difference reported");
            try (Connection shard = DriverManager.getConnection(url("ds_1"), "postgres", ""); Statement direct = shard.createStatement()) {
                direct.execute("alter sequence t_line_l_id_seq cache 5");
            }
            statement.execute("refresh table metadata t_line");
            String reported = warnings(statement.getWarnings());
            assertTrue(reported.contains("data source ds_1, table t_line differs from ds_0.t_line: sequence t_line_l_id_seq")
                    && reported.contains("CACHE 5"), reported);
            statement.execute("drop table t_line");
        }
    }

    /**
     * The DO block Prisma, Drizzle and Knex write for an enum: made on every data source and in the catalog database at
     * once, so a sharded table can use it and catalog queries (psql's {@code \dT}) see it, in or out of a transaction block.
     */
    @Test
    void aTypeMadeInAGuardedDoBlockIsEverywhere() throws SQLException {
        String block = "DO $$ BEGIN CREATE TYPE %s AS ENUM ('sad', 'happy'); EXCEPTION WHEN duplicate_object THEN null; END $$";
        String enums = "SELECT t.typname FROM pg_catalog.pg_type t JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace"
                + " WHERE n.nspname = 'public' AND t.typtype = 'e' AND t.typname LIKE 'mood%' ORDER BY 1";
        try (Connection connection = proxy(); Statement statement = connection.createStatement()) {
            statement.execute("drop table if exists t_split");
            statement.execute("drop type if exists mood_out, mood_in");
            statement.execute(String.format(block, "mood_out"));
            statement.execute(String.format(block, "mood_out")); // again: the handler swallows duplicate_object everywhere
            assertEquals("mood_out", rows(statement, enums), "the catalog has it at once");
            for (String dataSource : List.of("ds_0", "ds_1")) {
                try (Connection shard = DriverManager.getConnection(url(dataSource), "postgres", ""); Statement direct = shard.createStatement()) {
                    assertEquals("mood_out", rows(direct, enums), dataSource);
                }
            }

            connection.setAutoCommit(false);
            statement.execute(String.format(block, "mood_in"));
            statement.execute("create table t_split (id int primary key, m mood_in, n mood_out)");
            assertEquals("mood_in,mood_out", rows(statement, enums), "the block's own catalog queries see it");
            statement.execute("insert into t_split (id, m, n) values (1, 'sad', 'happy'), (2, 'happy', 'sad'), (5, 'happy', 'happy')");
            connection.commit();
            connection.setAutoCommit(true);
            try (Connection other = proxy(); Statement otherStatement = other.createStatement()) {
                assertEquals("mood_in,mood_out", rows(otherStatement, enums));
                assertEquals("m mood_in,n mood_out", rows(otherStatement, "select column_name || ' ' || udt_name from information_schema.columns"
                        + " where table_name = 't_split' and column_name in ('m', 'n') order by 1"));
                assertEquals("1 sad,2 happy,5 happy", rows(otherStatement, "select id || ' ' || m from t_split order by id"));
            }
            statement.execute("drop table t_split");
            statement.execute("drop type mood_in, mood_out");
        }
    }

    /** DROP ... CASCADE: its notice names each object it dropped once, as PostgreSQL's on one database does. */
    @Test
    void dropCascadeNamesEachDroppedObjectOnce() throws SQLException {
        List<String> setup = List.of("drop table if exists t_split", "drop table if exists t_solo_typed", "drop type if exists mood_c",
                "create type mood_c as enum ('sad', 'happy')", "create table t_split (id int primary key, m mood_c)",
                "create table t_solo_typed (id int primary key, m mood_c, k mood_c)");
        try (Connection connection = proxy(); Statement statement = connection.createStatement();
                Connection reference = DriverManager.getConnection(url("reference"), "postgres", ""); Statement direct = reference.createStatement()) {
            for (String each : setup) {
                statement.execute(each);
                direct.execute(each);
            }
            statement.execute("alter table t_solo_typed drop column k");
            direct.execute("alter table t_solo_typed drop column k");
            statement.execute("drop type mood_c cascade"); // the columns of t_split and t_solo_typed
            direct.execute("drop type mood_c cascade");
            assertEquals(notices(direct.getWarnings()), notices(statement.getWarnings()));
            assertEquals("drop cascades to 2 other objects DETAIL drop cascades to column m of table t_solo_typed | drop cascades to column m of table t_split",
                    notices(statement.getWarnings()));

            statement.execute("create type mood_c as enum ('sad', 'happy')");
            direct.execute("create type mood_c as enum ('sad', 'happy')");
            statement.execute("alter table t_split add column m mood_c");
            direct.execute("alter table t_split add column m mood_c");
            statement.execute("drop type mood_c cascade"); // one column of a table with two actual tables on each data source
            direct.execute("drop type mood_c cascade");
            assertEquals("drop cascades to column m of table t_split", notices(statement.getWarnings()));
            assertEquals(notices(direct.getWarnings()), notices(statement.getWarnings()));
            for (Statement each : List.of(statement, direct)) {
                each.execute("drop table t_split");
                each.execute("drop table t_solo_typed");
            }
        }
    }

    /**
     * DROP TABLE of tables no one statement per data source can name (laid out differently, sharded with single, a name
     * no rule knows): each table dropped, all or none, as PostgreSQL does.
     */
    @Test
    void dropTableOfTablesLaidOutDifferentlyDropsEach() throws SQLException {
        String create = "create table t_stock (s_w_id int primary key);create table t_split (id int primary key);create table t_solo_drop (id int primary key)";
        String exist = "select count(*) from pg_tables where tablename in ('t_stock', 't_split', 't_solo_drop')";
        try (Connection connection = proxy(); Statement statement = connection.createStatement();
                Connection reference = DriverManager.getConnection(url("reference"), "postgres", ""); Statement direct = reference.createStatement()) {
            for (String table : List.of("t_stock", "t_split", "t_solo_drop")) {
                statement.execute("drop table if exists " + table);
                direct.execute("drop table if exists " + table);
            }
            for (String each : create.split(";")) {
                statement.execute(each);
                direct.execute(each);
            }
            statement.execute("insert into t_split values (1), (2), (3), (4)");

            SQLException missing = assertThrows(SQLException.class, () -> statement.execute("drop table t_stock, t_split, t_solo_drop, t_nowhere"));
            assertEquals("42P01", missing.getSQLState());
            assertEquals("table \"t_nowhere\" does not exist", serverMessage(missing));
            assertEquals(3, count(statement, exist), "a failed DROP TABLE drops nothing");
            assertEquals(4, count(statement, "select count(*) from t_split"));

            connection.setAutoCommit(false);
            statement.execute("drop table t_split, t_solo_drop");
            connection.rollback();
            connection.setAutoCommit(true);
            assertEquals(3, count(statement, exist), "rolled back with the block");

            statement.execute("drop table if exists t_stock, t_split, t_nowhere, t_solo_drop cascade");
            direct.execute("drop table if exists t_stock, t_split, t_nowhere, t_solo_drop cascade");
            assertEquals("table \"t_nowhere\" does not exist, skipping", notices(statement.getWarnings()));
            assertEquals(notices(direct.getWarnings()), notices(statement.getWarnings()));
            assertEquals(0, count(statement, exist));
            for (String dataSource : List.of("ds_0", "ds_1")) {
                try (Connection shard = DriverManager.getConnection(url(dataSource), "postgres", ""); Statement shardStatement = shard.createStatement()) {
                    assertEquals(0, count(shardStatement, "select count(*) from pg_tables where tablename like 't\\_s%'"), dataSource);
                }
            }
        }
    }

    /**
     * A migration that makes two tables and adds a key between them that the proxy enforces (their rows may be on
     * different data sources), then drops it, all in one transaction: the proxy reads the uncommitted tables through the
     * session's own connections.
     */
    @Test
    void aForeignKeyAcrossDataSourcesInTheTransactionThatMadeTheTables() throws SQLException {
        String key = "alter table t_line add constraint l_stock_fkey foreign key (l_supply_w_id, l_i_id) references t_stock (s_w_id, s_i_id)";
        try (Connection connection = proxy(); Statement statement = connection.createStatement()) {
            statement.execute("drop table if exists t_line");
            statement.execute("drop table if exists t_stock");
            connection.setAutoCommit(false);
            statement.execute("create table t_stock (s_w_id int, s_i_id int, s_quantity int, primary key (s_w_id, s_i_id))");
            statement.execute("create table t_line (l_w_id int, l_id int, l_supply_w_id int, l_i_id int, primary key (l_w_id, l_id))");
            statement.execute("insert into t_stock (s_w_id, s_i_id, s_quantity) values (1, 1, 10), (2, 1, 10)");
            statement.execute("insert into t_line (l_w_id, l_id, l_supply_w_id, l_i_id) values (1, 1, 2, 1), (2, 1, 1, 1)");
            statement.execute(key); // validated against the rows of the transaction: each line's stock is on the other data source
            statement.execute("alter table t_line drop constraint l_stock_fkey");
            statement.execute(key);
            connection.commit();
            connection.setAutoCommit(true);
            assertEquals("t_line l_stock_fkey\n", placeholders("ds_0"));
            assertEquals("t_line l_stock_fkey\n", placeholders("ds_1"));
            SQLException orphan = assertThrows(SQLException.class, () -> statement.execute("insert into t_line values (1, 2, 2, 9)"));
            assertEquals("23503", orphan.getSQLState(), orphan.getMessage());

            connection.setAutoCommit(false);
            statement.execute("insert into t_stock values (2, 5, 1)");
            statement.execute("insert into t_line values (1, 3, 2, 5)"); // its stock is the transaction's
            statement.execute("create table t_solo_fk (id int primary key)");
            SQLException invalid = assertThrows(SQLException.class,
                    () -> statement.execute("alter table t_line add constraint l_other_fkey foreign key (l_w_id, l_i_id) references t_stock (s_w_id, s_i_id)"));
            assertEquals("23503", invalid.getSQLState(), invalid.getMessage());
            assertEquals("insert or update on table \"t_line\" violates foreign key constraint \"l_other_fkey\"", serverMessage(invalid));
            connection.rollback();
            connection.setAutoCommit(true);
            assertEquals(0, count(statement, "select count(*) from pg_tables where tablename = 't_solo_fk'"));
            assertEquals("t_line l_stock_fkey\n", placeholders("ds_0"), "the failed ADD left nothing");

            connection.setAutoCommit(false);
            statement.execute("alter table t_line drop constraint l_stock_fkey");
            statement.execute("drop table t_stock");
            statement.execute("create table t_stock (s_w_id int, s_i_id int, primary key (s_w_id, s_i_id))");
            SQLException notUnique = assertThrows(SQLException.class,
                    () -> statement.execute("alter table t_line add foreign key (l_supply_w_id) references t_stock (s_w_id)"));
            assertEquals("42830", notUnique.getSQLState(), notUnique.getMessage());
            connection.rollback();
            connection.setAutoCommit(true);
            statement.execute("drop table t_line");
            statement.execute("drop table t_stock");

            // One query string of several statements: an implicit transaction, as a migration file sent whole.
            statement.execute("create table t_stock (s_w_id int, s_i_id int, primary key (s_w_id, s_i_id));"
                    + "create table t_line (l_w_id int, l_id int, l_supply_w_id int, l_i_id int, primary key (l_w_id, l_id));"
                    + "insert into t_stock (s_w_id, s_i_id) values (2, 1);insert into t_line (l_w_id, l_id, l_supply_w_id, l_i_id) values (1, 1, 2, 1);" + key);
            assertEquals("t_line l_stock_fkey\n", placeholders("ds_1"));
            statement.execute("drop table t_line");
            statement.execute("drop table t_stock");
        }
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

    /** The notices, each with its detail's lines sorted (PostgreSQL lists the objects in the order it finds them). */
    private static String notices(SQLWarning warning) {
        List<String> result = new java.util.ArrayList<>();
        for (SQLWarning each = warning; each != null; each = each.getNextWarning()) {
            String notice = each instanceof org.postgresql.util.PSQLWarning w && w.getServerErrorMessage() != null
                    ? w.getServerErrorMessage().getMessage() : each.getMessage();
            if (each instanceof org.postgresql.util.PSQLWarning w && w.getServerErrorMessage() != null && w.getServerErrorMessage().getDetail() != null) {
                notice += " DETAIL " + String.join(" | ", w.getServerErrorMessage().getDetail().lines().sorted().toList());
            }
            result.add(notice);
        }
        return String.join(" ;; ", result);
    }

    private static String rows(Statement statement, String sql) throws SQLException {
        StringBuilder result = new StringBuilder();
        try (ResultSet rs = statement.executeQuery(sql)) {
            while (rs.next()) {
                result.append(result.isEmpty() ? "" : ",").append(rs.getString(1));
            }
        }
        return result.toString();
    }

    private static String warnings(SQLWarning warning) {
        StringBuilder result = new StringBuilder();
        for (SQLWarning each = warning; each != null; each = each.getNextWarning()) {
            result.append(each.getMessage());
            if (each instanceof org.postgresql.util.PSQLWarning w && w.getServerErrorMessage() != null && w.getServerErrorMessage().getDetail() != null) {
                result.append(" DETAIL ").append(w.getServerErrorMessage().getDetail().replace("\n", " | "));
            }
            result.append(" ;; ");
        }
        return result.toString();
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

    private static Connection proxy() throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + proxy.port() + "/sharding_db?connectTimeout=10&socketTimeout=60", "root", "root");
    }

    private static String url(String database) {
        return "jdbc:postgresql://127.0.0.1:" + postgres.getPort() + "/" + database;
    }
}
