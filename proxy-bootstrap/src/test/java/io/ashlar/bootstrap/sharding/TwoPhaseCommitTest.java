package io.ashlar.bootstrap.sharding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ashlar.backend.config.LogicalDatabaseConfig;
import io.ashlar.bootstrap.ProxyRuntime;
import io.ashlar.bootstrap.TempTrees;
import io.ashlar.bootstrap.config.ProxyConfiguration;
import io.ashlar.bootstrap.config.ProxyConfigurationLoader;
import io.ashlar.bootstrap.config.ServerConfig;
import io.ashlar.bootstrap.config.TransactionConfig;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two-phase commit of transactions that wrote to both data sources of a sharded database (ds_0
 * and ds_1, databases of one real PostgreSQL with max_prepared_transactions set): atomic when a
 * PREPARE fails, finished by the next start when the proxy stopped between the decision and
 * COMMIT PREPARED, rolled back at the next start when no decision was logged; and a transaction
 * that wrote to one data source sends no PREPARE.
 */
class TwoPhaseCommitTest {

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
                  t_item:
                    actualDataNodes: ds_${0..1}.t_item
                    databaseStrategy:
                      standard:
                        shardingColumn: user_id
                        shardingAlgorithmName: by_user
                shardingAlgorithms:
                  by_user:
                    type: INLINE
                    props:
                      algorithm-expression: ds_${user_id % 2}
            """;

    private static EmbeddedPostgres postgres;

    @TempDir
    Path logDirectory;

    @BeforeAll
    static void startPostgres() throws IOException, SQLException {
        postgres = EmbeddedPostgres.builder().setServerConfig("max_prepared_transactions", "10").start();
        try (Connection connection = postgres.getPostgresDatabase().getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE DATABASE ds_0");
            statement.execute("CREATE DATABASE ds_1");
        }
        for (String each : List.of("ds_0", "ds_1")) {
            try (Connection connection = shard(each); Statement statement = connection.createStatement()) {
                statement.execute("CREATE TABLE t_item (id bigint PRIMARY KEY, user_id int NOT NULL, note text)");
            }
        }
    }

    @AfterAll
    static void stopPostgres() throws IOException {
        if (postgres != null) {
            postgres.close();
        }
    }

    @BeforeEach
    void emptyTables() throws SQLException {
        for (String each : List.of("ds_0", "ds_1")) {
            try (Connection connection = shard(each); Statement statement = connection.createStatement()) {
                try (ResultSet rs = statement.executeQuery("SELECT gid FROM pg_prepared_xacts WHERE database = current_database()")) {
                    List<String> gids = new ArrayList<>();
                    while (rs.next()) {
                        gids.add(rs.getString(1));
                    }
                    for (String gid : gids) {
                        statement.execute("ROLLBACK PREPARED '" + gid + "'");
                    }
                }
                statement.execute("TRUNCATE t_item");
                statement.execute("ALTER TABLE t_item DROP CONSTRAINT IF EXISTS t_item_note_deferred");
            }
        }
    }

    @Test
    void aTransactionOverTwoDataSourcesCommitsBothInTwoPhases() throws Exception {
        try (ProxyRuntime proxy = start(logDirectory); Connection client = client(proxy); Statement statement = client.createStatement()) {
            client.setAutoCommit(false);
            statement.execute("INSERT INTO t_item (id, user_id, note) VALUES (1, 0, 'on ds_0')");
            statement.execute("INSERT INTO t_item (id, user_id, note) VALUES (2, 1, 'on ds_1')");
            long before = proxy.twoPhaseCommit().transactionsPrepared();
            client.commit();
            assertEquals(before + 1, proxy.twoPhaseCommit().transactionsPrepared(), "two-phase commits");
            // A write over both data sources outside a block (the proxy's implicit transaction) too.
            client.setAutoCommit(true);
            statement.execute("UPDATE t_item SET note = 'both'");
            assertEquals(before + 2, proxy.twoPhaseCommit().transactionsPrepared(), "two-phase commits");
        }
        assertEquals(List.of("1 both"), rows("ds_0"));
        assertEquals(List.of("2 both"), rows("ds_1"));
        assertEquals(0, prepared("ds_0") + prepared("ds_1"), "prepared transactions left");
        try (Stream<Path> files = Files.list(logDirectory)) {
            assertEquals(List.of(), files.toList(), "a proxy that stopped with nothing in doubt leaves no log");
        }
    }

    @Test
    void aTransactionThatWroteToOneDataSourceSendsNoPrepare() throws Exception {
        try (ProxyRuntime proxy = start(logDirectory); Connection client = client(proxy); Statement statement = client.createStatement()) {
            long before = proxy.twoPhaseCommit().transactionsPrepared();
            client.setAutoCommit(false);
            // Reads both data sources, writes one: the reader commits in one phase, and so does the writer.
            try (ResultSet rs = statement.executeQuery("SELECT count(*) FROM t_item")) {
                assertTrue(rs.next());
            }
            statement.execute("INSERT INTO t_item (id, user_id, note) VALUES (3, 0, 'a')");
            statement.execute("INSERT INTO t_item (id, user_id, note) VALUES (5, 2, 'b')");
            client.commit();
            statement.execute("INSERT INTO t_item (id, user_id, note) VALUES (7, 1, 'c')");
            client.commit();
            assertEquals(before, proxy.twoPhaseCommit().transactionsPrepared(), "two-phase commits");
        }
        assertEquals(List.of("3 a", "5 b"), rows("ds_0"));
        assertEquals(List.of("7 c"), rows("ds_1"));
    }

    @Test
    void aPrepareThatFailsRollsBackEveryDataSource() throws Exception {
        try (Connection ds1 = shard("ds_1"); Statement statement = ds1.createStatement()) {
            statement.execute("ALTER TABLE t_item ADD CONSTRAINT t_item_note_deferred UNIQUE (note) DEFERRABLE INITIALLY DEFERRED");
            statement.execute("INSERT INTO t_item (id, user_id, note) VALUES (11, 1, 'taken')");
        }
        try (ProxyRuntime proxy = start(logDirectory); Connection client = client(proxy); Statement statement = client.createStatement()) {
            client.setAutoCommit(false);
            statement.execute("INSERT INTO t_item (id, user_id, note) VALUES (20, 0, 'fine')");
            statement.execute("INSERT INTO t_item (id, user_id, note) VALUES (21, 1, 'taken')");
            SQLException failure = assertThrows(SQLException.class, client::commit);
            assertEquals("23505", failure.getSQLState(), failure.getMessage());
            // The session goes on: the next transaction commits.
            statement.execute("INSERT INTO t_item (id, user_id, note) VALUES (22, 0, 'after')");
            statement.execute("INSERT INTO t_item (id, user_id, note) VALUES (23, 1, 'after')");
            client.commit();
        }
        assertEquals(List.of("22 after"), rows("ds_0"), "ds_0 prepared, then rolled back");
        assertEquals(List.of("11 taken", "23 after"), rows("ds_1"));
        assertEquals(0, prepared("ds_0") + prepared("ds_1"), "prepared transactions left");
    }

    @Test
    void aPrepareOnTemporaryObjectsGivesPostgresqlsError() throws Exception {
        try (ProxyRuntime proxy = start(logDirectory); Connection client = client(proxy); Statement statement = client.createStatement()) {
            client.setAutoCommit(false);
            statement.execute("INSERT INTO t_item (id, user_id, note) VALUES (30, 0, 'x')");
            statement.execute("INSERT INTO t_item (id, user_id, note) VALUES (31, 1, 'x')");
            statement.execute("CREATE TEMPORARY TABLE t_scratch (id int)");
            SQLException failure = assertThrows(SQLException.class, client::commit);
            assertEquals("0A000", failure.getSQLState(), failure.getMessage());
            assertTrue(failure.getMessage().contains("temporary objects"), failure.getMessage());
        }
        assertEquals(List.of(), rows("ds_0"));
        assertEquals(List.of(), rows("ds_1"));
        assertEquals(0, prepared("ds_0") + prepared("ds_1"), "prepared transactions left");
    }

    /**
     * The proxy stops between its durable decision and COMMIT PREPARED (the crash point held by
     * {@code haltAfterDecision}): both data sources hold the transaction prepared, the client never
     * heard back. The next start with the same log directory commits both.
     */
    @Test
    void aProxyStoppedAfterItsDecisionCommitsAtTheNextStart() throws Exception {
        ProxyRuntime first = start(logDirectory);
        CompletableFuture<Void> commit;
        try {
            first.twoPhaseCommit().haltAfterDecision();
            Connection client = client(first);
            commit = CompletableFuture.runAsync(() -> {
                try (client; Statement statement = client.createStatement()) {
                    statement.execute("BEGIN");
                    statement.execute("INSERT INTO t_item (id, user_id, note) VALUES (40, 0, 'decided')");
                    statement.execute("INSERT INTO t_item (id, user_id, note) VALUES (41, 1, 'decided')");
                    statement.execute("COMMIT");
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            awaitDecision(logDirectory);
            assertEquals(1, prepared("ds_0"), "prepared on ds_0");
            assertEquals(1, prepared("ds_1"), "prepared on ds_1");
            assertFalse(commit.isDone(), "the client heard back before COMMIT PREPARED");
            first.twoPhaseCommit().endHalted();
            java.util.concurrent.ExecutionException ended = assertThrows(java.util.concurrent.ExecutionException.class,
                    () -> commit.get(30, TimeUnit.SECONDS));
            assertTrue(ended.getMessage().contains("57P01") || ended.getMessage().contains("terminating connection"), ended.getMessage());
        } finally {
            first.close();
        }
        assertEquals(List.of(), rows("ds_0"), "not committed before the restart");
        assertEquals(1, prepared("ds_0"), "still prepared on ds_0 after the stop");
        assertEquals(1, prepared("ds_1"), "still prepared on ds_1 after the stop");
        try (ProxyRuntime second = start(logDirectory)) {
            assertEquals(0, prepared("ds_0") + prepared("ds_1"), "prepared transactions left after recovery");
            assertEquals(List.of("40 decided"), rows("ds_0"));
            assertEquals(List.of("41 decided"), rows("ds_1"));
            try (Stream<Path> files = Files.list(logDirectory)) {
                assertEquals(List.of(second.twoPhaseCommit().instanceId() + ".lock", second.twoPhaseCommit().instanceId() + ".log"),
                        files.map(each -> each.getFileName().toString()).sorted().toList(), "the dead instance's log is gone");
            }
        }
    }

    /**
     * After the decision, ds_1's connections are terminated (the data source restarts, say): its
     * COMMIT PREPARED fails, and the client is still told COMMIT (the decision is durable); the
     * proxy commits ds_1's part in the background, on a new connection.
     */
    @Test
    void aCommitPreparedThatFailsIsFinishedInTheBackground() throws Exception {
        try (ProxyRuntime proxy = start(logDirectory)) {
            proxy.twoPhaseCommit().pauseAfterDecision();
            CompletableFuture<Void> commit = commitInBackground(proxy.port(), 90, 91);
            awaitDecision(logDirectory);
            try (Connection ds1 = shard("ds_1"); Statement statement = ds1.createStatement()) {
                statement.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = 'ds_1'"
                        + " AND pid <> pg_backend_pid() AND backend_type = 'client backend'");
            }
            proxy.twoPhaseCommit().endHalted();
            commit.get(30, TimeUnit.SECONDS);
            assertEquals(List.of("90 killed"), rows("ds_0"), "committed on ds_0 by the session");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (prepared("ds_1") > 0 && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertEquals(0, prepared("ds_1"), "ds_1's part, committed in the background");
            assertEquals(List.of("91 killed"), rows("ds_1"));
        }
    }

    /**
     * The proxy, a process of its own, killed with SIGKILL between its durable decision and COMMIT
     * PREPARED (its commits halt there): both data sources hold the transaction prepared. The next
     * start, with the same log directory, commits both.
     */
    @Test
    void aProxyKilledAfterItsDecisionCommitsAtTheNextStart() throws Exception {
        Process child = startProcess(true);
        try {
            CompletableFuture<Void> commit = commitInBackground(port(child), 70, 71);
            awaitDecision(logDirectory);
            assertEquals(1, prepared("ds_0"), "prepared on ds_0");
            assertEquals(1, prepared("ds_1"), "prepared on ds_1");
            child.destroyForcibly();
            assertTrue(child.waitFor(30, TimeUnit.SECONDS), "the proxy process ended");
            assertThrows(java.util.concurrent.ExecutionException.class, () -> commit.get(30, TimeUnit.SECONDS));
        } finally {
            child.destroyForcibly();
        }
        assertEquals(List.of(), rows("ds_0"), "not committed before the restart");
        assertEquals(1, prepared("ds_0") + prepared("ds_1") - 1, "prepared on both after the kill");
        try (ProxyRuntime second = start(logDirectory)) {
            assertEquals(0, prepared("ds_0") + prepared("ds_1"), "prepared transactions left after recovery");
            assertEquals(List.of("70 killed"), rows("ds_0"));
            assertEquals(List.of("71 killed"), rows("ds_1"));
        }
    }

    /**
     * The proxy, a process of its own, killed with SIGKILL after ds_0 prepared and while ds_1's
     * PREPARE runs (a deferred trigger there sleeps): no decision was logged, so the next start
     * rolls back what either data source prepared.
     */
    @Test
    void aProxyKilledBeforeItsDecisionRollsBackAtTheNextStart() throws Exception {
        try (Connection ds1 = shard("ds_1"); Statement statement = ds1.createStatement()) {
            statement.execute("CREATE OR REPLACE FUNCTION slow_prepare() RETURNS trigger LANGUAGE plpgsql AS"
                    + " $$ BEGIN PERFORM pg_sleep(2); RETURN NULL; END $$");
            statement.execute("CREATE CONSTRAINT TRIGGER t_item_slow AFTER INSERT ON t_item DEFERRABLE INITIALLY DEFERRED"
                    + " FOR EACH ROW EXECUTE FUNCTION slow_prepare()");
        }
        try {
            Process child = startProcess(false);
            try {
                CompletableFuture<Void> commit = commitInBackground(port(child), 80, 81);
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (prepared("ds_0") == 0 && System.nanoTime() < deadline) {
                    Thread.sleep(10);
                }
                assertEquals(1, prepared("ds_0"), "prepared on ds_0");
                child.destroyForcibly();
                assertTrue(child.waitFor(30, TimeUnit.SECONDS), "the proxy process ended");
                assertThrows(java.util.concurrent.ExecutionException.class, () -> commit.get(30, TimeUnit.SECONDS));
            } finally {
                child.destroyForcibly();
            }
            // ds_1's backend finishes the PREPARE it was running: wait for it to settle.
            Thread.sleep(3_000);
            try (ProxyRuntime second = start(logDirectory)) {
                assertEquals(0, prepared("ds_0") + prepared("ds_1"), "prepared transactions left after recovery");
                assertEquals(List.of(), rows("ds_0"));
                assertEquals(List.of(), rows("ds_1"));
            }
        } finally {
            try (Connection ds1 = shard("ds_1"); Statement statement = ds1.createStatement()) {
                statement.execute("DROP TRIGGER t_item_slow ON t_item");
            }
        }
    }

    /**
     * What a crash leaves, made by hand: a dead instance's log (its lock file nobody holds) with one
     * commit decision; on the data sources, that transaction prepared on both, another of the same
     * instance prepared with no decision logged (the crash came between its PREPAREs and its
     * decision), and one of an instance whose log is elsewhere. The start commits the first, rolls
     * back the second, leaves the third alone.
     */
    @Test
    void recoveryCommitsWhatWasDecidedAndRollsBackTheRest() throws Exception {
        Files.writeString(logDirectory.resolve("deadproxy.lock"), "");
        // The decision of transaction 1, the end of transaction 9 (finished), and a torn line (never acted on).
        Files.writeString(logDirectory.resolve("deadproxy.log"), "C ashlar_deadproxy_9\nC ashlar_deadproxy_1\nF ashlar_deadproxy_9\nC ashlar_deadproxy_2",
                StandardCharsets.UTF_8);
        prepare("ds_0", "ashlar_deadproxy_1_0", 50, 0);
        prepare("ds_1", "ashlar_deadproxy_1_1", 51, 1);
        prepare("ds_0", "ashlar_deadproxy_2_0", 52, 0);
        prepare("ds_1", "ashlar_deadproxy_2_1", 53, 1);
        prepare("ds_1", "ashlar_otherproxy_1_1", 55, 1);
        try (ProxyRuntime proxy = start(logDirectory)) {
            assertEquals(List.of("50 recovered"), rows("ds_0"));
            assertEquals(List.of("51 recovered"), rows("ds_1"));
            assertEquals(0, prepared("ds_0"), "prepared on ds_0");
            assertEquals(1, prepared("ds_1"), "prepared on ds_1: the other instance's only");
            assertFalse(Files.exists(logDirectory.resolve("deadproxy.log")), "the dead instance's log, all finished");
        }
    }

    /** A data source that cannot prepare transactions: a write over it and another is refused, nothing stays. */
    @Test
    void aDataSourceWithoutPreparedTransactionsRefusesTheCommit() throws Exception {
        try (EmbeddedPostgres plain = EmbeddedPostgres.builder().start()) {
            try (Connection connection = plain.getPostgresDatabase().getConnection(); Statement statement = connection.createStatement()) {
                statement.execute("CREATE TABLE t_item (id bigint PRIMARY KEY, user_id int NOT NULL, note text)");
            }
            String yaml = CONFIG.replace("@DS0@", url(postgres, "ds_0")).replace("@DS1@", url(plain, "postgres"));
            try (ProxyRuntime proxy = start(yaml, new TransactionConfig(true, logDirectory)); Connection client = client(proxy);
                    Statement statement = client.createStatement()) {
                client.setAutoCommit(false);
                statement.execute("INSERT INTO t_item (id, user_id, note) VALUES (60, 0, 'x')");
                statement.execute("INSERT INTO t_item (id, user_id, note) VALUES (61, 1, 'x')");
                SQLException failure = assertThrows(SQLException.class, client::commit);
                assertEquals("55000", failure.getSQLState(), failure.getMessage());
                assertTrue(failure.getMessage().contains("max_prepared_transactions"), failure.getMessage());
                // One data source at a time still commits.
                statement.execute("INSERT INTO t_item (id, user_id, note) VALUES (62, 1, 'one')");
                client.commit();
            }
            assertEquals(List.of(), rows("ds_0"));
            try (Connection connection = plain.getPostgresDatabase().getConnection(); Statement statement = connection.createStatement();
                    ResultSet rs = statement.executeQuery("SELECT id FROM t_item ORDER BY id")) {
                assertTrue(rs.next());
                assertEquals(62, rs.getLong(1));
                assertFalse(rs.next());
            }
            // LOCAL: the old commit, one data source after the other, as configured.
            try (ProxyRuntime proxy = start(yaml, new TransactionConfig(false, logDirectory)); Connection client = client(proxy);
                    Statement statement = client.createStatement()) {
                client.setAutoCommit(false);
                statement.execute("INSERT INTO t_item (id, user_id, note) VALUES (64, 0, 'local')");
                statement.execute("INSERT INTO t_item (id, user_id, note) VALUES (65, 1, 'local')");
                client.commit();
            }
            assertEquals(List.of("64 local"), rows("ds_0"));
        }
    }

    /**
     * A log directory that cannot be made (its parent is a file) stops a proxy with a sharded
     * database from starting, naming the setting; a proxy of pooled databases only starts anyway.
     */
    @Test
    void aLogDirectoryThatCannotBeMadeStopsOnlyAShardedProxy() throws Exception {
        Path file = Files.writeString(logDirectory.resolve("not-a-directory"), "");
        TransactionConfig impossible = new TransactionConfig(true, file.resolve("log"));
        String sharded = CONFIG.replace("@DS0@", url(postgres, "ds_0")).replace("@DS1@", url(postgres, "ds_1"));
        io.ashlar.bootstrap.config.ConfigurationException refused = assertThrows(io.ashlar.bootstrap.config.ConfigurationException.class,
                () -> start(sharded, impossible).close());
        assertTrue(refused.getMessage().contains("transaction-log-directory"), refused.getMessage());
        String pooled = "databaseName: pooled\ndataSources:\n  ds:\n    url: \"" + url(postgres, "ds_0")
                + "\"\n    username: postgres\n    password: \"\"\n";
        try (ProxyRuntime proxy = start(pooled, impossible)) {
            assertFalse(proxy.twoPhaseCommit().enabled(), "two-phase commit of a pooler without a log");
        }
    }

    // ------------------------------------------------------------------ fixture

    private static ProxyRuntime start(Path logDirectory) throws InterruptedException, SQLException {
        String yaml = CONFIG.replace("@DS0@", url(postgres, "ds_0")).replace("@DS1@", url(postgres, "ds_1"));
        return start(yaml, new TransactionConfig(true, logDirectory));
    }

    private static ProxyRuntime start(String yaml, TransactionConfig transaction) throws InterruptedException {
        LogicalDatabaseConfig database = ProxyConfigurationLoader.loadDatabase("config-sharding.yaml", yaml);
        return ProxyRuntime.start(new ProxyConfiguration(ServerConfig.DEFAULTS.withTransaction(transaction), List.of(database)), 0);
    }

    private static Connection client(ProxyRuntime proxy) throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + proxy.port() + "/sharding_db?connectTimeout=10&socketTimeout=60",
                "root", "root");
    }

    private static Connection shard(String database) throws SQLException {
        return DriverManager.getConnection(url(postgres, database) + "?socketTimeout=60", "postgres", "");
    }

    private static String url(EmbeddedPostgres server, String database) {
        return "jdbc:postgresql://127.0.0.1:" + server.getPort() + "/" + database;
    }

    /** The rows of a data source's t_item, "id note", in id order. */
    private static List<String> rows(String dataSource) throws SQLException {
        List<String> result = new ArrayList<>();
        try (Connection connection = shard(dataSource); Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery("SELECT id, note FROM t_item ORDER BY id")) {
            while (rs.next()) {
                result.add(rs.getLong(1) + " " + rs.getString(2));
            }
        }
        return result;
    }

    private static int prepared(String dataSource) throws SQLException {
        try (Connection connection = shard(dataSource); Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery("SELECT count(*) FROM pg_prepared_xacts WHERE database = current_database()")) {
            assertTrue(rs.next());
            return rs.getInt(1);
        }
    }

    /** A row inserted and prepared under {@code gid} straight on a data source, as a proxy that died leaves it. */
    private static void prepare(String dataSource, String gid, long id, int userId) throws SQLException {
        try (Connection connection = shard(dataSource); Statement statement = connection.createStatement()) {
            statement.execute("BEGIN");
            statement.execute("INSERT INTO t_item (id, user_id, note) VALUES (" + id + ", " + userId + ", 'recovered')");
            statement.execute("PREPARE TRANSACTION '" + gid + "'");
        }
    }

    /** {@link CrashableProxy} in a JVM of its own, on this test's data sources and log directory. */
    private Process startProcess(boolean halt) throws IOException {
        Path conf = TempTrees.create("ashlar-2pc-conf");
        Files.writeString(conf.resolve("server.yaml"), "props:\n  transaction-log-directory: " + logDirectory + "\n");
        Files.writeString(conf.resolve("config-sharding.yaml"),
                CONFIG.replace("@DS0@", url(postgres, "ds_0")).replace("@DS1@", url(postgres, "ds_1")));
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--add-opens", "java.base/java.lang=ALL-UNNAMED", "-Xmx256m", "-cp", System.getProperty("java.class.path"),
                CrashableProxy.class.getName(), conf.toString()));
        if (halt) {
            command.add("halt");
        }
        return new ProcessBuilder(command).redirectErrorStream(true).start();
    }

    /** The port the process prints once it listens (its other output is passed on). */
    private static int port(Process child) throws IOException {
        java.io.BufferedReader output = new java.io.BufferedReader(new java.io.InputStreamReader(child.getInputStream(),
                StandardCharsets.UTF_8));
        for (String line = output.readLine(); line != null; line = output.readLine()) {
            if (line.startsWith("PORT ")) {
                Thread.ofPlatform().daemon().start(() -> output.lines().forEach(System.out::println));
                return Integer.parseInt(line.substring(5).strip());
            }
            System.out.println(line);
        }
        throw new AssertionError("the proxy process ended without listening");
    }

    /** BEGIN, a row on ds_0 and one on ds_1, COMMIT, through the proxy on {@code port}, in another thread. */
    private static CompletableFuture<Void> commitInBackground(int port, long idOnDs0, long idOnDs1) throws SQLException {
        Connection client = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port
                + "/sharding_db?connectTimeout=10&socketTimeout=60", "root", "root");
        return CompletableFuture.runAsync(() -> {
            try (client; Statement statement = client.createStatement()) {
                statement.execute("BEGIN");
                statement.execute("INSERT INTO t_item (id, user_id, note) VALUES (" + idOnDs0 + ", 0, 'killed')");
                statement.execute("INSERT INTO t_item (id, user_id, note) VALUES (" + idOnDs1 + ", 1, 'killed')");
                statement.execute("COMMIT");
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    /** Waits until a log in the directory holds a commit decision. */
    private static void awaitDecision(Path directory) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            try (Stream<Path> files = Files.list(directory)) {
                for (Path each : files.toList()) {
                    if (each.toString().endsWith(".log") && Files.readString(each).contains("C ashlar_")) {
                        return;
                    }
                }
            }
            Thread.sleep(20);
        }
        throw new AssertionError("no commit decision was logged within 30 s");
    }
}
