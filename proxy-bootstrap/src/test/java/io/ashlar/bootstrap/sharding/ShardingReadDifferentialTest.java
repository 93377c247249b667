package io.ashlar.bootstrap.sharding;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.ashlar.bootstrap.sharding.CorpusEntry.Kind;
import io.ashlar.bootstrap.sharding.DifferentialCheck.Execution;
import io.ashlar.bootstrap.sharding.ShardingLayout.LogicalTable;
import java.io.IOException;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.function.Executable;

/**
 * Issue 3's differential test of reads: every statement of {@code sharding/reads.sql} through the proxy over two
 * shards and against one PostgreSQL database holding the same rows must give the same columns, the same rows (in
 * the same order where ORDER BY fixes it) and the same SQLSTATE. The corpus runs four times: with pgjdbc's default
 * extended protocol, with {@code preferQueryMode=simple}, with every statement a named server-side prepared statement
 * executed twice (the second run takes the proxy's cached plan), and inside a transaction with a fetch size, where
 * pgjdbc reads each result 7 rows at a time from a suspended portal.
 *
 * <p>The rows are loaded through the proxy, as multi-row INSERTs spanning shards, and the same INSERTs go to the
 * reference; one test then reads the shards directly to check each row is where the rules put it. Should the load
 * through the proxy fail for a table, that test fails with the proxy's error and the corpus runs on that table's rows
 * loaded straight into the shards, so that one broken INSERT path does not hide every read bug.
 */
final class ShardingReadDifferentialTest {

    private static final TestData DATA = TestData.generate();

    private static ShardedDatabases databases;
    private static final Map<String, SQLException> LOAD_FAILURES = new LinkedHashMap<>();
    private static final List<ConnectionPair> PAIRS = new ArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        databases = ShardedDatabases.start();
        for (String table : DATA.tables()) {
            databases.loadThroughProxy(DATA, table).ifPresent(failure -> LOAD_FAILURES.put(table, failure));
        }
    }

    @AfterAll
    static void stop() throws IOException {
        PAIRS.forEach(ConnectionPair::close);
        if (databases != null) {
            databases.close();
        }
    }

    @Test
    void rowsLoadedThroughTheProxyLandWhereTheRulesPutThem() {
        List<Executable> checks = new ArrayList<>();
        for (LogicalTable table : ShardingLayout.TABLES) {
            SQLException failure = LOAD_FAILURES.get(table.name());
            if (failure != null) {
                checks.add(() -> fail(failure.getMessage() + " (the corpus ran on its rows loaded directly)", failure));
            } else if (table.createdAtStart()) {
                checks.add(() -> databases.assertContents(table.name()));
            }
        }
        assertAll(checks);
    }

    /**
     * A table's name used as a whole-row value ({@code SELECT t_order FROM t_order}) is renamed with the table, and the
     * column keeps PostgreSQL's name: one shard, an alias, several shards merged, and finished by PostgreSQL.
     */
    @Test
    void wholeRowValues() throws SQLException {
        String[] statements = {
            "SELECT t_order FROM t_order WHERE order_id = 1091",
            "SELECT t FROM t_order t WHERE user_id = 3 ORDER BY order_id",
            "SELECT t_order, row_to_json(t_order) FROM t_order ORDER BY order_id LIMIT 4",
            "SELECT \"t_order\" FROM t_order WHERE user_id IN (3, 4) ORDER BY order_id",
            "SELECT t_order, rank() OVER (ORDER BY order_id) FROM t_order WHERE user_id < 3 ORDER BY order_id"};
        try (ConnectionPair pair = new ConnectionPair(databases, "")) {
            for (String sql : statements) {
                List<String> proxied = wholeRows(pair.proxy(), sql);
                assertEquals(wholeRows(pair.reference(), sql), proxied, sql);
                assertTrue(proxied.size() > 1, sql + " read no row: " + proxied);
            }
        }
    }

    /** The columns' labels, then each row's values as text. */
    private static List<String> wholeRows(java.sql.Connection connection, String sql) throws SQLException {
        List<String> result = new ArrayList<>();
        try (java.sql.Statement statement = connection.createStatement(); java.sql.ResultSet rows = statement.executeQuery(sql)) {
            java.sql.ResultSetMetaData metaData = rows.getMetaData();
            StringBuilder labels = new StringBuilder();
            for (int i = 1; i <= metaData.getColumnCount(); i++) {
                labels.append(metaData.getColumnLabel(i)).append(' ');
            }
            result.add(labels.toString());
            while (rows.next()) {
                StringBuilder row = new StringBuilder();
                for (int i = 1; i <= metaData.getColumnCount(); i++) {
                    row.append(rows.getString(i)).append(" | ");
                }
                result.add(row.toString());
            }
        }
        return result;
    }

    @TestFactory
    List<DynamicContainer> readCorpus() throws IOException {
        List<CorpusEntry> entries = Corpus.load("reads.sql");
        return List.of(
                container("extended protocol", "", Execution.ONCE, entries),
                container("simple protocol", "preferQueryMode=simple", Execution.ONCE, entries),
                container("named prepared statements, executed twice", "prepareThreshold=1", Execution.PREPARED_TWICE, entries),
                container("in a transaction, fetched 7 rows at a time", "defaultRowFetchSize=7", Execution.ONCE, entries));
    }

    private static DynamicContainer container(String name, String parameters, Execution execution, List<CorpusEntry> entries) {
        ConnectionPair pair = new ConnectionPair(databases, parameters, !parameters.startsWith("defaultRowFetchSize"));
        PAIRS.add(pair);
        List<DynamicTest> tests = new ArrayList<>();
        for (CorpusEntry entry : entries) {
            if (entry.kind() != Kind.STATEMENT) {
                throw new IllegalArgumentException(entry.displayName() + ": the read corpus runs on shared rows and cannot hold directives");
            }
            tests.add(DynamicTest.dynamicTest(entry.displayName(), () -> {
                try {
                    DifferentialCheck.verify(pair, entry, execution);
                } finally {
                    pair.rollback();
                }
            }));
        }
        return DynamicContainer.dynamicContainer(name, tests);
    }
}
