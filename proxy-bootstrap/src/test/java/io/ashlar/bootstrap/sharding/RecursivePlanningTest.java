package io.ashlar.bootstrap.sharding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ashlar.bootstrap.config.ModeConfig;
import io.ashlar.bootstrap.config.ServerConfig;
import io.ashlar.bootstrap.config.ServerProps;
import java.io.IOException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Reads that span shards finished by PostgreSQL over intermediate results (RecursivePlan, IntermediateResults), beyond
 * what the differential corpus checks: the budget on the rows relayed (54000, the session goes on), a read inside the
 * client's transaction that sees the transaction's own writes and leaves no temporary table behind, the clear error
 * at COMMIT of a transaction that then wrote to two data sources (PostgreSQL cannot prepare a transaction that
 * touched temporary tables), and PREVIEW: a query routed to one shard keeps its one unit, a recursive one shows what
 * each data source and the coordinator receive.
 */
final class RecursivePlanningTest {

    /** t_order rows: the binary COPY of ds_1's half is well past the budget below. */
    private static final int ROWS = 20_000;
    private static final long MEMORY_LIMIT = 1L << 20;

    private static ShardedDatabases databases;

    @BeforeAll
    static void start() throws Exception {
        ServerProps defaults = ServerProps.DEFAULTS;
        ServerProps props = new ServerProps(defaults.port(), defaults.bindAddress(), 0, false, false, -1, 1,
                defaults.frontendDatabaseProtocolType(), defaults.frontendFlushThreshold(), 0, defaults.nettyBacklog(), MEMORY_LIMIT,
                defaults.frontendTls(), defaults.authenticationTimeoutSeconds(), defaults.authDelayMilliseconds());
        databases = ShardedDatabases.start(new ServerConfig(ModeConfig.STANDALONE, List.of(ServerConfig.DEFAULT_USER), props));
        for (String dataSource : ShardingLayout.DATA_SOURCES) {
            int d = dataSource.endsWith("0") ? 0 : 1;
            try (Connection connection = databases.shard(dataSource); Statement statement = connection.createStatement()) {
                for (int t = 0; t < 2; t++) {
                    // order_id g on table g % 2 of data source user_id % 2; user_id = 2 * (g % 500) + d
                    statement.execute("INSERT INTO t_order_" + t + " (order_id, user_id, status, amount, note)"
                            + " SELECT g, 2 * (g % 500) + " + d + ", 'st' || (g % 7), g % 1000, repeat('n', g % 200)"
                            + " FROM generate_series(1, " + ROWS + ") g WHERE g % 2 = " + t + " AND g % 4 IN (" + d + ", " + (d + 2) + ")");
                }
            }
        }
        try (Connection proxy = databases.proxy(""); Statement statement = proxy.createStatement()) {
            statement.execute("INSERT INTO t_user (user_id, name, score) VALUES (1, 'a', 10), (2, 'b', 20), (3, 'c', 30), (4, 'd', 40)");
        }
    }

    @AfterAll
    static void stop() throws IOException {
        if (databases != null) {
            databases.close();
        }
    }

    @Test
    void intermediateResultsPastTheBudgetFailWith54000AndTheSessionGoesOn() throws Exception {
        try (Connection proxy = databases.proxy(""); Statement statement = proxy.createStatement()) {
            SQLException refused = assertThrows(SQLException.class, () -> statement.executeQuery("SELECT string_agg(note, ',') FROM t_order"));
            assertEquals("54000", refused.getSQLState(), refused.getMessage());
            assertTrue(refused.getMessage().contains("proxy-statement-memory-limit"), refused.getMessage());
            assertEquals(List.of("4|100"), rows(statement, "SELECT count(*) FILTER (WHERE score > 0), sum(score) FROM t_user"));
            assertEquals(List.of("2"), rows(statement, "SELECT count(*) FROM t_user WHERE user_id IN (SELECT user_id FROM t_user WHERE score > 20)"));
            proxy.setAutoCommit(false);
            assertEquals("54000", assertThrows(SQLException.class,
                    () -> statement.executeQuery("SELECT count(DISTINCT note) FROM t_order WHERE user_id IN (SELECT user_id FROM t_order)")).getSQLState());
            assertEquals("25P02", assertThrows(SQLException.class, () -> statement.executeQuery("SELECT 1")).getSQLState());
            proxy.rollback();
            assertEquals(List.of("1"), rows(statement, "SELECT 1"));
            proxy.commit();
        }
        assertNoIntermediateResultsLeft();
    }

