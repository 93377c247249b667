package io.ashlar.bootstrap.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.sql.DriverManager;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A sharded database's sessions at the edges of the protocol.
 *
 * <p>A sharded statement that reads several actual tables of one data source runs one unit per table
 * on that data source's connection. When one unit is cancelled (here by the client's cancel), the
 * units after it stop too, as the one statement PostgreSQL would have cancelled: they were sent
 * already and ran to their end (a statement_timeout ended each of them in turn, so a statement
 * took the timeout once per table).
 */
final class ShardedSessionEdgeTest {

    private static ProxiedPostgres server;

    @BeforeAll
    static void start() throws Exception {
        server = ProxiedPostgres.startSharded();
        for (String dataSource : new String[] {"ds_0", "ds_1"}) {
            try (Connection c = server.backend(dataSource); Statement s = c.createStatement()) {
                // Sequences are not transactional: one that moved says a unit ran past its sleep.
                s.execute("CREATE SEQUENCE cancel_probe");
            }
        }
        try (Connection c = server.proxy(""); Statement s = c.createStatement()) {
            // One row on each actual table: ds_${id % 2}.t_og_${id.intdiv(2) % 2}.
            s.execute("INSERT INTO t_og (id, name) VALUES (0, 'a'), (1, 'b'), (2, 'c'), (3, 'd')");
        }
    }

