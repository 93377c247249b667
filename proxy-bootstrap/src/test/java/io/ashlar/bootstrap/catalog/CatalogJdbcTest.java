package io.ashlar.bootstrap.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;

/**
 * What pgjdbc (and so DBeaver and IntelliJ, which call its DatabaseMetaData on connect) sees of the logical
 * database through the proxy, compared with what it sees of one PostgreSQL database holding the same schema: the
 * tables, columns, keys and indexes; result columns that name their logical table; session information answered
 * for the proxy user and the logical database; INSERT without a column list; errors that name logical tables.
 */
final class CatalogJdbcTest {

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

    @AfterEach
    void removeRows() throws SQLException {
        for (Connection each : List.of(databases.proxy(""), databases.reference(""))) {
            try (each; Statement statement = each.createStatement()) {
                statement.execute("DELETE FROM t_order_item");
                statement.execute("DELETE FROM t_order");
                statement.execute("DELETE FROM t_dict");
            }
        }
    }

    /** One DatabaseMetaData call, its rows as text. */
    private interface MetadataCall {
        ResultSet call(DatabaseMetaData metaData) throws SQLException;
    }

    @Test
    void databaseMetaDataDescribesTheLogicalTables() throws SQLException {
        List<MetadataCall> calls = List.of(
                m -> m.getTables(null, "public", "%", new String[] {"TABLE"}),
                m -> m.getTables(null, "public", "%", new String[] {"SEQUENCE", "INDEX"}),
                m -> m.getTables(null, null, "t_order%", null),
                m -> m.getColumns(null, "public", "t_order", "%"),
                m -> m.getColumns(null, "public", "t_order_item", "%"),
                m -> m.getColumns(null, "public", "t_user", "%"),
                m -> m.getColumns(null, "public", "t_dict", "%"),
                m -> m.getColumns(null, "app", "settings", "%"),
                m -> m.getPrimaryKeys(null, "public", "t_order"),
                m -> m.getPrimaryKeys(null, "public", "t_order_item"),
                m -> m.getIndexInfo(null, "public", "t_order", false, false),
                m -> m.getIndexInfo(null, "public", "t_user", true, false),
                m -> m.getImportedKeys(null, "public", "t_order_item"),
                m -> m.getExportedKeys(null, "public", "t_order"),
                m -> m.getCrossReference(null, "public", "t_order", null, "public", "t_order_item"),
                m -> m.getSchemas(),
                m -> m.getTables(null, "public", "t_order_0", null),
                m -> m.getColumns(null, "public", "t_order_0", "%"));
        try (Connection proxied = databases.proxy(""); Connection reference = databases.reference("")) {
            for (int i = 0; i < calls.size(); i++) {
                String expected = dump(calls.get(i).call(reference.getMetaData()));
                String actual = dump(calls.get(i).call(proxied.getMetaData()));
                assertEquals(expected, actual, "DatabaseMetaData call #" + i + " through the proxy");
            }
        }
    }