    /**
     * INSERT ... SELECT whose SELECT spans shards holds the rows it read within the statement budget: past it, 54000
     * and nothing inserted; a duplicate key on one shard rolls back what the others inserted.
     */
    @Test
    void insertSelectAcrossShardsIsBudgetedAndAtomic() throws Exception {
        try (Connection proxy = databases.proxy(""); Statement statement = proxy.createStatement()) {
            SQLException refused = assertThrows(SQLException.class, () -> statement.executeUpdate(
                    "INSERT INTO t_log (id, user_id, level, message) SELECT order_id, user_id, status, note FROM t_order"));
            assertEquals("54000", refused.getSQLState(), refused.getMessage());
            assertTrue(refused.getMessage().contains("proxy-statement-memory-limit"), refused.getMessage());
            assertEquals(List.of("0"), rows(statement, "SELECT count(*) FROM t_log"));
            assertEquals(8, statement.executeUpdate("INSERT INTO t_log (id, user_id, level, message)"
                    + " SELECT order_id, user_id, status, 'first' FROM t_order WHERE order_id <= 8"));
            // orders 9 to 11 are new, order 8 is there already: the statement fails and inserts nothing, on any data source
            SQLException duplicate = assertThrows(SQLException.class, () -> statement.executeUpdate("INSERT INTO t_log"
                    + " (id, user_id, level, message) SELECT order_id, user_id, status, 'second' FROM t_order WHERE order_id IN (8, 9, 10, 11)"));
            assertEquals("23505", duplicate.getSQLState(), duplicate.getMessage());
            assertEquals(List.of("8|first"), rows(statement, "SELECT count(*), min(message) FROM t_log"));
            // in the client's block: its rows are seen there and go with a rollback; RETURNING in the SELECT's order
            proxy.setAutoCommit(false);
            assertEquals(List.of("20|0", "19|1", "18|0"), rows(statement, "INSERT INTO t_log (id, user_id, level, message)"
                    + " SELECT order_id, user_id, status, 'in block' FROM t_order WHERE order_id BETWEEN 18 AND 20 ORDER BY order_id DESC"
                    + " RETURNING id, user_id % 2"));
            assertEquals(List.of("11"), rows(statement, "SELECT count(*) FROM t_log"));
            proxy.rollback();
            proxy.setAutoCommit(true);
            assertEquals(List.of("8"), rows(statement, "SELECT count(*) FROM t_log"));
            statement.execute("DELETE FROM t_log");
        }
        assertNoIntermediateResultsLeft();
    }

    @Test
    void aReadInTheClientsTransactionSeesItsWritesAndLeavesNoTemporaryTable() throws Exception {
        try (Connection proxy = databases.proxy(""); Statement statement = proxy.createStatement()) {
            proxy.setAutoCommit(false);
            statement.execute("INSERT INTO t_user (user_id, name, score) VALUES (1001, 'fresh', 1), (1002, 'fresh', 2), (1003, 'fresh', 3)");
            String read = "SELECT count(*), sum(score) FROM t_user WHERE user_id IN (SELECT user_id FROM t_user WHERE name = 'fresh')";
            assertEquals(List.of("3|6"), rows(statement, read));
            // twice in the block: the second statement's intermediate results have names of their own
            assertEquals(List.of("3|6"), rows(statement, read));
            proxy.rollback();
            assertEquals(List.of("0|null"), rows(statement, read));
            proxy.commit();
            proxy.setAutoCommit(true);
            statement.execute("BEGIN READ ONLY");
            SQLException readOnly = assertThrows(SQLException.class, () -> statement.executeQuery(read));
            assertEquals("25006", readOnly.getSQLState(), readOnly.getMessage());
            assertTrue(readOnly.getMessage().contains("run it outside the read-only transaction"), readOnly.getMessage());
            statement.execute("ROLLBACK");
        }
        assertNoIntermediateResultsLeft();
    }

