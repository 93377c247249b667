package io.ashlar.bootstrap.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A stand-alone sequence of the sharded logical database (no column owns it) is in the catalog once, with the
 * definition its client declared, as on one PostgreSQL: Hibernate's SEQUENCE generator makes {@code CREATE SEQUENCE
 * t_order_item_seq START 1 INCREMENT 50} and its schema validation reads {@code information_schema.sequences} back,
 * comparing the increment with its allocation size; Flyway's clean drops the sequences it lists. The copies on the
 * data sources are interleaved (increment 100 on each of two), which clients must not see. Each view of it is
 * compared with the reference database, where the same statements made it.
 */
final class StandaloneSequenceTest {

    /** What Hibernate's schema validation reads of its sequences (the catalog column names the database). */
    private static final String INFORMATION_SCHEMA = "SELECT sequence_schema, sequence_name, data_type, start_value,"
            + " minimum_value, maximum_value, increment, cycle_option FROM information_schema.sequences"
            + " WHERE sequence_name LIKE 's\\_%' ORDER BY 1, 2";
    private static final String PG_SEQUENCES = "SELECT schemaname, sequencename, data_type, start_value, min_value, max_value,"
            + " increment_by, cycle, cache_size FROM pg_sequences WHERE sequencename LIKE 's\\_%' ORDER BY 1, 2";
    /** psql's {@code \ds} (owner left out: the catalog database's is the backend role). */
    private static final String PSQL_DS = "SELECT n.nspname as \"Schema\", c.relname as \"Name\","
            + " CASE c.relkind WHEN 'r' THEN 'table' WHEN 'S' THEN 'sequence' END as \"Type\""
            + " FROM pg_catalog.pg_class c LEFT JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace"
            + " WHERE c.relkind IN ('S','') AND n.nspname <> 'pg_catalog' AND n.nspname !~ '^pg_toast'"
            + " AND n.nspname <> 'information_schema' AND pg_catalog.pg_table_is_visible(c.oid) ORDER BY 1,2";

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
    void aSequenceMadeThroughTheProxyIsInTheCatalogWithTheIncrementGiven() throws SQLException {
        try (Connection proxied = databases.proxy(""); Connection reference = databases.reference("");
                Connection other = databases.proxy("")) {
            both(proxied, reference, "CREATE SEQUENCE s_order_item START 1 INCREMENT 50");
            assertEquals(List.of("public | s_order_item | bigint | 1 | 1 | 9223372036854775807 | 50 | NO"),
                    rows(other, INFORMATION_SCHEMA), "another session, as Hibernate's validation reads it");
            assertSameIn(reference, other, INFORMATION_SCHEMA);
            assertSameIn(reference, other, PG_SEQUENCES);
            assertSameIn(reference, other, PSQL_DS);
            assertEquals(sequenceTables(reference), sequenceTables(other), "pgjdbc's getTables of type SEQUENCE");
            try (Connection shard = databases.shard("ds_1")) {
                assertEquals(List.of("51 | 100"), rows(shard, "SELECT start_value, increment_by FROM pg_sequences"
                        + " WHERE sequencename = 's_order_item'"), "the copy on ds_1 stays interleaved");
            }
            long first = single(proxied, "SELECT nextval('s_order_item')");
            long second = single(proxied, "SELECT nextval('s_order_item')");
            assertEquals(1, first, "nextval through the proxy");
            assertNotEquals(first, second);

            both(proxied, reference, "ALTER SEQUENCE s_order_item INCREMENT BY 20 MAXVALUE 1000000");
            assertSameIn(reference, other, INFORMATION_SCHEMA);
            assertSameIn(reference, other, PG_SEQUENCES);

            both(proxied, reference, "ALTER SEQUENCE s_order_item CACHE 10 CYCLE");
            both(proxied, reference, "ALTER SEQUENCE s_order_item RENAME TO s_order_line");
            assertSameIn(reference, other, PG_SEQUENCES);
            assertSameIn(reference, other, PSQL_DS);

            both(proxied, reference, "DROP SEQUENCE s_order_line");
            assertEquals(List.of(), rows(other, INFORMATION_SCHEMA), "after DROP SEQUENCE");
            assertSameIn(reference, other, PSQL_DS);
        }
    }

