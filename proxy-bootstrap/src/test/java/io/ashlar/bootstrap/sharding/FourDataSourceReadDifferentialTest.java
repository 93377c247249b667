package io.ashlar.bootstrap.sharding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ashlar.backend.config.LogicalDatabaseConfig;
import io.ashlar.bootstrap.ProxyRuntime;
import io.ashlar.bootstrap.config.ProxyConfiguration;
import io.ashlar.bootstrap.config.ProxyConfigurationLoader;
import io.ashlar.bootstrap.config.ServerConfig;
import io.ashlar.bootstrap.sharding.CorpusEntry.Kind;
import io.ashlar.bootstrap.sharding.CorpusEntry.Refusal;
import io.ashlar.bootstrap.sharding.DifferentialCheck.Execution;
import io.ashlar.bootstrap.sharding.ShardingLayout.LogicalTable;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * The read corpus ({@code sharding/reads.sql}) over four data sources: every entry that reads only t_order,
 * t_order_item (bound to it), t_user (sharded by another algorithm) and t_dict (broadcast) runs through a proxy whose
 * rows are spread over ds_0..ds_3 and against one PostgreSQL database holding the same rows, with the extended and the
 * simple protocol. What merges, what is finished by PostgreSQL over intermediate results (subqueries, joins of tables
 * that are not co-located, set operations, window functions) and what routes to one shard must give PostgreSQL's
 * answer whatever the number of data sources; an entry the two-shard layout must refuse may be answered here (the
 * tables meet otherwise on four data sources), never wrongly.
 */
final class FourDataSourceReadDifferentialTest {

    private static final String REFERENCE = "reference4";
    private static final int DATA_SOURCES = 4;
    private static final List<LogicalTable> TABLES = List.of(ShardingLayout.T_USER, ShardingLayout.T_ORDER,
            ShardingLayout.T_ORDER_ITEM, ShardingLayout.T_DICT);
    private static final Set<String> NAMES = Set.of("t_order", "t_order_item", "t_user", "t_dict");
    private static final Pattern TABLE_LIKE = Pattern.compile("\\bt_[a-z_0-9]+\\b", Pattern.CASE_INSENSITIVE);