    @Test
    void aTransactionThatReadAcrossShardsThenWroteToTwoDataSourcesFailsAtCommitWithAClearMessage() throws Exception {
        try (Connection proxy = databases.proxy(""); Statement statement = proxy.createStatement()) {
            proxy.setAutoCommit(false);
            assertEquals(List.of("4"), rows(statement, "SELECT count(*) FROM t_user WHERE user_id IN (SELECT user_id FROM t_user)"));
            statement.execute("INSERT INTO t_user (user_id, name, score) VALUES (2001, 'late', 1), (2002, 'late', 2), (2003, 'late', 3), (2004, 'late', 4)");
            SQLException refused = assertThrows(SQLException.class, proxy::commit);
            assertEquals("0A000", refused.getSQLState(), refused.getMessage());
            assertTrue(refused.getMessage().contains("cannot prepare a transaction that has operated on temporary objects"), refused.getMessage());
            proxy.rollback();
            proxy.setAutoCommit(true);
            assertEquals(List.of("0"), rows(statement, "SELECT count(*) FROM t_user WHERE name = 'late'"));
        }
        try (Connection proxy = databases.proxy(""); Statement statement = proxy.createStatement()) {
            // in autocommit the read's temporary tables live in a transaction of their own: later writes commit
            assertEquals(List.of("4"), rows(statement, "SELECT count(*) FROM t_user WHERE user_id IN (SELECT user_id FROM t_user)"));
            proxy.setAutoCommit(false);
            statement.execute("INSERT INTO t_user (user_id, name, score) VALUES (3001, 'ok', 1), (3002, 'ok', 2), (3003, 'ok', 3), (3004, 'ok', 4)");
            proxy.commit();
            statement.execute("DELETE FROM t_user WHERE name = 'ok'");
            proxy.commit();
        }
    }

    @Test
    void whatTheMergeRefusesByTheShardsColumnTypesIsFinishedByPostgreSQL() throws Exception {
        try (Connection proxy = databases.proxy(""); Statement statement = proxy.createStatement()) {
            statement.execute("SET extra_float_digits = 0");
            // floats merged across shards need extra_float_digits >= 1; PostgreSQL prints them as the session asks
            assertEquals(List.of("100.5|100"), rows(statement, "SELECT sum(score::float8 + 0.125), sum(score) FROM t_user"));
            proxy.setAutoCommit(false);
            assertEquals(List.of("100.5|100"), rows(statement, "SELECT sum(score::float8 + 0.125), sum(score) FROM t_user"));
            assertEquals(List.of("4"), rows(statement, "SELECT count(*) FROM t_user"));
            proxy.commit();
        }
        assertNoIntermediateResultsLeft();
    }

    @Test
    void actualTablesWhoseColumnsAreInAnotherOrderAreCopiedColumnByName() throws Exception {
        for (String dataSource : ShardingLayout.DATA_SOURCES) {
            boolean other = dataSource.endsWith("1");
            try (Connection connection = databases.shard(dataSource); Statement statement = connection.createStatement()) {
                for (int t = 0; t < 2; t++) {
                    statement.execute("CREATE TABLE t_ddl_" + t + (other ? " (id INT PRIMARY KEY, b INT, a TEXT)" : " (id INT PRIMARY KEY, a TEXT, b INT)"));
                    // id on data source id % 2, table (id / 2) % 2
                    int id = 2 * t + (other ? 1 : 0);
                    statement.execute("INSERT INTO t_ddl_" + t + " (id, a, b) VALUES (" + id + ", 'a" + id + "', " + 10 * id + ")");
                }
            }
        }
        try (Connection proxy = databases.proxy(""); Statement statement = proxy.createStatement()) {
            statement.execute("REFRESH TABLE METADATA t_ddl");
            assertEquals(List.of("a0,a1,a2,a3|60"), rows(statement, "SELECT string_agg(a, ',' ORDER BY id), sum(b) FROM t_ddl"));
            assertEquals(List.of("1|a1|10", "3|a3|30"), rows(statement, "SELECT id, a, b FROM t_ddl WHERE id IN (SELECT id FROM t_ddl WHERE b IN (10, 30)) ORDER BY id"));
        } finally {
            for (String dataSource : ShardingLayout.DATA_SOURCES) {
                try (Connection connection = databases.shard(dataSource); Statement statement = connection.createStatement()) {
                    statement.execute("DROP TABLE t_ddl_0, t_ddl_1");
                }
            }
        }
    }