    /**
     * A table with columns of the user's own types (an enum, a domain, a composite type) is in the catalog as in one
     * PostgreSQL database: the catalog database gets the types before the table's shell. The shell failed without
     * them, and the table was missing from pg_class ({@code 't_typed'::regclass} failed with 42P01), from
     * information_schema and from DatabaseMetaData.
     */
    @Test
    void tablesWithColumnsOfTheUsersTypesAreInTheCatalog() throws SQLException {
        String[] made = {"CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')", "CREATE DOMAIN posint AS int NOT NULL CHECK (VALUE > 0)",
            "CREATE TYPE pair AS (a int, b text)", "CREATE TABLE t_typed (id int PRIMARY KEY, m mood, p posint, q pair, ms mood[])"};
        String[] dropped = {"DROP TABLE IF EXISTS t_typed", "DROP TYPE IF EXISTS pair", "DROP DOMAIN IF EXISTS posint",
            "DROP TYPE IF EXISTS mood"};
        for (Connection each : List.of(databases.proxy(""), databases.reference(""))) {
            try (each; Statement statement = each.createStatement()) {
                for (String sql : made) {
                    statement.execute(sql);
                }
            }
        }
        try (Connection proxied = databases.proxy(""); Connection reference = databases.reference("")) {
            // The columns, by name and nullability (pgjdbc names a user type by looking its OID up apart, in the
            // default data source, whose OIDs for it are not the catalog database's: see docs/sharding.md).
            assertEquals(columns(reference.getMetaData().getColumns(null, "public", "t_typed", "%")),
                    columns(proxied.getMetaData().getColumns(null, "public", "t_typed", "%")), "DatabaseMetaData.getColumns");
            String sql = "SELECT 't_typed'::regclass::text, column_name, data_type, udt_name, domain_name"
                    + " FROM information_schema.columns WHERE table_name = 't_typed' ORDER BY ordinal_position";
            assertEquals(rows(reference, sql), rows(proxied, sql));
        } finally {
            for (Connection each : List.of(databases.proxy(""), databases.reference(""))) {
                try (each; Statement statement = each.createStatement()) {
                    for (String sql : dropped) {
                        statement.execute(sql);
                    }
                }
            }
        }
    }