    @AfterAll
    static void stop() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void unitsAfterTheCancelledOneOnTheSameDataSourceStopToo() throws Exception {
        try (Connection c = server.proxy(""); Statement s = c.createStatement()) {
            // The cancel once the first unit sleeps on both data sources (a fixed delay raced the units' start when
            // the machine was loaded: a cancel that comes before a statement runs is no cancel, on PostgreSQL too).
            // Each unit sleeps 30 s, far past the wait for them: with 10 s, a full build's load once delayed the
            // cancel to the end of ds_0's first unit, which then ended on its own (the test took 20 s and failed).
            // When the cancel works, the statement ends with it, so the long sleep costs nothing.
            Thread canceller = Thread.ofVirtual().start(() -> {
                try {
                    awaitSleeping();
                    s.cancel();
                } catch (InterruptedException | SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            SQLException cancelled = assertThrows(SQLException.class,
                    () -> s.executeQuery("SELECT pg_sleep(30), nextval('cancel_probe'), name FROM t_og"));
            assertEquals("57014", cancelled.getSQLState(), cancelled.getMessage());
            canceller.join();
        }
        for (String dataSource : new String[] {"ds_0", "ds_1"}) {
            try (Connection c = server.backend(dataSource); Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT is_called FROM cancel_probe")) {
                rs.next();
                assertEquals(false, rs.getBoolean(1), () -> "a unit on " + dataSource + " ran to its end after the cancel");
            }
        }
    }

    /**
     * An error the proxy raises itself in a simple query (a value the rules cannot route, an unknown prepared statement)
     * aborts the transaction block as PostgreSQL's own errors do: the next statement gets 25P02 and COMMIT rolls back.
     * The block's COMMIT committed the rows written before such an error (found with PHP's PDO and psql).
     */
    @Test
    void anErrorOfTheProxysOwnAbortsTheBlockInTheSimpleProtocol() throws Exception {
        for (String failing : new String[] {"INSERT INTO t_og (id, name) VALUES ('abc', 'no shard')", "DEALLOCATE no_such_statement"}) {
            try (Connection c = server.proxy("preferQueryMode=simple"); Statement s = c.createStatement()) {
                s.execute("BEGIN");
                assertEquals(1, s.executeUpdate("INSERT INTO t_og (id, name) VALUES (901, 'rolled back')"));
                SQLException own = assertThrows(SQLException.class, () -> s.execute(failing));
                assertTrue(!own.getSQLState().equals("25P02"), own.getMessage());
                SQLException aborted = assertThrows(SQLException.class, () -> s.executeQuery("SELECT 1"));
                assertEquals("25P02", aborted.getSQLState(), failing + ": " + aborted.getMessage());
                s.execute("COMMIT");
                try (ResultSet rs = s.executeQuery("SELECT count(*) FROM t_og WHERE id = 901")) {
                    rs.next();
                    assertEquals(0, rs.getInt(1), failing + ": the failed block's COMMIT kept its row");
                }
            }
        }
    }

    /**
     * lastval and currval after an INSERT whose serial or identity column took its DEFAULT, in the same transaction:
     * PostgreSQL's values, as PHP's PDO::lastInsertId() and DBD::Pg's last_insert_id ask for them (Doctrine's DBAL
     * included). They said 55000 "not yet defined": the proxy discarded the connection's sequence state first. After
     * the transaction the connection goes back to the pool, and they say 55000 again, never another session's value.
     */
    @Test
    void lastvalAndCurrvalAfterADefaultsNextvalInTheSameTransaction() throws Exception {
        try (Connection c = server.proxy(""); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t_serial_probe (id serial PRIMARY KEY, name text)");
            s.execute("CREATE TABLE t_identity_probe (id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, name text)");
            try {
                c.setAutoCommit(false);
                long serial = longOf(s, "INSERT INTO t_serial_probe (name) VALUES ('a') RETURNING id");
                assertEquals(serial, longOf(s, "SELECT lastval()"));
                assertEquals(serial, longOf(s, "SELECT currval('t_serial_probe_id_seq')"));
                long identity = longOf(s, "INSERT INTO t_identity_probe VALUES (DEFAULT, 'b') RETURNING id");
                assertEquals(identity, longOf(s, "SELECT lastval()"));
                assertEquals(serial, longOf(s, "SELECT currval('public.t_serial_probe_id_seq')"));
                long given = longOf(s, "INSERT INTO t_identity_probe (id, name) VALUES (1000, 'given') RETURNING id");
                assertEquals(1000, given);
                assertEquals(identity, longOf(s, "SELECT lastval()"), "an INSERT that gave the column calls no nextval");
                c.commit();
                SQLException after = assertThrows(SQLException.class, () -> longOf(s, "SELECT lastval()"));
                assertEquals("55000", after.getSQLState(), after.getMessage());
                c.rollback();
                SQLException fresh = assertThrows(SQLException.class, () -> longOf(s, "SELECT currval('t_serial_probe_id_seq')"));
                assertEquals("55000", fresh.getSQLState(), fresh.getMessage());
                c.rollback();
            } finally {
                c.setAutoCommit(true);
                s.execute("DROP TABLE t_serial_probe, t_identity_probe");
            }
        }
    }

    /**
     * The proxy writes out the columns of an INSERT without a column list (and of a star) from the schema it keeps, which
     * it reads again when a transaction that changed the table ends: inside that transaction the written-out columns
     * were the old ones, and values landed in the wrong columns with no error (Flyway runs a migration's ALTER TABLE and
     * INSERT in one transaction). Such statements are refused there now (0A000); after the transaction they run.
     */
    @Test
    void columnsWrittenOutFromATableDdlChangedInTheTransactionAreRefused() throws Exception {
        try (Connection c = server.proxy(""); Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            try {
                s.execute("ALTER TABLE t_og ADD COLUMN probe text");
                s.execute("ALTER TABLE t_og DROP COLUMN probe");
                s.execute("ALTER TABLE t_og DROP COLUMN name");
                s.execute("ALTER TABLE t_og ADD COLUMN name text");
                SQLException refused = assertThrows(SQLException.class, () -> s.execute("INSERT INTO t_og VALUES (11, 'eleven')"));
                assertEquals("0A000", refused.getSQLState(), refused.getMessage());
                assertTrue(refused.getMessage().contains("DDL changed in this transaction"), refused.getMessage());
            } finally {
                c.rollback();
                c.setAutoCommit(true);
            }
            try (ResultSet rs = s.executeQuery("SELECT * FROM t_og WHERE id = 1")) {
                assertEquals(2, rs.getMetaData().getColumnCount(), "the rolled-back DDL left the table as it was");
                assertTrue(rs.next());
                assertEquals("b", rs.getString("name"));
            }
        }
    }

    /**
     * COMMENT ON TABLE and COMMENT ON COLUMN of a sharded table reach its actual tables and the catalog (they got 42P01
     * from the default data source, which has no table of the logical name); a DO block naming a sharded table is
     * refused by name (it got the same 42P01). Found running Flyway migrations.
     */
    @Test
    void commentsOnAShardedTableReachItsActualTablesAndADoBlockNamingOneIsRefused() throws Exception {
        try (Connection c = server.proxy(""); Statement s = c.createStatement()) {
            s.execute("COMMENT ON TABLE t_og IS 'og rows'");
            s.execute("COMMENT ON COLUMN t_og.name IS 'a name'");
            try {
                try (ResultSet rs = s.executeQuery("SELECT obj_description('t_og'::regclass), col_description('t_og'::regclass, 2)")) {
                    assertTrue(rs.next());
                    assertEquals("og rows", rs.getString(1));
                    assertEquals("a name", rs.getString(2));
                }
                for (String dataSource : new String[] {"ds_0", "ds_1"}) {
                    try (Connection shard = server.backend(dataSource); Statement direct = shard.createStatement();
                            ResultSet rs = direct.executeQuery("SELECT count(*) FROM pg_class WHERE relname IN ('t_og_0', 't_og_1')"
                                    + " AND obj_description(oid) = 'og rows' AND col_description(oid, 2) = 'a name'")) {
                        rs.next();
                        assertEquals(2, rs.getInt(1), dataSource);
                    }
                }
                SQLException refused = assertThrows(SQLException.class,
                        () -> s.execute("DO $$ BEGIN INSERT INTO t_og (id, name) VALUES (12, 'do'); END $$"));
                assertEquals("0A000", refused.getSQLState(), refused.getMessage());
                assertTrue(refused.getMessage().contains("DO block naming sharded table t_og"), refused.getMessage());
            } finally {
                s.execute("COMMENT ON TABLE t_og IS NULL");
                s.execute("COMMENT ON COLUMN t_og.name IS NULL");
            }
        }
    }

    /**
     * A column whose default calls nextval of a sequence the table does not own: the logical table's shell in the
     * catalog database could not be made (its sequence was missing there), so the table vanished from the catalog
     * (psql's \d found nothing, and Flyway's clean left its actual tables behind).
     */
    @Test
    void aDefaultOnASequenceTheTableDoesNotOwnKeepsTheTableInTheCatalog() throws Exception {
        try (Connection c = server.proxy(""); Statement s = c.createStatement()) {
            s.execute("CREATE SEQUENCE edge_numbers");
            try {
                s.execute("ALTER TABLE t_og ADD COLUMN numbered bigint DEFAULT nextval('edge_numbers')");
                try (ResultSet rs = s.executeQuery("SELECT a.attname FROM pg_catalog.pg_attribute a"
                        + " WHERE a.attrelid = 'public.t_og'::regclass AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum")) {
                    List<String> columns = new ArrayList<>();
                    while (rs.next()) {
                        columns.add(rs.getString(1));
                    }
                    assertEquals(List.of("id", "name", "numbered"), columns);
                }
            } finally {
                s.execute("ALTER TABLE t_og DROP COLUMN IF EXISTS numbered");
                s.execute("DROP SEQUENCE edge_numbers");
            }
            // The catalog's copy of the sequence went with the last default using it: a sequence left there made the
            // schema look not empty to Flyway after its clean, and \ds listed a sequence no data source has.
            try (ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_catalog.pg_class WHERE relname = 'edge_numbers'")) {
                rs.next();
                assertEquals(0, rs.getInt(1));
            }
        }
    }

    private static long longOf(Statement statement, String sql) throws SQLException {
        try (ResultSet rs = statement.executeQuery(sql)) {
            assertTrue(rs.next(), sql);
            return rs.getLong(1);
        }
    }

    /**
     * statement_timeout bounds the statement, not each actual table's part of it: the two tables of one data source are
     * read one after another (1 s each here), and each alone is under the timeout of 1.5 s that PostgreSQL would apply
     * to the whole. The statement returned all four rows after 2 s; it is cancelled as PostgreSQL's, with 57014.
     */
    @Test
    void statementTimeoutBoundsTheWholeStatementOverTablesOfOneDataSource() throws Exception {
        try (Connection c = server.proxy(""); Statement s = c.createStatement()) {
            s.execute("SET statement_timeout = '1.5s'");
            SQLException timedOut = assertThrows(SQLException.class,
                    () -> s.executeQuery("SELECT pg_sleep(1), name FROM t_og"));
            assertEquals("57014", timedOut.getSQLState(), timedOut.getMessage());
            assertTrue(timedOut.getMessage().contains("canceling statement due to statement timeout"), timedOut.getMessage());
            // The session goes on; under a longer timeout the same statement runs to its end.
            s.execute("SET statement_timeout = '30s'");
            try (ResultSet rs = s.executeQuery("SELECT pg_sleep(0.1), name FROM t_og")) {
                int rows = 0;
                while (rs.next()) {
                    rows++;
                }
                assertTrue(rows >= 4, rows + " rows"); // the four the class starts with, and what other tests added
            }
        }
    }

    /**
     * A shard's error met while a result streams (here a row lock NOWAIT could not take) names the logical table, as
     * errors before the result do: one shard's statement, whose rows stream as the shard sends them, named the actual
     * table ({@code relation "t_og_1"}), which Hibernate's PESSIMISTIC_WRITE with NOWAIT showed its users.
     */
    @Test
    void anErrorWhileRowsStreamNamesTheLogicalTable() throws Exception {
        try (Connection holder = server.proxy(""); Connection c = server.proxy(""); Statement h = holder.createStatement();
                Statement s = c.createStatement()) {
            holder.setAutoCommit(false);
            h.executeQuery("SELECT name FROM t_og WHERE id = 2 FOR UPDATE").close();
            c.setAutoCommit(false);
            SQLException locked = assertThrows(SQLException.class, () -> {
                try (ResultSet rs = s.executeQuery("SELECT name FROM t_og WHERE id IN (0, 1, 2, 3) FOR UPDATE NOWAIT")) {
                    while (rs.next()) {
                        // read every row: the lock is met on the way
                    }
                }
            });
            assertEquals("55P03", locked.getSQLState(), locked.getMessage());
            assertTrue(locked.getMessage().contains("relation \"t_og\""), locked.getMessage());
            c.rollback();
            // One shard's row, which the client's event loop runs itself: the same.
            SQLException one = assertThrows(SQLException.class,
                    () -> s.executeQuery("SELECT name FROM t_og WHERE id = 2 FOR UPDATE NOWAIT").close());
            assertEquals("55P03", one.getSQLState(), one.getMessage());
            assertTrue(one.getMessage().contains("relation \"t_og\""), one.getMessage());
            c.rollback();
            holder.rollback();
        }
    }

    /**
     * The process id a client is told lies above any a kernel gives: pg_cancel_backend of it (Knex's timeout with cancel)
     * finds no backend on a data source, where an id from 1,000 to 100,000 could name another client's backend there.
     */
    @Test
    void theProcessIdAClientIsGivenNamesNoBackendProcess() throws Exception {
        try (Connection c = server.proxy(""); Statement s = c.createStatement()) {
            int pid = c.unwrap(org.postgresql.PGConnection.class).getBackendPID();
            assertTrue(pid >= 1 << 22, "process id " + pid);
            try (ResultSet rs = s.executeQuery("SELECT pg_cancel_backend(" + pid + ")")) {
                rs.next();
                assertEquals(false, rs.getBoolean(1));
            }
        }
    }

    private static void awaitSleeping() throws SQLException, InterruptedException {
        // Both units are seen sleeping within milliseconds on a quiet machine; a loaded one took over 2 s once, when
        // this waited 2 s for units that slept 3: the wait stays well inside the sleep.
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(8);
        while (System.nanoTime() - deadline < 0) {
            int sleeping = 0;
            for (String dataSource : new String[] {"ds_0", "ds_1"}) {
                try (Connection c = server.backend(dataSource); Statement s = c.createStatement();
                        ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE state = 'active'"
                                + " AND query LIKE '%pg_sleep(30)%' AND pid <> pg_backend_pid() AND datname = current_database()")) {
                    rs.next();
                    sleeping += rs.getInt(1) > 0 ? 1 : 0;
                }
            }
            if (sleeping == 2) {
                return;
            }
            Thread.sleep(20);
        }
        // Past 8 s the cancel goes anyway: the units then must still not all run to their end.
    }

    /** Values of types the proxy has no binary encoder for: an enum, xml, money, bit, pg_lsn, a record. */
    private static final String UNENCODABLE = "SELECT 'happy'::binary_mood AS m, '<a/>'::xml AS x, 12.5::money AS mo,"
            + " B'1010' AS b, '0/16B3748'::pg_lsn AS l, row(id, name) AS r, id FROM t_og WHERE id = $1";

    /**
     * A statement that one shard answers alone gets its result formats from the client's Bind: the
     * shard sends its rows in them and the proxy passes them on as they are, so binary works for any
     * type PostgreSQL sends in binary (asyncpg asks for binary for every column), byte for byte what
     * the shard sends a client of its own. So are the rows of several shards that nothing merges (one shard's after
     * another's); rows merged from text (sorted here) are encoded by the proxy, and a type without a binary encoder in
     * the proxy is still refused by name.
     */
    @Test
    void binaryResultsOfOneShardAreTheShardsOwn() throws Exception {
        for (String dataSource : new String[] {"ds_0", "ds_1"}) {
            try (Connection c = server.backend(dataSource); Statement s = c.createStatement()) {
                s.execute("CREATE TYPE binary_mood AS ENUM ('sad', 'happy')");
            }
        }
        short[] binary = {1};
        byte[][] idZero = {{0, 0, 0, 0}};
        byte[] exchange = RawConnection.concat(RawConnection.parse("", UNENCODABLE, 23),
                RawConnection.bind("", "", binary, idZero, binary), RawConnection.describe('P', ""),
                RawConnection.execute("", 0), RawConnection.sync());
        List<String> proxied;
        try (RawConnection c = new RawConnection(server.proxyPort())) {
            c.logIn(ProxiedPostgres.PASSWORD_USER, ProxiedPostgres.DATABASE, ProxiedPostgres.password(ProxiedPostgres.PASSWORD_USER));
            c.send(exchange);
            proxied = rows(c.readUntilReady());
        }
        List<String> direct;
        try (RawConnection c = new RawConnection(server.backendPort())) {
            c.logIn(ProxiedPostgres.BACKEND_USER, "ds_0", ""); // id 0: ds_0, t_og_0
            c.send(RawConnection.concat(RawConnection.parse("", UNENCODABLE.replace("t_og", "t_og_0"), 23),
                    RawConnection.bind("", "", binary, idZero, binary), RawConnection.describe('P', ""),
                    RawConnection.execute("", 0), RawConnection.sync()));
            direct = rows(c.readUntilReady());
        }
        assertEquals(3, direct.size(), direct::toString);
        assertTrue(direct.get(1).startsWith("D "), direct::toString);
        // The row description names the logical table's columns alike; the DataRow and its tag are the shard's bytes.
        assertEquals(direct.subList(1, 3), proxied.subList(1, 3));
        // Over all four actual tables with nothing to sort: every unit is asked for the client's formats, and its
        // DataRows are the shard's own bytes, as a client of each shard gets them.
        String everyRow = UNENCODABLE.substring(0, UNENCODABLE.indexOf(" WHERE"));
        List<String> concatenated;
        try (RawConnection c = new RawConnection(server.proxyPort())) {
            c.logIn(ProxiedPostgres.PASSWORD_USER, ProxiedPostgres.DATABASE, ProxiedPostgres.password(ProxiedPostgres.PASSWORD_USER));
            c.send(RawConnection.concat(RawConnection.parse("", everyRow), RawConnection.bind("", "", new short[0], new byte[0][], binary),
                    RawConnection.execute("", 0), RawConnection.sync()));
            concatenated = rows(c.readUntilReady());
        }
        List<String> shardRows = new java.util.ArrayList<>();
        for (int id = 0; id < 4; id++) {
            try (RawConnection c = new RawConnection(server.backendPort())) {
                c.logIn(ProxiedPostgres.BACKEND_USER, "ds_" + id % 2, "");
                c.send(RawConnection.concat(RawConnection.parse("", everyRow.replace("t_og", "t_og_" + id / 2 % 2)),
                        RawConnection.bind("", "", new short[0], new byte[0][], binary), RawConnection.execute("", 0),
                        RawConnection.sync()));
                for (String each : rows(c.readUntilReady())) {
                    if (each.startsWith("D ")) {
                        shardRows.add(each);
                    }
                }
            }
        }
        int count = shardRows.size(); // the fixture's four rows, and those other tests of this class left
        assertTrue(count >= 4, shardRows::toString);
        assertEquals("C SELECT " + count, concatenated.get(count), concatenated::toString);
        assertEquals(shardRows.stream().sorted().toList(), concatenated.subList(0, count).stream().sorted().toList());
        try (RawConnection c = new RawConnection(server.proxyPort())) {
            c.logIn(ProxiedPostgres.PASSWORD_USER, ProxiedPostgres.DATABASE, ProxiedPostgres.password(ProxiedPostgres.PASSWORD_USER));
            c.send(RawConnection.concat(RawConnection.parse("", "SELECT '<a/>'::xml AS x, id FROM t_og ORDER BY id"),
                    RawConnection.bind("", "", new short[0], new byte[0][], binary), RawConnection.execute("", 0),
                    RawConnection.sync()));
            List<String> merged = rows(c.readUntilReady());
            assertTrue(merged.get(0).startsWith("E ERROR 0A000 binary output format is not supported by Ashlar for type oid 142"),
                    merged::toString);
            // Codes given per column (pgjdbc's way) tell the proxy the columns' count before the shards answer: the
            // column the merge sorts by comes in text and is encoded by the proxy, the other is the shards' own binary.
            c.send(RawConnection.concat(RawConnection.parse("", "SELECT '<a/>'::xml AS x, id FROM t_og WHERE id < 4 ORDER BY id DESC"),
                    RawConnection.bind("", "", new short[0], new byte[0][], new short[] {1, 1}), RawConnection.execute("", 0),
                    RawConnection.sync()));
            List<String> perColumn = rows(c.readUntilReady());
            assertEquals(List.of("D 00020000000" + "43c612f3e0000000400000003", "D 00020000000" + "43c612f3e0000000400000002",
                    "D 00020000000" + "43c612f3e0000000400000001", "D 00020000000" + "43c612f3e0000000400000000", "C SELECT 4"),
                    perColumn);
            // Text over both shards, and binary of a type the proxy encodes, as before.
            c.send(RawConnection.concat(RawConnection.parse("", "SELECT id FROM t_og ORDER BY id"),
                    RawConnection.bind("", "", new short[0], new byte[0][], binary), RawConnection.execute("", 0),
                    RawConnection.sync()));
            List<String> ids = rows(c.readUntilReady());
            assertEquals(List.of("D 00010000000400000000", "D 00010000000400000001", "D 00010000000400000002",
                    "D 00010000000400000003"), ids.subList(0, 4), ids::toString);
            assertTrue(ids.get(ids.size() - 1).startsWith("C SELECT "), ids::toString);
        } finally {
            for (String dataSource : new String[] {"ds_0", "ds_1"}) {
                try (Connection c = server.backend(dataSource); Statement s = c.createStatement()) {
                    s.execute("DROP TYPE binary_mood");
                }
            }
        }
    }

    /**
     * A pooled database whose sessions run on the JDBC path (its data source rewrites batched
     * INSERTs, which only that path does) asks its backend for the client's result formats too: the
     * rows of a type the proxy has no binary encoder for are the backend's own bytes.
     */
    @Test
    void binaryResultsOfAPooledSessionOnTheJdbcPathAreTheBackendsOwn() throws Exception {
        String sql = "SELECT '<a/>'::xml AS x, 12.5::money AS mo, B'1010' AS b, '0/16B3748'::pg_lsn AS l, row(1, 'a') AS r";
        short[] binary = {1};
        byte[] exchange = RawConnection.concat(RawConnection.parse("", sql), RawConnection.bind("", "", new short[0],
                new byte[0][], binary), RawConnection.describe('P', ""), RawConnection.execute("", 0), RawConnection.sync());
        List<String> direct;
        try (RawConnection c = new RawConnection(server.backendPort())) {
            c.logIn(ProxiedPostgres.BACKEND_USER, "ds_0", "");
            c.send(exchange);
            direct = rows(c.readUntilReady());
        }
        try (io.ashlar.bootstrap.ProxyRuntime pooler = server.pooler("ds_0", java.util.Map.of("reWriteBatchedInserts", "true"));
                RawConnection c = new RawConnection(pooler.port())) {
            c.logIn(ProxiedPostgres.PASSWORD_USER, ProxiedPostgres.POOLED_DATABASE,
                    ProxiedPostgres.password(ProxiedPostgres.PASSWORD_USER));
            c.send(exchange);
            List<String> proxied = rows(c.readUntilReady());
            assertEquals(3, direct.size(), direct::toString);
            assertEquals(direct, proxied);
        }
    }

    /** The messages after ParseComplete and BindComplete: RowDescription or an error, rows, the tag. */
    /**
     * A query merged over several shards ends with PostgreSQL's tag, {@code SELECT n}, in both protocols; it was
     * {@code " n"} (no verb: the shards' own tags come after their rows), and node-postgres and postgres.js, which
     * start a new result only at a tag with a command word, ran the results of a multi-statement query together.
     */
    @Test
    void queriesMergedOverShardsEndWithASelectTag() throws Exception {
        try (RawConnection c = new RawConnection(server.proxyPort())) {
            c.logIn(ProxiedPostgres.PASSWORD_USER, ProxiedPostgres.DATABASE, ProxiedPostgres.password(ProxiedPostgres.PASSWORD_USER));
            // t_og_0 alone: one unit on each data source, read as one statement each (its tag after its rows); all of
            // t_og: two units on each, read as portals.
            c.send(RawConnection.query("SELECT count(*) FROM t_og; SELECT id FROM t_og ORDER BY id LIMIT 2;"
                    + " SELECT id FROM t_og WHERE id = 1; SELECT DISTINCT name FROM t_og; SELECT id FROM t_og;"
                    + " SELECT id FROM t_og WHERE id IN (0, 1) ORDER BY id; SELECT count(*) FROM t_og WHERE id IN (0, 1)"));
            List<RawConnection.Message> answer = c.readUntilReady();
            assertEquals(selectTags(answer), tags(answer));
            assertEquals(7, tags(answer).size());
            c.send(RawConnection.concat(RawConnection.parse("", "SELECT id FROM t_og WHERE id IN (0, 1)"), RawConnection.bind("", ""),
                    RawConnection.execute("", 0), RawConnection.parse("", "SELECT max(id) FROM t_og"), RawConnection.bind("", ""),
                    RawConnection.execute("", 0), RawConnection.sync()));
            answer = c.readUntilReady();
            assertEquals(selectTags(answer), tags(answer));
            assertEquals(2, tags(answer).size());
        }
    }

    /**
     * Under extra_float_digits 0 the shards print floats rounded to 15 digits: binary floats merged over shards, which
     * the proxy encodes from the shards' text, are refused with 0A000 (they were silently wrong: 0.3 for
     * 0.30000000000000004, +Infinity for the largest float8). One shard's binary is its own and stays; text is
     * relayed as PostgreSQL prints it.
     */
    @Test
    void binaryFloatsOverShardsNeedExactText() throws Exception {
        short[] binary = {1};
        try (RawConnection c = new RawConnection(server.proxyPort())) {
            c.logIn(ProxiedPostgres.PASSWORD_USER, ProxiedPostgres.DATABASE, ProxiedPostgres.password(ProxiedPostgres.PASSWORD_USER));
            c.send(RawConnection.query("SET extra_float_digits = 0"));
            assertEquals("CZ", RawConnection.types(c.readUntilReady()));
            String overShards = "SELECT (0.1::float8 + id * 0.2::float8) AS f FROM t_og WHERE id IN (0, 1) ORDER BY id";
            c.send(RawConnection.concat(RawConnection.parse("", overShards), RawConnection.bind("", "", new short[0], new byte[0][], binary),
                    RawConnection.execute("", 0), RawConnection.sync()));
            List<RawConnection.Message> refused = c.readUntilReady();
            assertEquals("12EZ", RawConnection.types(refused));
            assertTrue(WireTraceTest.render(refused.get(2)).contains("0A000"), WireTraceTest.render(refused.get(2)));
            c.send(RawConnection.concat(RawConnection.parse("", overShards.replace("IN (0, 1)", "= 1")),
                    RawConnection.bind("", "", new short[0], new byte[0][], binary), RawConnection.execute("", 0), RawConnection.sync()));
            List<RawConnection.Message> one = c.readUntilReady();
            assertEquals("12DCZ", RawConnection.types(one));
            assertEquals(0.1 + 0.2, java.nio.ByteBuffer.wrap(one.get(2).body(), 6, 8).getDouble(), "the shard's own binary");
            c.send(RawConnection.query(overShards));
            List<String> text = new ArrayList<>();
            for (RawConnection.Message m : c.readUntilReady()) {
                if (m.type() == 'D') {
                    text.add(new String(m.body(), 6, m.body().length - 6, java.nio.charset.StandardCharsets.UTF_8));
                }
            }
            assertEquals(List.of("0.1", "0.3"), text, "as PostgreSQL prints them under extra_float_digits 0");
        }
    }

    /**
     * An error's position counts from the start of the query string the client sent, whatever statement of it failed
     * and however the proxy rewrote it for the shards (table names, derived columns): where the rewrite changed the
     * text around the error, no position rather than a wrong one. It counted from the failing statement's start, in
     * the text the shard got.
     */
    @Test
    void errorPositionsPointIntoTheClientsText() throws Exception {
        String[] queries = {
            "SELECT 1; SELECT nocol FROM t_og WHERE id = 1",
            "SELECT 1;\nSELECT id FROM t_og WHERE id = 1 AND nocol = 2",
            "SELECT id FROM t_og WHERE id = 1 AND nocol = 2",
            "SELECT id FROM t_og WHERE nocol = 2",
            "SELECT 1; SELECT id, name FROM t_og ORDER BY nocol",
        };
        try (RawConnection c = new RawConnection(server.proxyPort())) {
            c.logIn(ProxiedPostgres.PASSWORD_USER, ProxiedPostgres.DATABASE, ProxiedPostgres.password(ProxiedPostgres.PASSWORD_USER));
            for (int i = 0; i < queries.length; i++) {
                c.send(RawConnection.query(queries[i]));
                String error = null;
                for (RawConnection.Message m : c.readUntilReady()) {
                    if (m.type() == 'E') {
                        error = WireTraceTest.render(m);
                    }
                }
                assertTrue(error != null && error.contains("42703"), queries[i] + ": " + error);
                String expected = " position=" + (queries[i].lastIndexOf("nocol") + 1);
                if (i < 4) {
                    assertTrue(error.endsWith(expected), queries[i] + ": " + error + ", expected" + expected);
                } else {
                    assertTrue(error.endsWith(expected) || !error.contains("position="), queries[i] + ": " + error + ", expected" + expected);
                }
            }
        }
    }

    /**
     * A syntax error at the end of the text ("at end of input", one past its last character) keeps its position: in a
     * simple query it had none (the rewritten text is longer), in a Parse (lib/pq's Describe) it counted in the
     * rewritten text, 2 too far.
     */
    @Test
    void syntaxErrorsAtTheEndKeepTheirPosition() throws Exception {
        try (RawConnection c = new RawConnection(server.proxyPort())) {
            c.logIn(ProxiedPostgres.PASSWORD_USER, ProxiedPostgres.DATABASE, ProxiedPostgres.password(ProxiedPostgres.PASSWORD_USER));
            String simple = "SELECT * FROM t_og WHERE id = 1 AND";
            c.send(RawConnection.query(simple));
            List<RawConnection.Message> answer = c.readUntilReady();
            assertEquals("42601", answer.get(0).fields().get('C'), answer::toString);
            assertEquals(String.valueOf(simple.length() + 1), answer.get(0).fields().get('P'), answer::toString);
            String extended = "SELECT * FROM t_og WHERE id = $1 AND";
            c.send(RawConnection.concat(RawConnection.parse("", extended), RawConnection.describe('S', ""), RawConnection.sync()));
            answer = c.readUntilReady();
            assertEquals("42601", answer.get(0).fields().get('C'), answer::toString);
            assertEquals(String.valueOf(extended.length() + 1), answer.get(0).fields().get('P'), answer::toString);
        }
    }

    /**
     * Text that is not SQL, over several shards, gets PostgreSQL's own error for it (42601 with its position, as the
     * catalog database's Parse of the text gives it), not Ashlar's 0A000 "statement not understood by Ashlar's parser":
     * an application's error handling tells syntax errors by their SQLSTATE.
     */
    @Test
    void textThatIsNotSqlGetsPostgresqlsSyntaxError() throws Exception {
        String[] statements = {"SELECT * FROM t_og WHERE name = 'x' AND (", "SELECT * FROM t_og WHERE name = 'x' GROUP"};
        try (RawConnection direct = new RawConnection(server.backendPort());
                RawConnection c = new RawConnection(server.proxyPort())) {
            direct.logIn(ProxiedPostgres.BACKEND_USER, ProxiedPostgres.DATABASE, "");
            c.logIn(ProxiedPostgres.PASSWORD_USER, ProxiedPostgres.DATABASE, ProxiedPostgres.password(ProxiedPostgres.PASSWORD_USER));
            for (String statement : statements) {
                direct.send(RawConnection.query(statement));
                RawConnection.Message expected = direct.readUntilReady().get(0);
                assertEquals("42601", expected.fields().get('C'), statement);
                String prefix = "SELECT 1; ";
                c.send(RawConnection.query(prefix + statement));
                List<RawConnection.Message> answer = c.readUntilReady();
                RawConnection.Message error = answer.get(answer.size() - 2);
                assertEquals("42601", error.fields().get('C'), answer::toString);
                assertEquals(expected.fields().get('M'), error.fields().get('M'));
                assertEquals(String.valueOf(prefix.length() + Integer.parseInt(expected.fields().get('P'))), error.fields().get('P'),
                        answer::toString);
                c.send(RawConnection.concat(RawConnection.parse("", statement), RawConnection.describe('S', ""), RawConnection.sync()));
                answer = c.readUntilReady();
                assertEquals("42601", answer.get(0).fields().get('C'), answer::toString);
                assertEquals(expected.fields().get('P'), answer.get(0).fields().get('P'), answer::toString);
            }
            // Several statements in one Parse (r2dbc with a fetch size sends a script so): PostgreSQL's 42601 too.
            c.send(RawConnection.concat(RawConnection.parse("", "DELETE FROM t_og WHERE name = 'a'; DELETE FROM t_og WHERE name = 'b'"),
                    RawConnection.describe('S', ""), RawConnection.sync()));
            List<RawConnection.Message> answer = c.readUntilReady();
            assertEquals("42601", answer.get(0).fields().get('C'), answer::toString);
            assertEquals("cannot insert multiple commands into a prepared statement", answer.get(0).fields().get('M'));
        }
    }

    /**
     * A NULL stored into a NOT NULL sharding column is PostgreSQL's not-null violation (23502, with the schema, table
     * and column fields psycopg2's diag and lib/pq's Error read), as a literal and as a parameter: it was Ashlar's 0A000
     * (the row has no shard), which error handling keyed to 23502 did not recognise.
     */
    @Test
    void nullIntoANotNullShardingColumnIsANotNullViolation() throws Exception {
        try (RawConnection c = new RawConnection(server.proxyPort())) {
            c.logIn(ProxiedPostgres.PASSWORD_USER, ProxiedPostgres.DATABASE, ProxiedPostgres.password(ProxiedPostgres.PASSWORD_USER));
            c.send(RawConnection.query("INSERT INTO t_og (id, name) VALUES (NULL, 'x')"));
            List<RawConnection.Message> answer = c.readUntilReady();
            assertNotNullViolation(answer.get(0));
            c.send(RawConnection.concat(RawConnection.parse("", "INSERT INTO t_og (id, name) VALUES ($1, $2)"),
                    RawConnection.bind("", "", null, "x"), RawConnection.execute("", 0), RawConnection.sync()));
            answer = c.readUntilReady();
            assertEquals("12EZ", RawConnection.types(answer), answer::toString);
            assertNotNullViolation(answer.get(2));
            // left out, without a default
            c.send(RawConnection.query("INSERT INTO t_og (name) VALUES ('x')"));
            answer = c.readUntilReady();
            assertNotNullViolation(answer.get(0));
        }
    }

    private static void assertNotNullViolation(RawConnection.Message error) {
        Map<Character, String> fields = error.fields();
        assertEquals("23502", fields.get('C'), fields::toString);
        assertEquals("null value in column \"id\" of relation \"t_og\" violates not-null constraint", fields.get('M'));
        assertEquals("public", fields.get('s'));
        assertEquals("t_og", fields.get('t'));
        assertEquals("id", fields.get('c'));
    }

    /**
     * A parameter that only HAVING or OFFSET types, over several shards (where the proxy applies them, so the shards'
     * text lacks it), is described as PostgreSQL describes the client's text: it was 42P18 "could not determine data
     * type of parameter $1" (Vert.x's prepared queries, which declare no types first, failed).
     */
    @Test
    void parametersOnlyHavingOrOffsetTypesAreDescribed() throws Exception {
        String[][] cases = {
            {"SELECT name, count(*) FROM t_og GROUP BY name HAVING count(*) > $1 ORDER BY name", "20"},
            {"SELECT id FROM t_og ORDER BY id OFFSET $1", "20"},
        };
        try (RawConnection c = new RawConnection(server.proxyPort())) {
            c.logIn(ProxiedPostgres.PASSWORD_USER, ProxiedPostgres.DATABASE, ProxiedPostgres.password(ProxiedPostgres.PASSWORD_USER));
            for (String[] each : cases) {
                c.send(RawConnection.concat(RawConnection.parse("", each[0]), RawConnection.describe('S', ""),
                        RawConnection.bind("", "", "0"), RawConnection.execute("", 0), RawConnection.sync()));
                List<RawConnection.Message> answer = c.readUntilReady();
                String types = RawConnection.types(answer);
                assertTrue(types.startsWith("1tT2") && types.endsWith("CZ"), each[0] + ": " + answer);
                java.nio.ByteBuffer parameters = java.nio.ByteBuffer.wrap(answer.get(1).body());
                assertEquals(1, parameters.getShort());
                assertEquals(Integer.parseInt(each[1]), parameters.getInt(), each[0]);
            }
        }
    }

    /**
     * A changed setting is reported (ParameterStatus) just before the ReadyForQuery, after the SET's CommandComplete,
     * where PostgreSQL reports it; it came first, and r2dbc made one result of the SET and the statement after it.
     */
    @Test
    void changedSettingsAreReportedBeforeReadyForQuery() throws Exception {
        try (RawConnection direct = new RawConnection(server.backendPort());
                RawConnection c = new RawConnection(server.proxyPort())) {
            direct.logIn(ProxiedPostgres.BACKEND_USER, "ds_0", "");
            c.logIn(ProxiedPostgres.PASSWORD_USER, ProxiedPostgres.DATABASE, ProxiedPostgres.password(ProxiedPostgres.PASSWORD_USER));
            for (String sql : new String[] {"SET application_name = 'edge'", "SET application_name = 'a'; SELECT 1"}) {
                direct.send(RawConnection.query(sql));
                c.send(RawConnection.query(sql));
                assertEquals(RawConnection.types(direct.readUntilReady()), RawConnection.types(c.readUntilReady()), sql);
            }
        }
    }

    /**
     * Session values used as tables, as TypeORM asks for the database (SELECT * FROM current_database()): the proxy's
     * answer stood there as a subquery without an alias, which PostgreSQL refuses (42601, and TypeORM could neither
     * synchronize nor generate a migration); an alias the client gives names the one column, as PostgreSQL does.
     */
    @Test
    void sessionValuesInFromAreTables() throws Exception {
        String[][] cases = {
            {"SELECT * FROM current_database()", "current_database", ProxiedPostgres.DATABASE},
            {"select * from current_database() as d", "d", ProxiedPostgres.DATABASE},
            {"select d from current_database() d", "d", ProxiedPostgres.DATABASE},
            {"SELECT * FROM current_database() AS d(x)", "x", ProxiedPostgres.DATABASE},
            {"SELECT * FROM current_user", "current_user", ProxiedPostgres.PASSWORD_USER},
            {"select u from current_user u", "u", ProxiedPostgres.PASSWORD_USER},
            {"SELECT s.x FROM (SELECT current_user AS x) s, current_database() WHERE current_database = current_catalog", "x",
                ProxiedPostgres.PASSWORD_USER},
        };
        try (Connection c = DriverManager.getConnection(server.proxyUrl(""), ProxiedPostgres.PASSWORD_USER,
                ProxiedPostgres.password(ProxiedPostgres.PASSWORD_USER)); Statement s = c.createStatement()) {
            for (String[] each : cases) {
                try (ResultSet rs = s.executeQuery(each[0])) {
                    assertEquals(each[1], rs.getMetaData().getColumnName(1), each[0]);
                    assertTrue(rs.next(), each[0]);
                    assertEquals(each[2], rs.getString(1), each[0]);
                }
            }
        }
    }

    /**
     * Catalog queries inside a transaction block see the block's own DDL, as on PostgreSQL: a Django migration makes a
     * table with a unique column, then looks the constraint up to drop it, in one transaction; the catalog database
     * had the table only after the block, so Django found nothing, dropped nothing and said OK. A rolled-back block
     * leaves the catalog as it was.
     */
    @Test
    void catalogQueriesInABlockSeeItsDdl() throws Exception {
        String constraints = "SELECT c.conname FROM pg_catalog.pg_constraint c JOIN pg_catalog.pg_class r ON r.oid = c.conrelid"
                + " WHERE r.relname = 'tx_gadget' ORDER BY 1";
        String columns = "SELECT column_name FROM information_schema.columns WHERE table_name = 'tx_gadget' ORDER BY 1";
        try (Connection c = DriverManager.getConnection(server.proxyUrl(""), ProxiedPostgres.PASSWORD_USER,
                ProxiedPostgres.password(ProxiedPostgres.PASSWORD_USER)); Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            s.execute("CREATE TABLE tx_gadget (id int PRIMARY KEY, code text UNIQUE)");
            assertEquals(List.of("tx_gadget_code_key", "tx_gadget_pkey"), strings(s, constraints), "in the block that made it");
            s.execute("ALTER TABLE tx_gadget DROP CONSTRAINT tx_gadget_code_key");
            assertEquals(List.of("tx_gadget_pkey"), strings(s, constraints), "after dropping one in the block");
            c.commit();
            assertEquals(List.of("tx_gadget_pkey"), strings(s, constraints), "after the commit");
            s.execute("ALTER TABLE tx_gadget ADD COLUMN extra int");
            assertEquals(List.of("code", "extra", "id"), strings(s, columns), "in the block");
            c.rollback();
            assertEquals(List.of("code", "id"), strings(s, columns), "after the rollback");
            c.setAutoCommit(true);
            s.execute("DROP TABLE tx_gadget");
        }
    }

    private static List<String> strings(Statement s, String sql) throws SQLException {
        List<String> result = new java.util.ArrayList<>();
        try (ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                result.add(rs.getString(1));
            }
        }
        return result;
    }

    /**
     * An upsert that sets its sharding column to the proposed row's own value (TypeORM's and Sequelize's upserts set
     * every column to EXCLUDED's) keeps the row where it is: the proposed row routed to the very node it conflicts on.
     * It was refused with 0A000 like any update of a sharding column, which still holds for other values.
     */
    @Test
    void upsertSettingTheShardingColumnToExcludedRuns() throws Exception {
        String upsert = "INSERT INTO t_og (id, name) VALUES (41, '%s') ON CONFLICT (id) DO UPDATE SET id = EXCLUDED.id,"
                + " name = EXCLUDED.name";
        try (Connection c = DriverManager.getConnection(server.proxyUrl(""), ProxiedPostgres.PASSWORD_USER,
                ProxiedPostgres.password(ProxiedPostgres.PASSWORD_USER)); Statement s = c.createStatement()) {
            s.execute("DELETE FROM t_og WHERE id = 41");
            assertEquals(1, s.executeUpdate(upsert.formatted("first")));
            assertEquals(1, s.executeUpdate(upsert.formatted("second")));
            assertEquals(List.of("second"), strings(s, "SELECT name FROM t_og WHERE id = 41"));
            // id 41 lives in ds_1 (41 % 2), table t_og_0 (41 / 2 % 2 = 0): the row is there, once
            try (Connection shard = server.backend("ds_1"); Statement b = shard.createStatement()) {
                assertEquals(List.of("second"), strings(b, "SELECT name FROM t_og_0 WHERE id = 41"));
            }
            SQLException refused = org.junit.jupiter.api.Assertions.assertThrows(SQLException.class, () -> s.executeUpdate(
                    "INSERT INTO t_og (id, name) VALUES (41, 'x') ON CONFLICT (id) DO UPDATE SET id = EXCLUDED.id + 2"));
            assertEquals("0A000", refused.getSQLState());
            s.execute("DELETE FROM t_og WHERE id = 41");
        }
    }

    /**
     * Catalog queries see the session's search_path as set_config, RESET and SET leave it (pg_table_is_visible, which
     * psql's and pg_dump's name patterns use), inside a transaction block too: pg_dump RESETs its empty search_path in
     * its transaction before its -t/-T look-up, which found no table through the proxy (the change reached the catalog
     * database only when the block ended); a rolled-back SET is gone.
     */
    @Test
    void catalogQueriesFollowSearchPathChanges() throws Exception {
        String visible = "SELECT c.relname FROM pg_catalog.pg_class c LEFT JOIN pg_catalog.pg_namespace n"
                + " ON n.oid OPERATOR(pg_catalog.=) c.relnamespace WHERE c.relkind OPERATOR(pg_catalog.=) ANY (array['r', 'p'])"
                + " AND c.relname OPERATOR(pg_catalog.~) '^(t_og)$' COLLATE pg_catalog.default"
                + " AND pg_catalog.pg_table_is_visible(c.oid)";
        try (Connection c = DriverManager.getConnection(server.proxyUrl("preferQueryMode=simple"), ProxiedPostgres.PASSWORD_USER,
                ProxiedPostgres.password(ProxiedPostgres.PASSWORD_USER)); Statement s = c.createStatement()) {
            s.execute("SELECT pg_catalog.set_config('search_path', '', false)");
            assertEquals(List.of(), strings(s, visible), "with an empty search_path");
            s.execute("RESET search_path");
            assertEquals(List.of("t_og"), strings(s, visible), "after RESET");
            s.execute("SELECT pg_catalog.set_config('search_path', '', false)");
            assertEquals(List.of(), strings(s, visible), "emptied again");
            s.execute("SET search_path TO public");
            assertEquals(List.of("t_og"), strings(s, visible), "after SET");
            // pg_dump's order: emptied at login, then in its REPEATABLE READ transaction RESET, the look-up, emptied
            s.execute("SELECT pg_catalog.set_config('search_path', '', false)");
            s.execute("BEGIN");
            s.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY");
            s.execute("RESET search_path");
            assertEquals(List.of("t_og"), strings(s, visible), "after RESET in a transaction");
            s.execute("SELECT pg_catalog.set_config('search_path', '', false)");
            assertEquals(List.of(), strings(s, visible), "emptied in the transaction");
            s.execute("COMMIT");
            assertEquals(List.of(), strings(s, visible), "still empty after the transaction");
            s.execute("BEGIN");
            s.execute("SET search_path TO public");
            assertEquals(List.of("t_og"), strings(s, visible), "set in a transaction");
            s.execute("ROLLBACK");
            assertEquals(List.of(), strings(s, visible), "rolled back");
            s.execute("RESET search_path");
        }
    }

    /**
     * A Parse of text that does not parse, then a Bind that gives it a parameter (pgx's exec mode sends them
     * together, and so does a client that took a deallocated statement's name for SQL): PostgreSQL refuses the Parse
     * with 42601 and skips the rest; the client got 08P01 for the parameter count instead.
     */
    @Test
    void aBindOfTextThatDoesNotParseGetsTheSyntaxError() throws Exception {
        try (RawConnection c = new RawConnection(server.proxyPort())) {
            c.logIn(ProxiedPostgres.PASSWORD_USER, ProxiedPostgres.DATABASE, ProxiedPostgres.password(ProxiedPostgres.PASSWORD_USER));
            c.send(RawConnection.concat(RawConnection.parse("", "SELEC 1"), RawConnection.bind("", "", "x"),
                    RawConnection.describe('P', ""), RawConnection.execute("", 0), RawConnection.sync()));
            String error = null;
            for (RawConnection.Message m : c.readUntilReady()) {
                if (m.type() == 'E') {
                    error = WireTraceTest.render(m);
                }
            }
            assertTrue(error != null && error.contains(" 42601 "), String.valueOf(error));
            c.send(RawConnection.query("SELECT 1"));
            assertEquals("TDCZ", RawConnection.types(c.readUntilReady()));
        }
    }

    /** {@code SELECT n} for each result, n its DataRows: PostgreSQL's tag for it. */
    private static List<String> selectTags(List<RawConnection.Message> messages) {
        List<String> result = new ArrayList<>();
        int rows = 0;
        for (RawConnection.Message m : messages) {
            if (m.type() == 'D') {
                rows++;
            } else if (m.type() == 'C') {
                result.add("SELECT " + rows);
                rows = 0;
            }
        }
        return result;
    }

    private static List<String> tags(List<RawConnection.Message> messages) {
        List<String> result = new ArrayList<>();
        for (RawConnection.Message m : messages) {
            if (m.type() == 'C') {
                result.add(new String(m.body(), 0, m.body().length - 1, java.nio.charset.StandardCharsets.UTF_8));
            }
        }
        return result;
    }

    private static List<String> rows(List<RawConnection.Message> messages) {
        List<String> result = new ArrayList<>();
        for (RawConnection.Message m : messages) {
            if (m.type() != '1' && m.type() != '2' && m.type() != 'Z') {
                result.add(WireTraceTest.render(m));
            }
        }
        return result;
    }

    /**
     * The function call protocol (pgjdbc's large objects use it) is refused with an error and a
     * ReadyForQuery, as a simple query would be: no Sync follows a function call (the session
     * waited for one, and the client for ever).
     */
    @Test
    void aFunctionCallIsRefusedAndTheSessionGoesOn() throws Exception {
        try (RawConnection c = new RawConnection(server.proxyPort())) {
            c.logIn(ProxiedPostgres.PASSWORD_USER, ProxiedPostgres.DATABASE, ProxiedPostgres.password(ProxiedPostgres.PASSWORD_USER));
            // FunctionCall: function OID (lo_creat is 957), no argument formats, no arguments, text result.
            c.send(RawConnection.message('F', java.nio.ByteBuffer.allocate(10).putInt(957).putShort((short) 0)
                    .putShort((short) 0).putShort((short) 0).array()));
            List<String> answer = new ArrayList<>();
            for (RawConnection.Message m : c.readUntilReady()) {
                answer.add(WireTraceTest.render(m));
            }
            assertEquals(2, answer.size(), answer::toString);
            assertTrue(answer.get(0).startsWith("E ERROR 0A000"), answer::toString);
            c.send(RawConnection.query("SELECT count(*) FROM t_og"));
            List<String> next = new ArrayList<>();
            for (RawConnection.Message m : c.readUntilReady()) {
                next.add(WireTraceTest.render(m));
            }
            assertTrue(next.contains("C SELECT 1"), next::toString);
        }
    }

    /**
     * A query string of several statements runs in one implicit transaction; when one of its
     * statements fails on a shard, that transaction rolls back, and nothing of its failure stays
     * with the session: the next pipeline's implicit transaction (two INSERTs on both data sources,
     * one Sync) commits. The failure was kept, and that pipeline rolled back at its Sync after its
     * client had been told both rows went in.
     */
    @Test
    void aFailedQueryStringDoesNotRollBackTheNextPipeline() throws Exception {
        try (RawConnection c = new RawConnection(server.proxyPort())) {
            c.logIn(ProxiedPostgres.PASSWORD_USER, ProxiedPostgres.DATABASE, ProxiedPostgres.password(ProxiedPostgres.PASSWORD_USER));
            c.send(RawConnection.query("INSERT INTO t_og (id, name) VALUES (40, 'rolled back');"
                    + " SELECT 1 / (id - id) FROM t_og WHERE id = 0"));
            List<String> failed = new ArrayList<>();
            for (RawConnection.Message m : c.readUntilReady()) {
                failed.add(WireTraceTest.render(m));
            }
            assertTrue(failed.stream().anyMatch(line -> line.startsWith("E ERROR 22012")), failed::toString);
            c.send(RawConnection.concat(RawConnection.parse("", "INSERT INTO t_og (id, name) VALUES ($1, $2)"),
                    RawConnection.bind("", "", "41", "committed"), RawConnection.execute("", 0),
                    RawConnection.bind("", "", "42", "committed"), RawConnection.execute("", 0), RawConnection.sync()));
            List<String> pipeline = new ArrayList<>();
            for (RawConnection.Message m : c.readUntilReady()) {
                pipeline.add(WireTraceTest.render(m));
            }
            assertEquals(2, pipeline.stream().filter(line -> line.equals("C INSERT 0 1")).count(), pipeline::toString);
        }
        try (Connection c = server.proxy(""); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT id FROM t_og WHERE id BETWEEN 40 AND 42 ORDER BY id")) {
            List<Integer> ids = new ArrayList<>();
            while (rs.next()) {
                ids.add(rs.getInt(1));
            }
            assertEquals(List.of(41, 42), ids, "the rows of the pipeline whose client was told they went in");
        }
    }

    /**
     * PostgreSQL parses a whole query string before it runs any of it: a syntax error in its last statement, and none
     * of the others runs, a COMMIT ahead of it included (42601 at the error's place in the string). The proxy ran the
     * statements one by one up to the one it could not read, and the INSERT ahead of the COMMIT stayed (pgx's batches in
     * its simple protocol mode send such strings). In a transaction block the syntax error aborts the block, as
     * PostgreSQL's does; a string without one still runs whole.
     */
    @Test
    void aSyntaxErrorLateInAQueryStringRunsNoneOfIt() throws Exception {
        String late = "BEGIN; INSERT INTO t_og (id, name) VALUES (50, 'committed before the error'); COMMIT; SELEC oops";
        try (RawConnection c = new RawConnection(server.proxyPort())) {
            c.logIn(ProxiedPostgres.PASSWORD_USER, ProxiedPostgres.DATABASE, ProxiedPostgres.password(ProxiedPostgres.PASSWORD_USER));
            List<String> answer = answer(c, late);
            assertEquals(List.of("E ERROR 42601 syntax error at or near \"SELEC\" position=" + (late.indexOf("SELEC") + 1), "Z I"), answer);

            answer(c, "BEGIN");
            List<String> inBlock = answer(c, "INSERT INTO t_og (id, name) VALUES (51, 'in the block'); SELECT 1 FROM");
            assertTrue(inBlock.get(0).startsWith("E ERROR 42601"), inBlock::toString);
            assertEquals("Z E", inBlock.get(inBlock.size() - 1), "the syntax error aborts the block");
            answer(c, "ROLLBACK");

            List<String> whole = answer(c, "INSERT INTO t_og (id, name) VALUES (52, 'whole'); SELECT count(*) FROM t_og WHERE id = 52");
            assertTrue(whole.contains("C INSERT 0 1") && whole.contains("C SELECT 1"), whole::toString);
        }
        try (Connection c = server.proxy(""); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT id FROM t_og WHERE id BETWEEN 50 AND 52 ORDER BY id")) {
            List<Integer> ids = new ArrayList<>();
            while (rs.next()) {
                ids.add(rs.getInt(1));
            }
            assertEquals(List.of(52), ids, "only the string without a syntax error ran");
        }
    }

    /**
     * SQL's PREPARE of a statement PostgreSQL refuses fails at the PREPARE, with PostgreSQL's SQLSTATE, message and
     * position (counted in the client's text), and aborts a transaction block; the name stays free. It succeeded, and
     * the error came at EXECUTE. A valid PREPARE still prepares, and its EXECUTE runs.
     */
    @Test
    void aPrepareOfAStatementPostgresqlRefusesFailsAtThePrepare() throws Exception {
        String[] statements = {
            "PREPARE q AS SELEC 1",
            "PREPARE q AS SELECT nosuch FROM t_og",
            "PREPARE q AS SELECT * FROM no_such_table",
            "PREPARE q (int) AS SELECT name FROM t_og WHERE id = $1 AND nocol = 2",
            "PREPARE q (no_such_type) AS SELECT name FROM t_og WHERE id = $1",
            "PREPARE q AS INSERT INTO t_og (id, nocol) VALUES (1, 2)",
            "SELECT 1; PREPARE q AS SELECT nosuch FROM t_og",
        };
        try (RawConnection direct = new RawConnection(server.backendPort());
                RawConnection c = new RawConnection(server.proxyPort())) {
            // The catalog database holds t_og as one table: PostgreSQL's own answers.
            direct.logIn(ProxiedPostgres.BACKEND_USER, ProxiedPostgres.DATABASE, "");
            c.logIn(ProxiedPostgres.PASSWORD_USER, ProxiedPostgres.DATABASE, ProxiedPostgres.password(ProxiedPostgres.PASSWORD_USER));
            for (String statement : statements) {
                List<String> expected = answer(direct, statement);
                assertTrue(expected.get(expected.size() - 2).startsWith("E ERROR 42"), statement + ": " + expected);
                assertEquals(expected, answer(c, statement), statement);
            }
            answer(c, "BEGIN");
            List<String> failed = answer(c, "PREPARE q AS SELECT nosuch FROM t_og");
            assertTrue(failed.get(0).startsWith("E ERROR 42703"), failed::toString);
            assertEquals("Z E", failed.get(failed.size() - 1), "the failed PREPARE aborts the block");
            List<String> aborted = answer(c, "SELECT 1");
            assertTrue(aborted.get(0).startsWith("E ERROR 25P02"), aborted::toString);
            answer(c, "ROLLBACK");

            assertEquals(List.of("C PREPARE", "Z I"), answer(c, "PREPARE q (int) AS SELECT name FROM t_og WHERE id = $1"));
            List<String> executed = answer(c, "EXECUTE q (1)");
            assertTrue(executed.contains("C SELECT 1"), executed::toString);
            assertEquals(List.of("C PREPARE", "Z I"), answer(c, "PREPARE w AS INSERT INTO t_og (id, name) VALUES ($1, $2)"));
            assertEquals(List.of("C INSERT 0 1", "Z I"), answer(c, "EXECUTE w (61, 'prepared')"));
            answer(c, "BEGIN");
            assertEquals(List.of("C PREPARE", "Z T"), answer(c, "PREPARE d AS DELETE FROM t_og WHERE id = $1"));
            assertEquals(List.of("C DELETE 1", "Z T"), answer(c, "EXECUTE d (61)"));
            answer(c, "COMMIT");
        }
    }

    /**
     * An error in the query of DECLARE ... CURSOR FOR (psql's FETCH_COUNT declares one) or of COPY (query) TO STDOUT has
     * PostgreSQL's position, counted from the start of the client's statement: it counted from the start of the query
     * inside, and psql's caret pointed at the wrong place.
     */
    @Test
    void errorPositionsInACursorsOrACopysQueryCountFromTheStatement() throws Exception {
        String[] statements = {
            "DECLARE c CURSOR FOR SELECT nosuch FROM t_og",
            "DECLARE _psql_cursor NO SCROLL CURSOR FOR\nSELECT id FROM t_og WHERE nocol = 2",
            "DECLARE c CURSOR FOR SELECT id FROM t_og WHERE id = 1 AND nocol = 2",
            "DECLARE c CURSOR FOR SELEC 1",
            "DECLARE c CURSOR FOR INSERT INTO t_og (id) VALUES (1)",
            "COPY (SELECT nosuch FROM t_og) TO STDOUT",
            "COPY (SELECT id FROM t_og WHERE nocol = 2) TO STDOUT",
            "COPY (SELECT id FROM t_og WHERE id = 1 AND nocol = 2) TO STDOUT",
            "SELECT 1; DECLARE c CURSOR FOR SELECT id FROM t_og WHERE nocol = 2",
        };
        try (RawConnection direct = new RawConnection(server.backendPort());
                RawConnection c = new RawConnection(server.proxyPort())) {
            // The catalog database holds t_og as one table: PostgreSQL's own answers.
            direct.logIn(ProxiedPostgres.BACKEND_USER, ProxiedPostgres.DATABASE, "");
            c.logIn(ProxiedPostgres.PASSWORD_USER, ProxiedPostgres.DATABASE, ProxiedPostgres.password(ProxiedPostgres.PASSWORD_USER));
            for (String statement : statements) {
                answer(direct, "BEGIN");
                answer(c, "BEGIN");
                List<String> expected = answer(direct, statement);
                String error = expected.get(expected.size() - 2);
                assertTrue(error.startsWith("E ERROR 42") && error.contains(" position="), statement + ": " + expected);
                assertEquals(expected, answer(c, statement), statement);
                answer(direct, "ROLLBACK");
                answer(c, "ROLLBACK");
            }
        }
    }

    /** The answer to a simple query, message by message ({@link WireTraceTest#render}), up to its ReadyForQuery. */
    private static List<String> answer(RawConnection c, String sql) throws Exception {
        c.send(RawConnection.query(sql));
        List<String> result = new ArrayList<>();
        for (RawConnection.Message m : c.readUntilReady()) {
            result.add(WireTraceTest.render(m));
        }
        return result;
    }
}