    @Test
    void previewShowsAOneShardQueryUnchangedAndWhatEachDataSourceReceivesForARecursiveOne() throws Exception {
        try (Connection proxy = databases.proxy(""); Statement statement = proxy.createStatement()) {
            assertEquals(List.of("ds_1|SELECT o.order_id, i.price FROM t_order_1 o JOIN t_order_item_1 i USING (order_id, user_id)"
                            + " WHERE o.user_id = 3 AND o.order_id = 7|null"),
                    rows(statement, "PREVIEW SELECT o.order_id, i.price FROM t_order o JOIN t_order_item i USING (order_id, user_id)"
                            + " WHERE o.user_id = 3 AND o.order_id = 7"));
            assertEquals(List.of(
                    "ds_0|CREATE TEMP TABLE ashlar_ir_1_1 (LIKE \"t_user\") ON COMMIT DROP|null",
                    "ds_0|CREATE TEMP TABLE ashlar_ir_1_2 (LIKE \"t_order_0\") ON COMMIT DROP|null",
                    "ds_0|INSERT INTO ashlar_ir_1_1 SELECT * FROM \"t_user\"|null",
                    "ds_1|COPY (SELECT * FROM \"t_user\") TO STDOUT (FORMAT binary)|null",
                    "ds_0|COPY ashlar_ir_1_1 FROM STDIN (FORMAT binary)|null",
                    "ds_0|INSERT INTO ashlar_ir_1_2 SELECT * FROM \"t_order_0\"|null",
                    "ds_0|INSERT INTO ashlar_ir_1_2 SELECT * FROM \"t_order_1\"|null",
                    "ds_1|COPY (SELECT * FROM \"t_order_0\") TO STDOUT (FORMAT binary)|null",
                    "ds_0|COPY ashlar_ir_1_2 FROM STDIN (FORMAT binary)|null",
                    "ds_1|COPY (SELECT * FROM \"t_order_1\") TO STDOUT (FORMAT binary)|null",
                    "ds_0|COPY ashlar_ir_1_2 FROM STDIN (FORMAT binary)|null",
                    "ds_0|SELECT u.name, count(*) FROM ashlar_ir_1_1 u JOIN ashlar_ir_1_2 AS t_order ON t_order.user_id = u.user_id GROUP BY u.name"
                            + "|RecursivePlan: the statement finished on ds_0 over intermediate results"),
                    mergeLast(rows(statement, "PREVIEW SELECT u.name, count(*) FROM t_user u JOIN t_order ON t_order.user_id = u.user_id GROUP BY u.name")));
            // the route's conditions leave t_order's tables of ds_1 (user_id 3) and t_user's table holding user 3, both on
            // ds_1, which therefore finishes the statement without a row leaving it; the condition on o's column goes along
            assertEquals(List.of(
                    "ds_1|CREATE TEMP TABLE ashlar_ir_1_1 (LIKE \"t_order_0\") ON COMMIT DROP|null",
                    "ds_1|CREATE TEMP TABLE ashlar_ir_1_2 (LIKE \"t_user\") ON COMMIT DROP|null",
                    "ds_1|INSERT INTO ashlar_ir_1_1 SELECT * FROM \"t_order_0\" WHERE (\"user_id\" = 3)|null",
                    "ds_1|INSERT INTO ashlar_ir_1_1 SELECT * FROM \"t_order_1\" WHERE (\"user_id\" = 3)|null",
                    "ds_1|INSERT INTO ashlar_ir_1_2 SELECT * FROM \"t_user\"|null",
                    "ds_1|SELECT count(*), string_agg(u.name, ',') FROM ashlar_ir_1_1 o JOIN ashlar_ir_1_2 u ON u.user_id = o.user_id WHERE o.user_id = 3"
                            + "|RecursivePlan: the statement finished on ds_1 over intermediate results"), mergeLast(rows(statement, "PREVIEW SELECT count(*), string_agg(u.name, ',') FROM t_order o JOIN t_user u"
                    + " ON u.user_id = o.user_id WHERE o.user_id = 3")));
        }
    }

