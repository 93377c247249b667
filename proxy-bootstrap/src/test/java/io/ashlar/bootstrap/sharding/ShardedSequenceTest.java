package io.ashlar.bootstrap.sharding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ashlar.bootstrap.config.ServerConfig;
import java.io.IOException;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 16's sequences on a sharded logical database (two data sources): every data source's copy of a sequence is
 * interleaved with the others, so that nextval, whether a column DEFAULT calls it on a shard's own backend or a
 * statement through the proxy does, never hands out one value twice; setval (with BenchmarkSQL's scalar subquery
 * over every shard), currval and lastval, serial and identity columns, ALTER and DROP SEQUENCE.
 */
final class ShardedSequenceTest {

    private static final String TABLES = """
                  bmsql_history:
                    actualDataNodes: ds_${0..1}.bmsql_history
                    databaseStrategy:
                      standard:
                        shardingColumn: h_w_id
                        shardingAlgorithmName: history_inline
                  t_seq:
                    actualDataNodes: ds_${0..1}.t_seq
                    databaseStrategy:
                      standard:
                        shardingColumn: k
                        shardingAlgorithmName: seq_inline
                  t_serial:
                    actualDataNodes: ds_${0..1}.t_serial_${0..1}
                    databaseStrategy:
                      standard:
                        shardingColumn: tenant
                        shardingAlgorithmName: serial_database
                    tableStrategy:
                      standard:
                        shardingColumn: tenant
                        shardingAlgorithmName: serial_table
                  t_django:
                    actualDataNodes: ds_${0..1}.t_django_${0..1}
                    databaseStrategy:
                      standard:
                        shardingColumn: tenant
                        shardingAlgorithmName: serial_database
                    tableStrategy:
                      standard:
                        shardingColumn: tenant
                        shardingAlgorithmName: django_table
                  t_owner:
                    actualDataNodes: ds_${0..1}.t_owner_${0..1}
                    databaseStrategy:
                      standard:
                        shardingColumn: tenant
                        shardingAlgorithmName: serial_database
                    tableStrategy:
                      standard:
                        shardingColumn: tenant
                        shardingAlgorithmName: owner_table
            """;

    private static final String ALGORITHMS = """
                  history_inline:
                    type: INLINE
                    props:
                      algorithm-expression: ds_${h_w_id % 2}
                  seq_inline:
                    type: INLINE
                    props:
                      algorithm-expression: ds_${k % 2}
                  serial_database:
                    type: INLINE
                    props:
                      algorithm-expression: ds_${tenant % 2}
                  serial_table:
                    type: INLINE
                    props:
                      algorithm-expression: t_serial_${tenant.intdiv(2) % 2}
                  django_table:
                    type: INLINE
                    props:
                      algorithm-expression: t_django_${tenant.intdiv(2) % 2}
                  owner_table:
                    type: INLINE
                    props:
                      algorithm-expression: t_owner_${tenant.intdiv(2) % 2}
            """;

    private static ShardedDatabases databases;

    @BeforeAll
    static void start() throws Exception {
        databases = ShardedDatabases.start(ServerConfig.DEFAULTS, yaml -> yaml
                .replaceFirst("(?m)^    tables:\n", "    tables:\n" + TABLES.replace("$", "\\$"))
                .replaceFirst("(?m)^    shardingAlgorithms:\n", "    shardingAlgorithms:\n" + ALGORITHMS.replace("$", "\\$")));
    }

    @AfterAll
    static void stop() throws IOException {
        if (databases != null) {
            databases.close();
        }
    }