    /**
     * Views made through the proxy are in the catalog as in one PostgreSQL database: DatabaseMetaData, pg_views and
     * information_schema list them with their columns (psql's {@code \dv}, Flyway's clean drops what they list), in a
     * transaction block before it commits, and still after a change of the table they read made its shell again.
     * The catalog had none before: Flyway's migrate after its clean failed with 42P07 on a view left behind.
     */
    @Test
    void viewsMadeThroughTheProxyAreInTheCatalog() throws SQLException {
        String views = "SELECT table_name, view_definition FROM information_schema.views WHERE table_schema = 'public'"
                + " ORDER BY table_name";
        String columns = "SELECT table_name, column_name, data_type FROM information_schema.columns"
                + " WHERE table_name LIKE 'v\\_dict%' ORDER BY table_name, ordinal_position";
        List<Connection> both = List.of(databases.proxy(""), databases.reference(""));
        try {
            for (Connection each : both) {
                try (Statement statement = each.createStatement()) {
                    statement.execute("CREATE VIEW v_dict AS SELECT code, label FROM t_dict WHERE rank IS NOT NULL");
                    statement.execute("CREATE VIEW v_dict_codes AS SELECT code FROM v_dict");
                    statement.execute("CREATE OR REPLACE VIEW v_dict AS SELECT code, label, rank FROM t_dict WHERE rank IS NOT NULL");
                }
            }
            Connection proxied = both.get(0);
            Connection reference = both.get(1);
            assertEquals(2, rows(reference, views).size());
            assertEquals(rows(reference, views), rows(proxied, views));
            assertEquals(rows(reference, columns), rows(proxied, columns));
            assertEquals(dump(reference.getMetaData().getTables(null, "public", "v%", new String[] {"VIEW"})),
                    dump(proxied.getMetaData().getTables(null, "public", "v%", new String[] {"VIEW"})));
            // A change of the table makes its shell again (its views went with it), and they are made again.
            for (Connection each : both) {
                try (Statement statement = each.createStatement()) {
                    statement.execute("ALTER TABLE t_dict ADD COLUMN note text");
                    statement.execute("ALTER TABLE t_dict DROP COLUMN note");
                }
            }
            assertEquals(rows(reference, views), rows(proxied, views));
            // In a block, the block's own views are seen before it ends, and gone with its rollback. A table found on
            // a data source meanwhile (made behind the proxy's back) gets its shell without waiting for the locks the
            // block's view DDL holds: the catalog's views were once read there, and the session hung on itself.
            try (Connection shard = databases.shard("ds_0"); Statement statement = shard.createStatement()) {
                statement.execute("CREATE TABLE t_behind (id int)");
            }
            for (Connection each : both) {
                each.setAutoCommit(false);
                try (Statement statement = each.createStatement()) {
                    statement.execute("DROP VIEW v_dict_codes");
                    statement.execute("CREATE VIEW v_dict_ranked AS SELECT code FROM t_dict ORDER BY rank");
                }
            }
            try (Statement statement = proxied.createStatement()) {
                statement.setQueryTimeout(5);
                try (ResultSet rs = statement.executeQuery("SELECT count(*) FROM t_behind")) {
                    assertTrue(rs.next());
                    assertEquals(0, rs.getInt(1));
                }
            }
            assertEquals(rows(reference, views), rows(proxied, views));
            for (Connection each : both) {
                each.rollback();
                each.setAutoCommit(true);
            }
            assertEquals(rows(reference, views), rows(proxied, views));
            // A view of a table the same transaction made (Flyway runs a migration in one), and then a rename of the
            // column it reads: PostgreSQL rewrites the view's definition, and so does the catalog.
            for (Connection each : both) {
                each.setAutoCommit(false);
                try (Statement statement = each.createStatement()) {
                    statement.execute("CREATE TABLE t_viewed (id int)");
                    statement.execute("CREATE VIEW v_viewed AS SELECT id FROM t_viewed");
                }
                each.commit();
                each.setAutoCommit(true);
            }
            assertEquals(rows(reference, views), rows(proxied, views));
            for (Connection each : both) {
                try (Statement statement = each.createStatement()) {
                    statement.execute("ALTER TABLE t_viewed RENAME COLUMN id TO ident");
                }
            }
            assertEquals(rows(reference, views), rows(proxied, views));
            for (Connection each : both) {
                try (Statement statement = each.createStatement()) {
                    statement.execute("DROP VIEW v_viewed");
                    statement.execute("DROP TABLE t_viewed");
                    statement.execute("DROP VIEW v_dict_codes");
                    statement.execute("DROP VIEW v_dict");
                }
            }
            assertEquals(List.of(), rows(proxied, views));
        } finally {
            for (Connection each : both) {
                try (each; Statement statement = each.createStatement()) {
                    if (!each.getAutoCommit()) {
                        each.rollback();
                        each.setAutoCommit(true);
                    }
                    statement.execute("DROP VIEW IF EXISTS v_dict_ranked");
                    statement.execute("DROP TABLE IF EXISTS t_behind");
                    statement.execute("DROP VIEW IF EXISTS v_viewed");
                    statement.execute("DROP TABLE IF EXISTS t_viewed");
                    statement.execute("DROP VIEW IF EXISTS v_dict_codes");
                    statement.execute("DROP VIEW IF EXISTS v_dict");
                }
            }
        }
    }

    private static List<String> columns(ResultSet rows) throws SQLException {
        List<String> result = new ArrayList<>();
        try (rows) {
            while (rows.next()) {
                result.add(rows.getString("COLUMN_NAME") + " " + rows.getString("IS_NULLABLE") + " " + rows.getInt("ORDINAL_POSITION"));
            }
        }
        return result;
    }

    /** A client that lists schemas, then tables by schema OID (DBeaver's navigator), finds the tables of each. */
    @Test
    void schemaOidsAreThoseTheTablesReferTo() throws SQLException {
        String tables = "SELECT n.nspname, c.relname FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n"
                + " ON n.oid = c.relnamespace WHERE c.relkind = 'r' AND c.relnamespace = ? ORDER BY 1, 2";
        try (Connection proxied = databases.proxy(""); Connection reference = databases.reference("")) {
            for (String schema : List.of("app", "public", "reports")) {
                List<String> expected = tablesOf(reference, schema, tables);
                assertEquals(expected, tablesOf(proxied, schema, tables), "tables of schema " + schema);
            }
        }
    }