    @Test
    void aSequenceMadeInATransactionIsSeenInItAtOnceAndARollbackLeavesNothing() throws SQLException {
        try (Connection proxied = databases.proxy(""); Connection reference = databases.reference("");
                Connection other = databases.proxy("")) {
            proxied.setAutoCommit(false);
            reference.setAutoCommit(false);
            both(proxied, reference, "CREATE SEQUENCE s_in_block INCREMENT 50");
            assertSameIn(reference, proxied, INFORMATION_SCHEMA);
            assertEquals(List.of(), rows(other, INFORMATION_SCHEMA), "another session before the end of the block");
            proxied.rollback();
            reference.rollback();
            assertSameIn(reference, proxied, INFORMATION_SCHEMA);
            assertEquals(List.of(), rows(other, INFORMATION_SCHEMA), "another session after ROLLBACK");

            both(proxied, reference, "CREATE SEQUENCE s_in_block INCREMENT 50");
            both(proxied, reference, "ALTER SEQUENCE s_in_block INCREMENT BY 25 START WITH 10");
            assertSameIn(reference, proxied, INFORMATION_SCHEMA);
            proxied.commit();
            reference.commit();
            assertSameIn(reference, other, INFORMATION_SCHEMA);
            assertSameIn(reference, other, PG_SEQUENCES);

            both(proxied, reference, "DROP SEQUENCE s_in_block");
            assertEquals(List.of(), rows(proxied, INFORMATION_SCHEMA), "in the block, after its DROP SEQUENCE");
            proxied.rollback();
            reference.rollback();
            assertSameIn(reference, other, INFORMATION_SCHEMA);
            both(proxied, reference, "DROP SEQUENCE s_in_block");
            proxied.commit();
            reference.commit();
            assertEquals(List.of(), rows(other, INFORMATION_SCHEMA), "after DROP SEQUENCE committed");
        }
    }

    @Test
    void aSequenceOwnedByAShardedTablesColumnLeavesItsShellAlone() throws SQLException {
        String shell = "SELECT c.oid FROM pg_class c WHERE c.relname = 't_order'";
        try (Connection proxied = databases.proxy(""); Connection other = databases.proxy("")) {
            List<String> before = rows(other, shell);
            proxied.setAutoCommit(false);
            try (Statement statement = proxied.createStatement()) {
                statement.execute("CREATE SEQUENCE s_owned INCREMENT 50 OWNED BY t_order.order_id");
                proxied.commit();
                statement.execute("REFRESH TABLE METADATA"); // warns that t_order_1 owns a sequence t_order_0 has not
                assertEquals(before, rows(other, shell), "the shell of t_order was not made again");
                assertEquals(List.of(), rows(other, INFORMATION_SCHEMA), "not covered: its copies belong to actual tables");
                statement.execute("DROP SEQUENCE s_owned");
                proxied.commit();
            }
        }
    }

    @Test
    void aSequenceADefaultUsesKeepsItsDefinition() throws SQLException {
        try (Connection proxied = databases.proxy(""); Connection reference = databases.reference("");
                Connection other = databases.proxy("")) {
            both(proxied, reference, "CREATE SEQUENCE s_code START 100 INCREMENT 5");
            both(proxied, reference, "CREATE TABLE t_ddl (id bigint PRIMARY KEY DEFAULT nextval('s_code'), label text)");
            assertSameIn(reference, other, INFORMATION_SCHEMA);
            assertEquals(List.of("nextval('s_code'::regclass)"), rows(other, "SELECT column_default FROM information_schema.columns"
                    + " WHERE table_name = 't_ddl' AND column_name = 'id'"));
            both(proxied, reference, "DROP TABLE t_ddl");
            assertSameIn(reference, other, INFORMATION_SCHEMA);
            both(proxied, reference, "DROP SEQUENCE s_code");
            assertEquals(List.of(), rows(other, INFORMATION_SCHEMA));
        }
    }