    @Test
    void defaultNextvalOnEachShardNeverRepeatsAValue() throws SQLException {
        try (Connection proxy = databases.proxy(""); Statement statement = proxy.createStatement()) {
            statement.execute("CREATE SEQUENCE t_seq_id_seq");
            statement.execute("CREATE TABLE t_seq (id bigint NOT NULL DEFAULT nextval('t_seq_id_seq'), k int NOT NULL, v text)");
            try (PreparedStatement insert = proxy.prepareStatement("INSERT INTO t_seq (k, v) VALUES (?, ?)")) {
                for (int i = 0; i < 200; i++) {
                    insert.setInt(1, i);
                    insert.setString(2, "row " + i);
                    assertEquals(1, insert.executeUpdate());
                }
            }
            assertEquals(200, distinctIds(statement, "SELECT id FROM t_seq"));
            for (String dataSource : new String[] {"ds_0", "ds_1"}) {
                try (Connection shard = databases.shard(dataSource); Statement direct = shard.createStatement();
                     ResultSet rows = direct.executeQuery("SELECT count(*) FROM t_seq")) {
                    rows.next();
                    assertEquals(100, rows.getInt(1), dataSource);
                }
            }
            // The logical sequence's values: 1, 2, 3 ... each handed out once, ds_0 the odd ones, ds_1 the even ones.
            try (ResultSet rows = statement.executeQuery("SELECT min(id), max(id) FROM t_seq")) {
                rows.next();
                assertEquals(1, rows.getLong(1));
                assertEquals(200, rows.getLong(2));
            }

            // setval with BenchmarkSQL's subquery over every shard: later values never meet the ones there.
            statement.execute("INSERT INTO t_seq (id, k, v) VALUES (5000, 3, 'loaded'), (4000, 4, 'loaded')");
            try (ResultSet rows = statement.executeQuery("select setval('t_seq_id_seq', (select max(id) from t_seq))")) {
                rows.next();
                assertEquals(5000, rows.getLong(1));
                assertEquals("setval", rows.getMetaData().getColumnName(1));
            }
            try (PreparedStatement insert = proxy.prepareStatement("INSERT INTO t_seq (k, v) VALUES (?, 'after setval') RETURNING id")) {
                for (int i = 0; i < 50; i++) {
                    insert.setInt(1, i);
                    try (ResultSet rows = insert.executeQuery()) {
                        rows.next();
                        assertTrue(rows.getLong(1) > 5000, "id " + rows.getLong(1));
                    }
                }
            }
            assertEquals(252, distinctIds(statement, "SELECT id FROM t_seq"));

            // setval(s, v, false): the next value anywhere is v or more; ALTER SEQUENCE ... RESTART WITH likewise.
            statement.executeQuery("SELECT setval('t_seq_id_seq', 10000, false)").close();
            statement.execute("INSERT INTO t_seq (k, v) VALUES (0, 'x'), (1, 'y')");
            try (ResultSet rows = statement.executeQuery("SELECT min(id) FROM t_seq WHERE v IN ('x', 'y')")) {
                rows.next();
                assertEquals(10000, rows.getLong(1));
            }
            statement.execute("ALTER SEQUENCE t_seq_id_seq RESTART WITH 20000");
            statement.execute("INSERT INTO t_seq (k, v) VALUES (0, 'z'), (1, 'z')");
            try (ResultSet rows = statement.executeQuery("SELECT min(id), max(id) FROM t_seq WHERE v = 'z'")) {
                rows.next();
                assertEquals(20000, rows.getLong(1));
                assertEquals(20001, rows.getLong(2));
            }
            assertEquals(256, distinctIds(statement, "SELECT id FROM t_seq"));

            // INCREMENT BY and START WITH: every copy interleaved again (the logical sequence is now 1, 11, 21, ...), going on
            // past what any copy handed out, or at the new start.
            statement.execute("ALTER SEQUENCE t_seq_id_seq INCREMENT BY 10");
            assertEquals(List.of(20011L, 20021L, 20031L, 20041L), nextOnEachShard("t_seq_id_seq", 2));
            statement.execute("ALTER SEQUENCE t_seq_id_seq START WITH 100 RESTART");
            assertEquals(List.of(100L, 110L, 120L, 130L), nextOnEachShard("t_seq_id_seq", 2));
            statement.execute("BEGIN");
            statement.execute("ALTER SEQUENCE t_seq_id_seq RESTART WITH 5000");
            statement.execute("ROLLBACK");
            assertEquals(List.of(140L, 150L), nextOnEachShard("t_seq_id_seq", 1));
            statement.execute("DROP TABLE t_seq");
            statement.execute("DROP SEQUENCE t_seq_id_seq");
            for (String dataSource : new String[] {"ds_0", "ds_1"}) {
                try (Connection shard = databases.shard(dataSource); Statement direct = shard.createStatement();
                     ResultSet rows = direct.executeQuery("SELECT to_regclass('t_seq_id_seq') IS NULL")) {
                    rows.next();
                    assertTrue(rows.getBoolean(1), dataSource);
                }
            }
        }
    }

