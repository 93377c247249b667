package io.ashlar.bootstrap.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * NOTICEs a shard raises while it produces rows (a function called per row) reach the client, in the simple and the
 * extended protocol: PostgreSQL sends each before its row, after the RowDescription, and the proxy passes those
 * that came after a result's header on after its rows, before the CommandComplete. They were dropped.
 */
final class LateNoticeTest {

    private static final String FUNCTION = "CREATE FUNCTION note(x int) RETURNS int LANGUAGE plpgsql AS"
            + " $$ BEGIN RAISE NOTICE 'row %', x; RETURN x; END $$";
    /** A notice that names the actual table, which the client knows by its logical name. */
    private static final String NAMING = "CREATE FUNCTION named(x int) RETURNS int LANGUAGE plpgsql AS"
            + " $$ BEGIN RAISE NOTICE 'row % of relation \"t_og_0\"', x; RETURN x; END $$";

    /** Rows of the statements merged over every unit. */
    private static final int MERGED = 2000;

    private static ProxiedPostgres server;

    @BeforeAll
    static void start() throws Exception {
        server = ProxiedPostgres.startSharded();
        for (String dataSource : new String[] {"ds_0", "ds_1"}) {
            try (Connection c = server.backend(dataSource); Statement s = c.createStatement()) {
                s.execute(FUNCTION);
                s.execute(NAMING);
            }
        }
        try (Connection c = server.proxy(""); Statement s = c.createStatement()) {
            // 1 and 5 both live in ds_1.t_og_0: one unit answers the statement alone.
            s.execute("INSERT INTO t_og (id, name) VALUES (1, 'a'), (5, 'b')");
            // 500 rows in each of the four units, for the statements merged over all of them: more than a first fetch.
            s.execute("INSERT INTO t_og (id, name) SELECT g, 'x' FROM generate_series(0, " + (MERGED - 1) + ") g WHERE g NOT IN (1, 5)");
        }
    }

    @AfterAll
    static void stop() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void noticesRaisedRowByRowReachTheClient() throws SQLException {
        List<String> direct;
        try (Connection c = server.backend("ds_1")) {
            direct = notices(c, "SELECT note(id) FROM t_og_0 WHERE id IN (1, 5) ORDER BY id");
        }
        assertEquals(List.of("row 1", "row 5"), direct, "PostgreSQL's own");
        for (String mode : new String[] {"extended", "simple"}) {
            try (Connection c = DriverManager.getConnection(server.proxyUrl("preferQueryMode=" + mode), ProxiedPostgres.SCRAM_USER,
                    ProxiedPostgres.password(ProxiedPostgres.SCRAM_USER))) {
                for (int round = 0; round < 2; round++) {
                    assertEquals(direct, notices(c, "SELECT note(id) FROM t_og WHERE id IN (1, 5) ORDER BY id"), mode);
                }
                assertEquals(List.of("row 1 of relation \"t_og\"", "row 5 of relation \"t_og\""),
                        notices(c, "SELECT named(id) FROM t_og WHERE id IN (1, 5) ORDER BY id"), mode + ", in logical names");
            }
        }
    }

    @Test
    void noticesRaisedRowByRowOnEveryShardReachTheClientOfAMerge() throws SQLException {
        List<String> rows = new ArrayList<>();
        List<String> named = new ArrayList<>();
        for (int id = 0; id < MERGED; id++) {
            rows.add("row " + id);
            named.add("row " + id + " of relation \"t_og\"");
        }
        rows.sort(null);
        named.sort(null);
        // pgjdbc's query mode, and how many rows it fetches at a time (0: all; more needs a transaction block).
        Object[][] clients = {{"extended", 0}, {"simple", 0}, {"extended", 300}};
        for (Object[] client : clients) {
            String mode = client[0] + ", fetch size " + client[1];
            int fetch = (Integer) client[1];
            try (Connection c = DriverManager.getConnection(server.proxyUrl("preferQueryMode=" + client[0]), ProxiedPostgres.SCRAM_USER,
                    ProxiedPostgres.password(ProxiedPostgres.SCRAM_USER))) {
                c.setAutoCommit(fetch == 0);
                for (int round = 0; round < 2; round++) {
                    // Sorted by the merge (from four units, two per data source read in turns), and concatenated.
                    assertSame(rows, notices(c, "SELECT note(id) FROM t_og WHERE id < " + MERGED + " ORDER BY id", fetch), mode);
                    assertSame(rows, notices(c, "SELECT note(id) FROM t_og WHERE id < " + MERGED, fetch), mode);
                    assertSame(named, notices(c, "SELECT named(id) FROM t_og WHERE id < " + MERGED + " ORDER BY id", fetch),
                            mode + ", in logical names");
                }
                if (fetch != 0) {
                    c.commit();
                }
            }
        }
    }

    /** The same notices in any order (the shards' are interleaved as the merge reads them); says which are missing. */
    private static void assertSame(List<String> expected, List<String> notices, String mode) {
        List<String> sorted = new ArrayList<>(notices);
        sorted.sort(null);
        if (!sorted.equals(expected)) {
            List<String> missing = new ArrayList<>(expected);
            missing.removeAll(notices);
            fail(mode + ": " + notices.size() + " notices of " + expected.size() + ", missing " + missing.size() + " such as "
                    + missing.subList(0, Math.min(5, missing.size())));
        }
    }

    /** The notices a query's execution and reading raised, in order. */
    private static List<String> notices(Connection c, String sql) throws SQLException {
        return notices(c, sql, 0);
    }

    /** The notices a query's execution and reading ({@code fetch} rows at a time, 0: all at once) raised, in order. */
    private static List<String> notices(Connection c, String sql, int fetch) throws SQLException {
        List<String> result = new ArrayList<>();
        try (Statement s = c.createStatement()) {
            s.setFetchSize(fetch);
            try (ResultSet rs = s.executeQuery(sql)) {
                while (rs.next()) {
                    rs.getInt(1);
                }
                for (SQLWarning w = rs.getWarnings(); w != null; w = w.getNextWarning()) {
                    result.add(w.getMessage());
                }
            }
            for (SQLWarning w = s.getWarnings(); w != null; w = w.getNextWarning()) {
                result.add(w.getMessage());
            }
        }
        return result;
    }
}
