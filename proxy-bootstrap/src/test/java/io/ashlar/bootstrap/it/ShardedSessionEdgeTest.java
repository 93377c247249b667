package io.ashlar.bootstrap.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
            Thread canceller = Thread.ofVirtual().start(() -> {
                try {
                    awaitSleeping();
                    s.cancel();
                } catch (InterruptedException | SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            SQLException cancelled = assertThrows(SQLException.class,
                    () -> s.executeQuery("SELECT pg_sleep(3), nextval('cancel_probe'), name FROM t_og"));
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

    private static void awaitSleeping() throws SQLException, InterruptedException {
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(2);
        while (System.nanoTime() - deadline < 0) {
            int sleeping = 0;
            for (String dataSource : new String[] {"ds_0", "ds_1"}) {
                try (Connection c = server.backend(dataSource); Statement s = c.createStatement();
                        ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE state = 'active'"
                                + " AND query LIKE '%pg_sleep(3)%' AND pid <> pg_backend_pid() AND datname = current_database()")) {
                    rs.next();
                    sleeping += rs.getInt(1) > 0 ? 1 : 0;
                }
            }
            if (sleeping == 2) {
                return;
            }
            Thread.sleep(20);
        }
        // Past 2 s the cancel goes anyway: the units then must still not all run to their end.
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
}