    @Test
    void refreshTableMetadataFindsSequencesFromTheirCopies() throws SQLException {
        // Interleaved by hand as the proxy does it (start 5, increment 10 over two data sources), and alike on both
        // (made on the backends directly): the logical definitions are 5 by 10, and the copies' own.
        for (String dataSource : List.of("ds_0", "ds_1")) {
            try (Connection shard = databases.shard(dataSource); Statement statement = shard.createStatement()) {
                statement.execute("CREATE SEQUENCE s_behind AS integer INCREMENT 20 START " + (dataSource.equals("ds_0") ? 5 : 15)
                        + " MAXVALUE 100000 CACHE 3");
                statement.execute("CREATE SEQUENCE s_alike START 7");
            }
        }
        try (Connection reference = databases.reference(""); Statement statement = reference.createStatement()) {
            statement.execute("CREATE SEQUENCE s_behind AS integer INCREMENT 10 START 5 MAXVALUE 100000 CACHE 3");
            statement.execute("CREATE SEQUENCE s_alike START 7");
        }
        // The catalog database lost one made through the proxy, as a catalog made anew at start would lack it.
        try (Connection proxied = databases.proxy(""); Statement statement = proxied.createStatement();
                Connection reference = databases.reference(""); Statement direct = reference.createStatement()) {
            statement.execute("CREATE SEQUENCE s_lost INCREMENT 50");
            direct.execute("CREATE SEQUENCE s_lost INCREMENT 50");
        }
        try (Connection catalog = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + databases.backendPort() + "/"
                + CatalogDatabases.LOGICAL_DATABASE, CatalogDatabases.BACKEND_USER, ""); Statement statement = catalog.createStatement()) {
            statement.execute("DROP SEQUENCE s_lost");
        }
        try (Connection proxied = databases.proxy(""); Statement statement = proxied.createStatement();
                Connection reference = databases.reference("")) {
            statement.execute("REFRESH TABLE METADATA");
            assertEquals(List.of("public | s_alike | bigint | 7 | 1 | 9223372036854775807 | 1 | NO",
                    "public | s_behind | integer | 5 | 1 | 100000 | 10 | NO",
                    "public | s_lost | bigint | 1 | 1 | 9223372036854775807 | 50 | NO"), rows(proxied, INFORMATION_SCHEMA));
            assertSameIn(reference, proxied, PG_SEQUENCES);
            both(proxied, reference, "DROP SEQUENCE s_alike, s_behind, s_lost");
            assertEquals(List.of(), rows(proxied, INFORMATION_SCHEMA));
        }
    }

    private static void both(Connection proxied, Connection reference, String sql) throws SQLException {
        try (Statement viaProxy = proxied.createStatement(); Statement direct = reference.createStatement()) {
            viaProxy.execute(sql);
            direct.execute(sql);
        }
    }

    private static void assertSameIn(Connection reference, Connection proxied, String sql) throws SQLException {
        assertEquals(rows(reference, sql), rows(proxied, sql), sql);
    }

    private static List<String> sequenceTables(Connection connection) throws SQLException {
        List<String> result = new ArrayList<>();
        try (ResultSet rows = connection.getMetaData().getTables(null, "public", "s\\_%", new String[] {"SEQUENCE"})) {
            while (rows.next()) {
                result.add(rows.getString("TABLE_SCHEM") + "." + rows.getString("TABLE_NAME") + " " + rows.getString("TABLE_TYPE"));
            }
        }
        return result;
    }

    private static long single(Connection connection, String sql) throws SQLException {
        try (Statement statement = connection.createStatement(); ResultSet rows = statement.executeQuery(sql)) {
            rows.next();
            return rows.getLong(1);
        }
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