    @Test
    void benchmarkSqlExtraHistId() throws SQLException {
        try (Connection proxy = databases.proxy(""); Statement statement = proxy.createStatement()) {
            // BenchmarkSQL 5.0's tableCreates.sql (sql.postgres), then its loader's history rows with explicit ids.
            statement.execute("create sequence bmsql_hist_id_seq");
            statement.execute("""
                    create table bmsql_history (
                      hist_id  integer,
                      h_c_id   integer,
                      h_c_d_id integer,
                      h_c_w_id integer,
                      h_d_id   integer,
                      h_w_id   integer,
                      h_date   timestamp,
                      h_amount decimal(6,2),
                      h_data   varchar(24)
                    )""");
            Timestamp now = new Timestamp(System.currentTimeMillis());
            int loaded = 0;
            try (PreparedStatement insert = proxy.prepareStatement("INSERT INTO bmsql_history ("
                    + "  hist_id, h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, "
                    + "  h_date, h_amount, h_data) "
                    + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
                for (int w = 1; w <= 4; w++) {
                    for (int c = 1; c <= 30; c++) {
                        insert.setInt(1, ++loaded);
                        insert.setInt(2, c);
                        insert.setInt(3, 1);
                        insert.setInt(4, w);
                        insert.setInt(5, 1);
                        insert.setInt(6, w);
                        insert.setTimestamp(7, now);
                        insert.setBigDecimal(8, new BigDecimal("10.00"));
                        insert.setString(9, "history data");
                        insert.addBatch();
                    }
                }
                insert.executeBatch();
            }
            // sql.postgres/extraHistID.sql, as BenchmarkSQL runs it.
            statement.execute("select setval('bmsql_hist_id_seq', (select max(hist_id) from bmsql_history))");
            statement.execute("alter table bmsql_history alter column hist_id set default nextval('bmsql_hist_id_seq')");
            statement.execute("alter table bmsql_history add primary key (hist_id)");
            // Payment's history INSERT, hist_id left out, on every warehouse.
            try (PreparedStatement insert = proxy.prepareStatement("INSERT INTO bmsql_history ("
                    + "    h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, "
                    + "    h_date, h_amount, h_data) "
                    + "VALUES (?, ?, ?, ?, ?, ?, ?, ?)")) {
                for (int i = 0; i < 200; i++) {
                    int w = 1 + i % 4;
                    insert.setInt(1, 1 + i % 30);
                    insert.setInt(2, 1);
                    insert.setInt(3, w);
                    insert.setInt(4, 1);
                    insert.setInt(5, w);
                    insert.setTimestamp(6, now);
                    insert.setBigDecimal(7, new BigDecimal("5.00"));
                    insert.setString(8, "payment");
                    assertEquals(1, insert.executeUpdate());
                }
            }
            assertEquals(loaded + 200, distinctIds(statement, "SELECT hist_id FROM bmsql_history"));
            try (ResultSet rows = statement.executeQuery("SELECT min(hist_id) FROM bmsql_history WHERE h_data = 'payment'")) {
                rows.next();
                assertTrue(rows.getInt(1) > loaded);
            }
            statement.execute("drop table bmsql_history");
            statement.execute("drop sequence bmsql_hist_id_seq");
        }
    }

    @Test
    void currvalAndLastvalAnswerThisSessionsNextval() throws SQLException {
        try (Connection proxy = databases.proxy(""); Statement statement = proxy.createStatement()) {
            statement.execute("CREATE SEQUENCE t_session_seq");
            long first = single(statement, "SELECT nextval('t_session_seq')");
            assertEquals(first, single(statement, "SELECT currval('t_session_seq')"));
            assertEquals(first, single(statement, "SELECT lastval()"));
            long second = single(statement, "SELECT nextval('t_session_seq')");
            assertNotEquals(first, second);
            assertEquals(second, single(statement, "SELECT currval('t_session_seq')"));
            try (PreparedStatement prepared = proxy.prepareStatement("SELECT currval(?)")) {
                prepared.setString(1, "t_session_seq");
                try (ResultSet rows = prepared.executeQuery()) {
                    rows.next();
                    assertEquals(second, rows.getLong(1));
                }
            }
            try (Connection other = databases.proxy(""); Statement otherStatement = other.createStatement()) {
                SQLException undefined = assertThrows(SQLException.class, () -> single(otherStatement, "SELECT currval('t_session_seq')"));
                assertEquals("55000", undefined.getSQLState());
                long third = single(otherStatement, "SELECT nextval('t_session_seq')");
                assertTrue(third != first && third != second);
                assertEquals(third, single(otherStatement, "SELECT lastval()"));
            }
            assertEquals(second, single(statement, "SELECT lastval()"));
            statement.execute("DROP SEQUENCE t_session_seq");
        }
    }

    /**
     * Sessions that call nextval (Hibernate's SEQUENCE generator, on every connection of an application's pool) do not
     * each keep a backend connection: each kept one of the default data source until it ended, so that as many
     * application connections as the data source's maxPoolSize emptied its pool and every other client waited 30 s for
     * a 53300. The session reads what currval and lastval answer after its nextval and answers them itself.
     */
    @Test
    void nextvalKeepsNoConnectionAndCurrvalStillAnswers() throws SQLException {
        int sessions = 12;
        java.util.List<Connection> open = new java.util.ArrayList<>();
        try (Connection proxy = databases.proxy(""); Statement statement = proxy.createStatement()) {
            statement.execute("CREATE SEQUENCE t_pool_seq INCREMENT 50");
            long[] values = new long[sessions];
            for (int i = 0; i < sessions; i++) {
                Connection each = databases.proxy("");
                open.add(each);
                try (Statement s = each.createStatement()) {
                    values[i] = single(s, "select nextval('t_pool_seq')");
                }
            }
            int held;
            try (Connection ds0 = databases.shard("ds_0"); Statement s = ds0.createStatement()) {
                held = (int) single(s, "SELECT count(*) FROM pg_stat_activity WHERE datname = 'ds_0' AND pid <> pg_backend_pid()");
            }
            assertTrue(held < sessions, held + " backend connections of ds_0 for " + sessions + " sessions that called nextval");
            for (int i = 0; i < sessions; i++) {
                try (Statement s = open.get(i).createStatement()) {
                    assertEquals(values[i], single(s, "SELECT currval('t_pool_seq')"));
                    assertEquals(values[i], single(s, "SELECT lastval()"));
                    try (ResultSet rows = s.executeQuery("SELECT pg_catalog.currval('t_pool_seq') AS id, lastval() + 1")) {
                        rows.next();
                        assertEquals("id", rows.getMetaData().getColumnLabel(1));
                        assertEquals(values[i], rows.getLong(1));
                        assertEquals(values[i] + 1, rows.getLong(2));
                    }
                    try (PreparedStatement prepared = open.get(i).prepareStatement("SELECT currval(?)")) {
                        prepared.setString(1, "t_pool_seq");
                        try (ResultSet rows = prepared.executeQuery()) {
                            rows.next();
                            assertEquals(values[i], rows.getLong(1));
                            assertEquals("currval", rows.getMetaData().getColumnLabel(1));
                        }
                    }
                }
            }
            try (Statement s = open.get(0).createStatement()) {
                s.execute("DISCARD SEQUENCES");
                SQLException undefined = assertThrows(SQLException.class, () -> single(s, "SELECT currval('t_pool_seq')"));
                assertEquals("55000", undefined.getSQLState());
            }
            statement.execute("DROP SEQUENCE t_pool_seq");
        } finally {
            for (Connection each : open) {
                each.close();
            }
        }
    }

    @Test
    void serialAndIdentityColumnsAreUniqueAcrossShards() throws SQLException {
        try (Connection proxy = databases.proxy(""); Statement statement = proxy.createStatement()) {
            statement.execute("CREATE TABLE t_serial (id serial PRIMARY KEY, big bigserial, ident int GENERATED BY DEFAULT AS IDENTITY,"
                    + " tenant int NOT NULL, v text)");
            try (PreparedStatement insert = proxy.prepareStatement("INSERT INTO t_serial (tenant, v) VALUES (?, ?)")) {
                for (int i = 0; i < 160; i++) {
                    insert.setInt(1, i % 8);
                    insert.setString(2, "row " + i);
                    assertEquals(1, insert.executeUpdate());
                }
            }
            for (String column : new String[] {"id", "big", "ident"}) {
                assertEquals(160, distinctIds(statement, "SELECT " + column + " FROM t_serial"), column);
                try (ResultSet rows = statement.executeQuery("SELECT min(" + column + "), max(" + column + ") FROM t_serial")) {
                    rows.next();
                    assertEquals(1, rows.getLong(1), column);
                    assertEquals(160, rows.getLong(2), column);
                }
            }
            for (String[] node : new String[][] {{"ds_0", "t_serial_0"}, {"ds_0", "t_serial_1"}, {"ds_1", "t_serial_0"}, {"ds_1", "t_serial_1"}}) {
                try (Connection shard = databases.shard(node[0]); Statement direct = shard.createStatement();
                     ResultSet rows = direct.executeQuery("SELECT count(*) FROM " + node[1])) {
                    rows.next();
                    assertEquals(40, rows.getInt(1), node[0] + "." + node[1]);
                }
            }
            // RESTART WITH over four actual tables: each restarts at its first value at or past 1000, together 1000, 1001, ...
            statement.execute("ALTER TABLE t_serial ALTER COLUMN ident RESTART WITH 1000");
            for (int tenant = 0; tenant < 8; tenant++) {
                statement.execute("INSERT INTO t_serial (tenant, v) VALUES (" + tenant + ", 'restarted')");
            }
            Set<Long> restarted = new HashSet<>();
            try (ResultSet rows = statement.executeQuery("SELECT ident FROM t_serial WHERE v = 'restarted'")) {
                while (rows.next()) {
                    restarted.add(rows.getLong(1));
                }
            }
            assertEquals(Set.of(1000L, 1001L, 1002L, 1003L, 1004L, 1005L, 1006L, 1007L), restarted);
            statement.execute("DROP TABLE t_serial");
        }
    }

    /**
     * pg_get_serial_sequence of a sharded table's serial column answers the logical sequence's name, as on one
     * PostgreSQL, and setval, nextval and currval take it: Django's sqlsequencereset after a load with explicit ids
     * (is_called found over the table's rows), a quoted qualified name as Rails writes it, and an empty table.
     */
    @Test
    void sequenceResetAfterALoadByTheLogicalSequenceName() throws SQLException {
        try (Connection proxy = databases.proxy(""); Statement statement = proxy.createStatement()) {
            statement.execute("CREATE TABLE t_django (id serial PRIMARY KEY, tenant int NOT NULL, v text)");
            try (ResultSet rows = statement.executeQuery("SELECT pg_get_serial_sequence('t_django', 'id')")) {
                rows.next();
                assertEquals("public.t_django_id_seq", rows.getString(1));
            }
            // Empty: Django's statement sets the sequence so that the next value is 1 (is_called false).
            String reset = "SELECT setval(pg_get_serial_sequence('\"t_django\"','id'), coalesce(max(\"id\"), 1), max(\"id\") IS NOT null) FROM \"t_django\";";
            try (ResultSet rows = statement.executeQuery(reset)) {
                rows.next();
                assertEquals(1, rows.getLong(1));
                assertEquals("setval", rows.getMetaData().getColumnName(1));
            }
            statement.execute("INSERT INTO t_django (id, tenant, v) VALUES (100, 0, 'loaded'), (250, 1, 'loaded'), (75, 2, 'loaded'), (180, 3, 'loaded')");
            try (ResultSet rows = statement.executeQuery(reset)) {
                rows.next();
                assertEquals(250, rows.getLong(1));
                assertTrue(!rows.next());
            }
            Set<Long> handedOut = new HashSet<>();
            try (PreparedStatement insert = proxy.prepareStatement("INSERT INTO t_django (tenant, v) VALUES (?, 'after reset') RETURNING id")) {
                for (int i = 0; i < 40; i++) {
                    insert.setInt(1, i % 4);
                    try (ResultSet rows = insert.executeQuery()) {
                        rows.next();
                        assertTrue(rows.getLong(1) > 250, "id " + rows.getLong(1));
                        assertTrue(handedOut.add(rows.getLong(1)), "id " + rows.getLong(1) + " twice");
                    }
                }
            }
            assertEquals(44, distinctIds(statement, "SELECT id FROM t_django"));

            // nextval and currval by the logical name, as pg_get_serial_sequence gives it and unqualified
            long next;
            try (ResultSet rows = statement.executeQuery("SELECT nextval('public.t_django_id_seq')")) {
                rows.next();
                next = rows.getLong(1);
                assertTrue(next > 250 && !handedOut.contains(next), "nextval " + next);
            }
            try (ResultSet rows = statement.executeQuery("SELECT currval('t_django_id_seq'), lastval()")) {
                rows.next();
                assertEquals(next, rows.getLong(1));
                assertEquals(next, rows.getLong(2));
            }
            try (ResultSet rows = statement.executeQuery("SELECT nextval(pg_get_serial_sequence('t_django', 'id'))")) {
                rows.next();
                assertTrue(rows.getLong(1) > 250 && !handedOut.contains(rows.getLong(1)) && rows.getLong(1) != next, "nextval " + rows.getLong(1));
            }

            // setval by a quoted, qualified name (Rails' reset_pk_sequence!), then rows through the DEFAULTs of every shard
            try (ResultSet rows = statement.executeQuery("SELECT setval('\"public\".\"t_django_id_seq\"', 5000, false)")) {
                rows.next();
                assertEquals(5000, rows.getLong(1));
            }
            for (int tenant = 0; tenant < 4; tenant++) {
                statement.execute("INSERT INTO t_django (tenant, v) VALUES (" + tenant + ", 'after setval')");
            }
            try (ResultSet rows = statement.executeQuery("SELECT min(id), count(DISTINCT id) FROM t_django WHERE v = 'after setval'")) {
                rows.next();
                assertTrue(rows.getLong(1) >= 5000, "min " + rows.getLong(1));
                assertEquals(4, rows.getInt(2));
            }
            statement.execute("DROP TABLE t_django");
        }
    }

    /** CREATE and ALTER SEQUENCE ... OWNED BY a sharded table's column: every copy is owned by an actual table there. */
    @Test
    void sequenceOwnedByAShardedTable() throws SQLException {
        try (Connection proxy = databases.proxy(""); Statement statement = proxy.createStatement()) {
            statement.execute("CREATE TABLE t_owner (id bigint NOT NULL, tenant int NOT NULL, v text)");
            statement.execute("CREATE SEQUENCE t_owner_id_seq OWNED BY t_owner.id");
            statement.execute("ALTER TABLE t_owner ALTER COLUMN id SET DEFAULT nextval('t_owner_id_seq')");
            for (int tenant = 0; tenant < 8; tenant++) {
                statement.execute("INSERT INTO t_owner (tenant, v) VALUES (" + tenant + ", 'x')");
            }
            assertEquals(8, distinctIds(statement, "SELECT id FROM t_owner"));
            statement.execute("CREATE SEQUENCE t_owner_other_seq");
            statement.execute("ALTER SEQUENCE t_owner_other_seq OWNED BY t_owner.tenant");
            statement.execute("ALTER SEQUENCE t_owner_other_seq OWNED BY NONE");
            statement.execute("ALTER SEQUENCE t_owner_other_seq OWNED BY public.t_owner.tenant");
            try (ResultSet rows = statement.executeQuery("SELECT nextval('t_owner_other_seq')")) {
                rows.next();
                assertTrue(rows.getLong(1) == 1 || rows.getLong(1) == 2, "nextval " + rows.getLong(1));
            }
            // Owned by the table, the sequences go with it.
            statement.execute("DROP TABLE t_owner");
            for (String dataSource : new String[] {"ds_0", "ds_1"}) {
                try (Connection shard = databases.shard(dataSource); Statement direct = shard.createStatement();
                     ResultSet rows = direct.executeQuery("SELECT count(*) FROM pg_class WHERE relname IN ('t_owner_id_seq', 't_owner_other_seq')")) {
                    rows.next();
                    assertEquals(0, rows.getInt(1), dataSource);
                }
            }
        }
    }

    @Test
    void setvalWithParametersAndWithFrom() throws SQLException {
        try (Connection proxy = databases.proxy(""); Statement statement = proxy.createStatement()) {
            statement.execute("CREATE SEQUENCE t_param_seq");
            try (PreparedStatement setval = proxy.prepareStatement("select setval(?, ?)")) {
                setval.setString(1, "t_param_seq");
                setval.setLong(2, 700);
                try (ResultSet rows = setval.executeQuery()) {
                    rows.next();
                    assertEquals(700, rows.getLong(1));
                }
            }
            Set<Long> values = new HashSet<>();
            for (int i = 0; i < 6; i++) {
                // Through the proxy nextval runs on the default data source; straight on each shard, on its copy.
                try (Connection shard = databases.shard(i % 2 == 0 ? "ds_0" : "ds_1"); Statement direct = shard.createStatement()) {
                    long value = single(direct, "SELECT nextval('t_param_seq')");
                    assertTrue(value > 700 && values.add(value), "value " + value);
                }
            }
            statement.execute("CREATE TABLE t_seq (id bigint NOT NULL, k int NOT NULL, v text)");
            statement.execute("INSERT INTO t_seq (id, k) VALUES (900, 0), (901, 1), (950, 3)");
            assertEquals(950, single(statement, "SELECT setval('t_param_seq', max(id)) FROM t_seq"));
            assertTrue(single(statement, "SELECT nextval('t_param_seq')") > 950);
            try (Connection shard = databases.shard("ds_1"); Statement direct = shard.createStatement()) {
                assertTrue(single(direct, "SELECT nextval('t_param_seq')") > 950);
            }
            SQLException outOfBounds = assertThrows(SQLException.class, () -> single(statement, "SELECT setval('t_param_seq', 0)"));
            assertEquals("22003", outOfBounds.getSQLState());
            SQLException notSequence = assertThrows(SQLException.class, () -> single(statement, "SELECT setval('t_seq', 5)"));
            assertEquals("42809", notSequence.getSQLState());
            SQLException refused = assertThrows(SQLException.class, () -> single(statement, "SELECT setval('t_param_seq', 5) + 1"));
            assertEquals("0A000", refused.getSQLState());
            statement.execute("DROP TABLE t_seq");
            statement.execute("DROP SEQUENCE t_param_seq");
        }
    }

    /** The TPC-C driver's way (benchmarks' TpccSchema): an identity column added to loaded rows, restarted past their ids. */
    @Test
    void identityAddedByAlterTableAndRestarted() throws SQLException {
        try (Connection proxy = databases.proxy(""); Statement statement = proxy.createStatement()) {
            statement.execute("CREATE TABLE t_seq (id int NOT NULL, k int NOT NULL, v text)");
            StringBuilder loaded = new StringBuilder("INSERT INTO t_seq (id, k) VALUES (1, 1)");
            for (int i = 2; i <= 20; i++) {
                loaded.append(", (").append(i).append(", ").append(i).append(')');
            }
            statement.execute(loaded.toString());
            statement.execute("alter table t_seq alter column id add generated by default as identity");
            long max = single(statement, "SELECT max(id) FROM t_seq");
            assertEquals(20, max);
            statement.execute("alter table t_seq alter column id restart with " + (max + 1));
            try (PreparedStatement insert = proxy.prepareStatement("INSERT INTO t_seq (k, v) VALUES (?, 'new') RETURNING id")) {
                for (int i = 0; i < 40; i++) {
                    insert.setInt(1, i);
                    try (ResultSet rows = insert.executeQuery()) {
                        rows.next();
                        assertTrue(rows.getLong(1) > max, "id " + rows.getLong(1));
                    }
                }
            }
            assertEquals(60, distinctIds(statement, "SELECT id FROM t_seq"));
            assertEquals(21, single(statement, "SELECT min(id) FROM t_seq WHERE v = 'new'"));
            SQLException refused = assertThrows(SQLException.class, () -> statement.execute("ALTER TABLE t_seq ALTER COLUMN id SET INCREMENT BY 3"));
            assertEquals("0A000", refused.getSQLState());

            // A serial column added to rows already there: they get each actual table's numbers; later rows go past all of them.
            statement.execute("ALTER TABLE t_seq ADD COLUMN extra bigserial");
            long filled = single(statement, "SELECT max(extra) FROM t_seq");
            statement.execute("INSERT INTO t_seq (k, v) VALUES (0, 'later'), (1, 'later'), (2, 'later'), (3, 'later')");
            Set<Long> later = new HashSet<>();
            try (ResultSet rows = statement.executeQuery("SELECT extra FROM t_seq WHERE v = 'later'")) {
                while (rows.next()) {
                    assertTrue(rows.getLong(1) > filled && later.add(rows.getLong(1)), "extra " + rows.getLong(1));
                }
            }
            assertEquals(4, later.size());
            statement.execute("DROP TABLE t_seq");
        }
    }

    /** A sequence made on the backends directly (or before Ashlar interleaved sequences): setval interleaves it first. */
    @Test
    void setvalInterleavesCopiesMadeAlike() throws SQLException {
        for (String dataSource : new String[] {"ds_0", "ds_1"}) {
            try (Connection shard = databases.shard(dataSource); Statement direct = shard.createStatement()) {
                direct.execute("CREATE SEQUENCE legacy_seq");
                direct.executeQuery("SELECT setval('legacy_seq', 50)").close();
            }
        }
        try (Connection proxy = databases.proxy(""); Statement statement = proxy.createStatement()) {
            // setval(s, NULL) sets nothing: the copies go on past what they handed out, no longer alike.
            statement.executeQuery("SELECT setval('legacy_seq', NULL)").close();
            Set<Long> values = new HashSet<>();
            for (int round = 0; round < 5; round++) {
                for (String dataSource : new String[] {"ds_0", "ds_1"}) {
                    try (Connection shard = databases.shard(dataSource); Statement direct = shard.createStatement()) {
                        long value = single(direct, "SELECT nextval('legacy_seq')");
                        assertTrue(value > 50 && values.add(value), dataSource + " value " + value);
                    }
                }
            }
            assertEquals(10, single(statement, "SELECT setval('legacy_seq', 10)"));
            for (String dataSource : new String[] {"ds_0", "ds_1"}) {
                try (Connection shard = databases.shard(dataSource); Statement direct = shard.createStatement()) {
                    long value = single(direct, "SELECT nextval('legacy_seq')");
                    assertTrue(value > 10 && value <= 12, dataSource + " value " + value);
                }
            }
            statement.execute("DROP SEQUENCE legacy_seq");
        }
    }

    /**
     * A broadcast table's serial column: every copy of the table must get the same value for a row, so setval and ALTER
     * SEQUENCE ... RESTART WITH set its sequence's copies alike instead of interleaving them (they did, and the copies
     * of the table then held different values for one row).
     */
    @Test
    void broadcastTableSerialStaysAlikeOnEveryCopy() throws SQLException {
        try (Connection proxy = databases.proxy(""); Statement statement = proxy.createStatement()) {
            statement.execute("ALTER TABLE t_dict ADD COLUMN n serial");
            try {
                assertEquals(100, single(statement, "SELECT setval('t_dict_n_seq', 100)"));
                statement.execute("INSERT INTO t_dict (code, label) VALUES ('seq_a', 'a')");
                statement.execute("ALTER SEQUENCE t_dict_n_seq RESTART WITH 500");
                statement.execute("INSERT INTO t_dict (code, label) VALUES ('seq_b', 'b')");
                for (String dataSource : new String[] {"ds_0", "ds_1"}) {
                    try (Connection shard = databases.shard(dataSource); Statement direct = shard.createStatement()) {
                        assertEquals(101, single(direct, "SELECT n FROM t_dict WHERE code = 'seq_a'"), dataSource);
                        assertEquals(500, single(direct, "SELECT n FROM t_dict WHERE code = 'seq_b'"), dataSource);
                    }
                }
            } finally {
                statement.execute("DELETE FROM t_dict WHERE code IN ('seq_a', 'seq_b')");
                statement.execute("ALTER TABLE t_dict DROP COLUMN n");
            }
        }
    }

    /** The answers and errors that do not depend on which copy hands out values are PostgreSQL's own, to the message. */
    @Test
    void answersAndErrorsAsOnePostgreSql() throws SQLException {
        String[] statements = {
            "SELECT currval('t_ref_seq')",
            "SELECT lastval()",
            "SELECT setval('t_ref_seq', 0)",
            "SELECT setval('t_ref_seq', 42)",
            "SELECT setval('t_ref_seq', NULL)",
            "SELECT setval('no_such_seq', 1)",
            "SELECT setval('t_ref_seq', 7, false)",
            "select setval('t_ref_seq', (select 1000))",
            "SELECT setval('t_ref_seq', 10) FROM (SELECT 1 WHERE false) x",
        };
        try (Connection proxy = databases.proxy(""); Connection reference = databases.reference("");
             Statement viaProxy = proxy.createStatement(); Statement direct = reference.createStatement()) {
            viaProxy.execute("CREATE SEQUENCE t_ref_seq");
            direct.execute("CREATE SEQUENCE t_ref_seq");
            try {
                for (String sql : statements) {
                    assertEquals(outcome(direct, sql), outcome(viaProxy, sql), sql);
                }
                long next = single(viaProxy, "SELECT nextval('t_ref_seq')");
                assertTrue(next > 1000, "nextval " + next);
                assertEquals(next, single(viaProxy, "SELECT currval('t_ref_seq')"));
            } finally {
                viaProxy.execute("DROP SEQUENCE t_ref_seq");
                direct.execute("DROP SEQUENCE t_ref_seq");
            }
        }
    }

    /** A statement's rows (first column) or its error's SQLSTATE and message. */
    private static String outcome(Statement statement, String sql) {
        StringBuilder result = new StringBuilder();
        try (ResultSet rows = statement.executeQuery(sql)) {
            result.append(rows.getMetaData().getColumnName(1)).append(' ').append(rows.getMetaData().getColumnTypeName(1)).append(':');
            while (rows.next()) {
                result.append(' ').append(rows.getString(1));
            }
        } catch (SQLException e) {
            result.append(e.getSQLState()).append(' ').append(e.getMessage());
        }
        return result.toString();
    }

    /** nextval straight on each shard, ds_0 then ds_1, {@code rounds} times: the values in ascending order. */
    private static List<Long> nextOnEachShard(String sequence, int rounds) throws SQLException {
        List<Long> result = new ArrayList<>();
        for (int round = 0; round < rounds; round++) {
            for (String dataSource : new String[] {"ds_0", "ds_1"}) {
                try (Connection shard = databases.shard(dataSource); Statement direct = shard.createStatement()) {
                    result.add(single(direct, "SELECT nextval('" + sequence + "')"));
                }
            }
        }
        result.sort(null);
        return result;
    }

    private static long single(Statement statement, String sql) throws SQLException {
        try (ResultSet rows = statement.executeQuery(sql)) {
            rows.next();
            return rows.getLong(1);
        }
    }

    /** How many distinct non-null values the query's first column has; fails on a value seen twice. */
    private static int distinctIds(Statement statement, String sql) throws SQLException {
        Set<Long> seen = new HashSet<>();
        try (ResultSet rows = statement.executeQuery(sql)) {
            while (rows.next()) {
                long id = rows.getLong(1);
                assertTrue(!rows.wasNull(), "a null id");
                assertTrue(seen.add(id), "id " + id + " twice");
            }
        }
        return seen.size();
    }
}