    /** A GROUP BY of a table's primary key: the intermediate result is given the key once filled, and PREVIEW shows it. */
    @Test
    void previewShowsThePrimaryKeyAGroupByOfItNeeds() throws Exception {
        try (Connection proxy = databases.proxy(""); Statement statement = proxy.createStatement()) {
            List<String> rows = mergeLast(rows(statement, "PREVIEW SELECT u.user_id, u.name, count(o.order_id) FROM t_user u JOIN t_order o"
                    + " ON o.user_id = u.user_id GROUP BY u.user_id"));
            assertEquals("ds_0|ALTER TABLE ashlar_ir_1_1 ADD PRIMARY KEY (user_id)|null", rows.get(rows.size() - 2));
            rows = mergeLast(rows(statement, "PREVIEW SELECT u.name, count(*) FROM t_user u JOIN t_order o ON o.user_id = u.user_id GROUP BY u.name"));
            for (String row : rows) {
                assertTrue(!row.contains("ADD PRIMARY KEY"), row); // grouped by no key: no index to build
            }
        }
    }

    /**
     * An error's position is in the client's text, as on PostgreSQL: the finishing statement's positions are moved past
     * the intermediate results' names (they pointed elsewhere in the client's statement), and a shard's filter, which
     * the client never wrote, gives none.
     */
    @Test
    void explainOfAReadThatSpansShardsSaysSoAndPointsToPreview() throws Exception {
        try (Connection proxy = databases.proxy(""); Statement statement = proxy.createStatement()) {
            // A join of tables not laid out alike: EXPLAIN is routed like the query, and refused where the tables meet.
            String read = "SELECT count(*) FROM t_user u JOIN t_order o ON o.order_id = u.user_id WHERE o.order_id < 50";
            List<String> answer = rows(statement, read);
            assertEquals(1, answer.size(), answer::toString);
            for (String explain : new String[] {"EXPLAIN " + read, "EXPLAIN (COSTS OFF) " + read}) {
                SQLException refused = assertThrows(SQLException.class, () -> rows(statement, explain));
                assertEquals("0A000", refused.getSQLState(), refused.getMessage());
                assertTrue(refused.getMessage().contains("EXPLAIN of a read that spans shards is not supported"),
                        refused.getMessage());
                assertTrue(((org.postgresql.util.PSQLException) refused).getServerErrorMessage().getHint().contains("PREVIEW"),
                        refused.getMessage());
            }
            assertEquals(answer, rows(statement, read));
        }
    }

    @Test
    void errorPositionsPointIntoTheClientsStatement() throws Exception {
        String[] statements = {
            "SELECT count(*) FROM t_order o JOIN t_user u ON u.user_id = o.user_id WHERE o.user_id < 5 AND o.nonexistent > u.score",
            "SELECT t_order.status FROM t_order WHERE t_order.user_id < 5 UNION ALL SELECT status FROM t_user",
            "SELECT count(*) FROM t_order JOIN t_user ON t_user.user_id = t_order.user_id WHERE t_order.user_id < 5 AND t_order.nonexistent > t_user.score",
            "SELECT x FROM t_order, t_user WHERE t_order.user_id < 5",
        };
        try (Connection proxy = databases.proxy(""); Statement viaProxy = proxy.createStatement();
             Connection reference = databases.reference(""); Statement direct = reference.createStatement()) {
            for (String sql : statements) {
                assertEquals(position(direct, sql), position(viaProxy, sql), () -> sql + ": " + message(viaProxy, sql));
            }
            for (String pushed : new String[] {"o.amount = 'abc'", "o.nonexistent > 1"}) {
                String sql = "SELECT count(*) FROM t_order o JOIN t_user u ON u.user_id = o.user_id WHERE o.user_id < 5 AND " + pushed;
                String message = message(viaProxy, sql);
                assertTrue(message.contains("invalid input syntax") || message.contains("does not exist"), message);
                assertEquals(0, position(viaProxy, sql), sql);
            }
        }
    }