    private static EmbeddedPostgres postgres;
    private static ProxyRuntime proxy;
    private static final List<ConnectionPair> PAIRS = new ArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        postgres = EmbeddedPostgres.builder().setServerConfig("max_prepared_transactions", "64").start();
        try (Connection c = postgres.getPostgresDatabase().getConnection(); Statement s = c.createStatement()) {
            for (int i = 0; i < DATA_SOURCES; i++) {
                s.execute("CREATE DATABASE ds_" + i);
            }
            s.execute("CREATE DATABASE " + REFERENCE);
        }
        for (int i = 0; i < DATA_SOURCES; i++) {
            try (Connection c = direct("ds_" + i); Statement s = c.createStatement()) {
                for (LogicalTable table : TABLES) {
                    boolean twoTables = table == ShardingLayout.T_ORDER || table == ShardingLayout.T_ORDER_ITEM;
                    for (int t = 0; t < (twoTables ? 2 : 1); t++) {
                        s.execute("CREATE TABLE " + table.name() + (twoTables ? "_" + t : "") + " (" + table.columnDefinitions() + ")");
                    }
                }
            }
        }
        try (Connection c = direct(REFERENCE); Statement s = c.createStatement()) {
            for (LogicalTable table : TABLES) {
                s.execute("CREATE TABLE " + table.name() + " (" + table.columnDefinitions() + ")");
            }
        }
        LogicalDatabaseConfig database = ProxyConfigurationLoader.loadDatabase("config-four.yaml", yaml());
        proxy = ProxyRuntime.start(new ProxyConfiguration(ServerConfig.DEFAULTS, List.of(database)), 0);
        TestData data = TestData.generate();
        try (Connection through = proxy(""); Connection reference = direct(REFERENCE);
                Statement viaProxy = through.createStatement(); Statement plain = reference.createStatement()) {
            for (LogicalTable table : TABLES) {
                for (String insert : TestData.inserts(table, table.name(), data.rows(table.name()), 200)) {
                    viaProxy.execute(insert);
                    plain.execute(insert);
                }
            }
        }
    }

    @AfterAll
    static void stop() throws IOException {
        PAIRS.forEach(ConnectionPair::close);
        if (proxy != null) {
            proxy.close();
        }
        if (postgres != null) {
            postgres.close();
        }
    }

    private static String yaml() {
        StringBuilder result = new StringBuilder("databaseName: sharding_db\ndataSources:\n");
        for (int i = 0; i < DATA_SOURCES; i++) {
            result.append("  ds_").append(i).append(":\n    url: \"").append(url("ds_" + i))
                    .append("\"\n    username: postgres\n    password: \"\"\n    maxPoolSize: 8\n    minPoolSize: 1\n");
        }
        return result.append("""
                rules:
                  - !SHARDING
                    tables:
                      t_order:
                        actualDataNodes: ds_${0..3}.t_order_${0..1}
                        databaseStrategy:
                          standard:
                            shardingColumn: user_id
                            shardingAlgorithmName: database_inline
                        tableStrategy:
                          standard:
                            shardingColumn: order_id
                            shardingAlgorithmName: order_mod
                      t_order_item:
                        actualDataNodes: ds_${0..3}.t_order_item_${0..1}
                        databaseStrategy:
                          standard:
                            shardingColumn: user_id
                            shardingAlgorithmName: database_inline
                        tableStrategy:
                          standard:
                            shardingColumn: order_id
                            shardingAlgorithmName: order_mod
                      t_user:
                        actualDataNodes: ds_${0..3}.t_user
                        databaseStrategy:
                          standard:
                            shardingColumn: user_id
                            shardingAlgorithmName: user_hash_mod
                        tableStrategy:
                          none:
                    bindingTables:
                      - t_order,t_order_item
                    shardingAlgorithms:
                      database_inline:
                        type: INLINE
                        props:
                          algorithm-expression: ds_${user_id % 4}
                      order_mod:
                        type: MOD
                        props:
                          sharding-count: 2
                      user_hash_mod:
                        type: HASH_MOD
                        props:
                          sharding-count: 4
                  - !BROADCAST
                    tables:
                      - t_dict
                """).toString();
    }

    /** The rows are spread: every data source holds some of each sharded table, and all of t_dict. */
    @Test
    void everyDataSourceHoldsRows() throws SQLException {
        for (int i = 0; i < DATA_SOURCES; i++) {
            try (Connection c = direct("ds_" + i); Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT (SELECT count(*) FROM t_order_0) + (SELECT count(*) FROM t_order_1),"
                            + " (SELECT count(*) FROM t_user), (SELECT count(*) FROM t_dict)")) {
                rs.next();
                assertTrue(rs.getLong(1) > 0 && rs.getLong(2) > 0, "ds_" + i + " holds no order or no user");
                try (Connection r = direct(REFERENCE); Statement rsql = r.createStatement();
                        ResultSet all = rsql.executeQuery("SELECT count(*) FROM t_dict")) {
                    all.next();
                    assertEquals(all.getLong(1), rs.getLong(3), "ds_" + i + " holds every row of broadcast t_dict");
                }
            }
        }
    }

    @TestFactory
    List<DynamicContainer> readCorpus() throws IOException {
        List<CorpusEntry> entries = new ArrayList<>();
        for (CorpusEntry entry : Corpus.load("reads.sql")) {
            if (entry.kind() == Kind.STATEMENT && readsOnlyOurTables(entry.text())) {
                entries.add(entry.refusal() == Refusal.REQUIRED
                        ? new CorpusEntry(entry.file(), entry.line(), entry.section(), entry.kind(), entry.text(), entry.order(),
                                entry.orderColumns(), Refusal.ALLOWED, List.of(), entry.parameters())
                        : entry);
            }
        }
        assertTrue(entries.size() > 200, "the corpus has " + entries.size() + " entries on these tables");
        return List.of(container("extended protocol", "", entries), container("simple protocol", "preferQueryMode=simple", entries));
    }

    private static boolean readsOnlyOurTables(String sql) {
        Matcher names = TABLE_LIKE.matcher(sql);
        boolean any = false;
        while (names.find()) {
            if (!NAMES.contains(names.group().toLowerCase(java.util.Locale.ROOT))) {
                return false;
            }
            any = true;
        }
        return any;
    }

    private static DynamicContainer container(String name, String parameters, List<CorpusEntry> entries) {
        ConnectionPair pair = new ConnectionPair(FourDataSourceReadDifferentialTest::proxy,
                extra -> direct(REFERENCE, extra), parameters, true);
        PAIRS.add(pair);
        List<DynamicTest> tests = new ArrayList<>();
        for (CorpusEntry entry : entries) {
            tests.add(DynamicTest.dynamicTest(entry.displayName(), () -> DifferentialCheck.verify(pair, entry, Execution.ONCE)));
        }
        return DynamicContainer.dynamicContainer(name, tests);
    }

    private static Connection proxy(String parameters) throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + proxy.port() + "/sharding_db?connectTimeout=10&socketTimeout=60"
                + (parameters.isEmpty() ? "" : "&" + parameters), "root", "root");
    }

    private static Connection direct(String database) throws SQLException {
        return direct(database, "");
    }

    private static Connection direct(String database, String parameters) throws SQLException {
        return DriverManager.getConnection(url(database) + "?connectTimeout=10&socketTimeout=60"
                + (parameters.isEmpty() ? "" : "&" + parameters), "postgres", "");
    }

    private static String url(String database) {
        return "jdbc:postgresql://127.0.0.1:" + postgres.getPort() + "/" + database;
    }
}