    private static List<String> tablesOf(Connection connection, String schema, String tables) throws SQLException {
        long oid;
        try (PreparedStatement statement = connection.prepareStatement("SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = ?")) {
            statement.setString(1, schema);
            try (ResultSet rows = statement.executeQuery()) {
                assertEquals(true, rows.next(), "schema " + schema);
                oid = rows.getLong(1);
            }
        }
        List<String> result = new ArrayList<>();
        try (PreparedStatement statement = connection.prepareStatement(tables)) {
            statement.setLong(1, oid);
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    result.add(rows.getString(1) + "." + rows.getString(2));
                }
            }
        }
        return result;
    }

    @Test
    void resultColumnsNameTheLogicalTable() throws SQLException {
        insertOrders();
        List<String> queries = List.of("SELECT * FROM t_order ORDER BY order_id",
                "SELECT * FROM t_order WHERE order_id = 7 AND user_id = 3",
                "SELECT o.order_id, o.status, i.item_id, i.price FROM t_order o JOIN t_order_item i ON o.order_id = i.order_id"
                        + " ORDER BY i.item_id",
                "SELECT u.*, 1 AS one FROM t_user u",
                "SELECT code, label FROM t_dict");
        try (Connection proxied = databases.proxy(""); Connection reference = databases.reference("")) {
            // Twice over, the statements taking turns: a description the proxy met before (on the same backend
            // connection and session) names the logical table as the first did.
            for (int round = 0; round < 2; round++) {
                for (String each : queries) {
                    try (Statement p = proxied.createStatement(); Statement r = reference.createStatement();
                            ResultSet viaProxy = p.executeQuery(each); ResultSet direct = r.executeQuery(each)) {
                        assertEquals(describe(direct.getMetaData()), describe(viaProxy.getMetaData()), each);
                    }
                    // A Describe before the first execution (what a GUI does to lay out its grid).
                    try (PreparedStatement p = proxied.prepareStatement(each); PreparedStatement r = reference.prepareStatement(each)) {
                        assertEquals(describe(r.getMetaData()), describe(p.getMetaData()), "Describe of " + each);
                    }
                }
            }
            // One statement executed past pgjdbc's prepareThreshold (server-prepared from the fifth on).
            try (PreparedStatement p = proxied.prepareStatement(queries.get(1)); PreparedStatement r = reference.prepareStatement(queries.get(1))) {
                for (int i = 0; i < 7; i++) {
                    try (ResultSet viaProxy = p.executeQuery(); ResultSet direct = r.executeQuery()) {
                        assertEquals(describe(direct.getMetaData()), describe(viaProxy.getMetaData()), "execution " + i);
                    }
                }
            }
        }
    }

    /**
     * Reads that span shards, finished by PostgreSQL over temporary tables on a coordinator, describe their columns as
     * the logical tables' too (the temporary tables' OIDs and column numbers would name nothing a client can see),
     * executed and in a Describe before the first execution.
     */
    @Test
    void recursiveReadColumnsNameTheLogicalTable() throws SQLException {
        insertOrders();
        List<String> queries = List.of("SELECT order_id, status, rank() OVER (ORDER BY order_id) AS r FROM t_order ORDER BY order_id",
                "SELECT o.note, o.order_id, u.name, u.user_id FROM t_order o CROSS JOIN t_user u ORDER BY o.order_id, u.user_id",
                "SELECT i.price, i.item_id FROM t_order_item i WHERE i.order_id IN (SELECT order_id FROM t_order WHERE status = 'PAID')"
                        + " AND i.user_id IN (SELECT user_id FROM t_user) ORDER BY i.item_id",
                "SELECT string_agg(status, ',' ORDER BY order_id) AS s, max(created_at) FROM t_order");
        try (Connection proxied = databases.proxy(""); Connection reference = databases.reference("")) {
            for (String each : queries) {
                try (Statement p = proxied.createStatement(); Statement r = reference.createStatement();
                        ResultSet viaProxy = p.executeQuery(each); ResultSet direct = r.executeQuery(each)) {
                    assertEquals(describe(direct.getMetaData()), describe(viaProxy.getMetaData()), each);
                    assertEquals(dump(direct), dump(viaProxy), each);
                }
                try (PreparedStatement p = proxied.prepareStatement(each); PreparedStatement r = reference.prepareStatement(each)) {
                    assertEquals(describe(r.getMetaData()), describe(p.getMetaData()), "Describe of " + each);
                }
                // pgjdbc's base column and table names, which GUIs write a result grid's changes back with
                try (Statement p = proxied.createStatement(); ResultSet viaProxy = p.executeQuery(each)) {
                    org.postgresql.PGResultSetMetaData metaData = viaProxy.getMetaData().unwrap(org.postgresql.PGResultSetMetaData.class);
                    for (int i = 1; i <= viaProxy.getMetaData().getColumnCount(); i++) {
                        String table = metaData.getBaseTableName(i);
                        assertTrue(table.isEmpty() || table.equals("t_order") || table.equals("t_user") || table.equals("t_order_item"),
                                each + " column " + i + ": " + table);
                    }
                }
            }
        }
    }

    @Test
    void sessionInformationIsTheLogicalDatabasesAndTheProxyUsers() throws SQLException {
        String sql = "SELECT current_user, session_user, user, current_role, current_database(), current_catalog,"
                + " pg_catalog.current_database(), inet_server_port(), inet_server_addr()";
        try (Connection proxied = databases.proxy(""); Connection reference = databases.reference("");
                Statement p = proxied.createStatement(); Statement r = reference.createStatement();
                ResultSet viaProxy = p.executeQuery(sql); ResultSet direct = r.executeQuery(sql)) {
            assertEquals(labels(direct.getMetaData()), labels(viaProxy.getMetaData()), "column names and types");
            viaProxy.next();
            List<String> values = new ArrayList<>();
            for (int i = 1; i <= 9; i++) {
                values.add(viaProxy.getString(i));
            }
            assertEquals(List.of("root", "root", "root", "root", "sharding_db", "sharding_db", "sharding_db",
                    String.valueOf(databases.proxyPort()), "127.0.0.1"), values);
        }
        try (Connection proxied = databases.proxy(""); PreparedStatement statement = proxied.prepareStatement(
                "SELECT count(*) FROM t_order WHERE note = current_user OR status = ?")) {
            statement.setString(1, "none");
            try (ResultSet rows = statement.executeQuery()) {
                rows.next();
                assertEquals(0, rows.getInt(1));
            }
        }
    }

    @Test
    void insertWithoutAColumnListFillsTheColumnsInOrder() throws SQLException {
        insert(List.of(
                "INSERT INTO t_order VALUES (7, 3, 'PAID', 12.50, 'first', '2024-01-02 03:04:05', 1),"
                        + " (8, 4, 'NEW', NULL, NULL, '2024-02-03 04:05:06', 2), (9, 3, 'NEW', 3.00, 'x', NULL, 3)",
                "INSERT INTO t_order AS o VALUES (10, 4)",
                "INSERT INTO public.t_order_item VALUES (70, 7, 3, 2, 6.250), (71, 7, 3, 1, 0.001), (80, 8, 4, NULL, NULL)",
                "INSERT INTO t_dict VALUES ('a', 'Alpha', 1), ('b', 'Beta', NULL)"));
        try (Connection proxied = databases.proxy(""); Connection reference = databases.reference("")) {
            for (Connection each : List.of(proxied, reference)) {
                try (PreparedStatement statement = each.prepareStatement("INSERT INTO t_order VALUES (?, ?, ?, ?)")) {
                    statement.setLong(1, 20);
                    statement.setInt(2, 5);
                    statement.setString(3, "PREPARED");
                    statement.setBigDecimal(4, new java.math.BigDecimal("1.25"));
                    assertEquals(1, statement.executeUpdate());
                }
                // A batch (pgjdbc's executeBatch, one backend batch per shard), with a session value too.
                try (PreparedStatement statement = each.prepareStatement("INSERT INTO t_order VALUES (?, ?, current_user)")) {
                    for (int i = 21; i < 25; i++) {
                        statement.setLong(1, i);
                        statement.setInt(2, i % 3);
                        statement.addBatch();
                    }
                    assertEquals(4, statement.executeBatch().length);
                }
            }
            for (String each : List.of("SELECT order_id, user_id, amount, CASE WHEN order_id < 21 THEN status"
                    + " ELSE (status = current_user)::text END, note, CASE WHEN order_id < 10 THEN created_at END FROM t_order ORDER BY order_id",
                    "SELECT * FROM t_order_item ORDER BY item_id", "SELECT * FROM t_dict ORDER BY code")) {
                assertEquals(rows(reference, each), rows(proxied, each), each);
            }
            assertEquals(List.of("root"), rows(proxied, "SELECT DISTINCT status FROM t_order WHERE order_id BETWEEN 21 AND 24"),
                    "current_user in a batch is the proxy user");
        }
    }

    @Test
    void errorsNameTheLogicalTable() throws SQLException {
        insertOrders();
        List<String> failing = List.of(
                "INSERT INTO t_order (order_id, user_id, status) VALUES (7, 3, 'DUPLICATE')",
                "INSERT INTO t_order_item (item_id, order_id, user_id) VALUES (900, 999, 3)",
                "INSERT INTO t_order (order_id, user_id, status) VALUES (30, 2, NULL)",
                "INSERT INTO t_order (order_id, user_id, status) VALUES (31, 2, '')",
                "SELECT no_such_column FROM t_order WHERE order_id = 7 AND user_id = 3",
                "INSERT INTO t_order_item (item_id, order_id, user_id, quantity) VALUES (901, 7, 3, 0)");
        try (Connection proxied = databases.proxy(""); Connection reference = databases.reference("")) {
            for (String each : failing) {
                ServerErrorMessage expected = error(reference, each);
                ServerErrorMessage actual = error(proxied, each);
                assertEquals(fields(expected), fields(actual), each);
            }
        }
    }

    @Test
    void batchErrorsNameTheLogicalTable() throws SQLException {
        insertOrders();
        String sql = "INSERT INTO t_order (order_id, user_id, note) VALUES (?, ?, ?)";
        try (Connection proxied = databases.proxy(""); Connection reference = databases.reference("")) {
            assertEquals(batchError(reference, sql), batchError(proxied, sql), sql);
        }
    }

    /** A batch whose second row has a duplicate key, as pgjdbc sends it: its error's fields. */
    private static List<String> batchError(Connection connection, String sql) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            for (long id : new long[] {40, 7}) {
                statement.setLong(1, id);
                statement.setInt(2, 3);
                statement.setString(3, "batch " + id);
                statement.addBatch();
            }
            java.sql.BatchUpdateException e = assertThrows(java.sql.BatchUpdateException.class, statement::executeBatch);
            return fields(((PSQLException) e.getNextException()).getServerErrorMessage());
        }
    }

    @Test
    void copyErrorsNameTheLogicalTable() throws SQLException {
        String copy = "COPY t_order (order_id, user_id, status, amount) FROM STDIN";
        try (Connection proxied = databases.proxy(""); Connection reference = databases.reference("")) {
            List<String> expected = copyError(reference, copy);
            assertEquals(expected, copyError(proxied, copy), copy);
        }
    }

    private static List<String> copyError(Connection connection, String copy) throws SQLException {
        org.postgresql.copy.CopyManager manager = connection.unwrap(org.postgresql.PGConnection.class).getCopyAPI();
        PSQLException e = assertThrows(PSQLException.class, () -> manager.copyIn(copy,
                new java.io.StringReader("40\t3\tNEW\tnot a number\n")), copy);
        ServerErrorMessage error = e.getServerErrorMessage();
        return List.of(error.getSQLState(), error.getMessage(), String.valueOf(error.getWhere()));
    }

    private static void insertOrders() throws SQLException {
        insert(List.of(
                "INSERT INTO t_order (order_id, user_id, status, amount, note, created_at, seq) VALUES"
                        + " (7, 3, 'PAID', 12.50, 'first', '2024-01-02 03:04:05', 1),"
                        + " (8, 4, 'NEW', NULL, NULL, '2024-02-03 04:05:06', 2), (9, 3, 'NEW', 3.00, 'x', NULL, 3)",
                "INSERT INTO t_order_item (item_id, order_id, user_id, quantity, price) VALUES"
                        + " (70, 7, 3, 2, 6.250), (71, 7, 3, 1, 0.001), (80, 8, 4, NULL, NULL)",
                "INSERT INTO t_dict (code, label, rank) VALUES ('a', 'Alpha', 1), ('b', 'Beta', NULL)",
                "INSERT INTO t_user (user_id, name, email) VALUES (1, 'ann', 'ann@example.com') ON CONFLICT DO NOTHING"));
    }

    /** Runs the same statements through the proxy and on the reference. */
    private static void insert(List<String> inserts) throws SQLException {
        for (Connection each : List.of(databases.proxy(""), databases.reference(""))) {
            try (each; Statement statement = each.createStatement()) {
                for (String insert : inserts) {
                    statement.execute(insert);
                }
            }
        }
    }

    private static ServerErrorMessage error(Connection connection, String sql) {
        PSQLException e = assertThrows(PSQLException.class, () -> {
            try (Statement statement = connection.createStatement()) {
                statement.execute(sql);
            }
        }, sql);
        assertNotNull(e.getServerErrorMessage(), sql);
        return e.getServerErrorMessage();
    }

    private static List<String> fields(ServerErrorMessage error) {
        return List.of("SQLSTATE " + error.getSQLState(), "message " + error.getMessage(), "table " + error.getTable(),
                "column " + error.getColumn(), "constraint " + error.getConstraint(), "schema " + error.getSchema(),
                "detail " + (error.getDetail() == null ? null : error.getDetail().replaceAll("\\(.*\\)\\.$", "(...).")));
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

    private static String dump(ResultSet rows) throws SQLException {
        StringBuilder result = new StringBuilder();
        try (rows) {
            ResultSetMetaData metaData = rows.getMetaData();
            while (rows.next()) {
                for (int i = 1; i <= metaData.getColumnCount(); i++) {
                    result.append(i == 1 ? "" : " | ").append(metaData.getColumnLabel(i)).append('=').append(rows.getString(i));
                }
                result.append('\n');
            }
        }
        return result.toString().replace(CatalogDatabases.REFERENCE, CatalogDatabases.LOGICAL_DATABASE);
    }

    /** What a client learns of each result column: its table, name, type, nullability, and whether it is generated. */
    private static List<String> describe(ResultSetMetaData metaData) throws SQLException {
        List<String> result = new ArrayList<>();
        for (int i = 1; i <= metaData.getColumnCount(); i++) {
            result.add(metaData.getColumnLabel(i) + " table=" + metaData.getTableName(i) + " schema=" + metaData.getSchemaName(i)
                    + " column=" + metaData.getColumnName(i) + " type=" + metaData.getColumnTypeName(i)
                    + " nullable=" + metaData.isNullable(i) + " autoIncrement=" + metaData.isAutoIncrement(i)
                    + " precision=" + metaData.getPrecision(i) + " scale=" + metaData.getScale(i));
        }
        return result;
    }

    private static List<String> labels(ResultSetMetaData metaData) throws SQLException {
        List<String> result = new ArrayList<>();
        for (int i = 1; i <= metaData.getColumnCount(); i++) {
            result.add(metaData.getColumnLabel(i) + " " + metaData.getColumnTypeName(i));
        }
        return result;
    }
}