    /** COPY (SELECT ...) TO STDOUT of a read that spans shards is finished by PostgreSQL too: the rows the SELECT gives. */
    @Test
    void copyOfAReadThatSpansShards() throws Exception {
        String select = "SELECT u.name, count(o.order_id), string_agg(o.status, ',' ORDER BY o.order_id) FROM t_user u"
                + " JOIN t_order o ON o.user_id = u.user_id WHERE o.user_id < 5 GROUP BY u.name ORDER BY u.name";
        try (Connection proxy = databases.proxy(""); Statement statement = proxy.createStatement()) {
            StringBuilder expected = new StringBuilder();
            try (ResultSet rows = statement.executeQuery(select)) {
                while (rows.next()) {
                    expected.append(rows.getString(1)).append(',').append(rows.getLong(2)).append(",\"").append(rows.getString(3)).append("\"\n");
                }
            }
            assertTrue(expected.length() > 20, expected::toString);
            assertEquals(expected.toString(), copyOut(proxy, "COPY (" + select + ") TO STDOUT (FORMAT csv)"));
        }
    }

    private static String copyOut(Connection connection, String sql) throws Exception {
        java.io.StringWriter out = new java.io.StringWriter();
        connection.unwrap(org.postgresql.PGConnection.class).getCopyAPI().copyOut(sql, out);
        return out.toString();
    }

    private static String message(Statement statement, String sql) {
        try {
            statement.executeQuery(sql).close();
            return "no error";
        } catch (SQLException e) {
            return e.getMessage();
        }
    }

    private static int position(Statement statement, String sql) {
        SQLException failure = assertThrows(SQLException.class, () -> statement.executeQuery(sql).close(), sql);
        org.postgresql.util.ServerErrorMessage message = ((org.postgresql.util.PSQLException) failure).getServerErrorMessage();
        assertTrue(message != null, sql);
        return message.getPosition();
    }

    /** PREVIEW puts the merge plan on its first row; moved to the last (the finishing statement's) for reading. */
    private static List<String> mergeLast(List<String> rows) {
        List<String> result = new ArrayList<>(rows.size());
        String plan = rows.get(0).substring(rows.get(0).lastIndexOf('|') + 1);
        for (int i = 0; i < rows.size(); i++) {
            String row = rows.get(i);
            String unit = row.substring(0, row.lastIndexOf('|'));
            result.add(unit + "|" + (i == rows.size() - 1 ? plan : "null"));
        }
        return result;
    }

    private static void assertNoIntermediateResultsLeft() throws SQLException {
        for (String dataSource : ShardingLayout.DATA_SOURCES) {
            try (Connection connection = databases.shard(dataSource); Statement statement = connection.createStatement()) {
                assertEquals(List.of("0"), rows(statement, "SELECT count(*) FROM pg_class WHERE relname LIKE 'ashlar_ir%'"), dataSource);
            }
        }
    }

    private static List<String> rows(Statement statement, String sql) throws SQLException {
        List<String> result = new ArrayList<>();
        try (ResultSet rs = statement.executeQuery(sql)) {
            int columns = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                StringBuilder row = new StringBuilder();
                for (int i = 1; i <= columns; i++) {
                    row.append(i == 1 ? "" : "|").append(rs.getString(i));
                }
                result.add(row.toString());
            }
        }
        return result;
    }
}
