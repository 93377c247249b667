package io.ashlar.bench.tpcc;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.ashlar.bootstrap.ProxyRuntime;
import io.ashlar.bootstrap.config.ProxyConfigurationLoader;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.PrintStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * BenchmarkSQL 5.0 with the driver it ships, pgjdbc 9.3-1102, through Ashlar over the sharded example configuration
 * ({@code conf/tpcc/server.yaml} and {@code config-tpcc-2shard.yaml}, unchanged but for the URLs): it logs in as the
 * user that server.yaml defines without naming an authenticator (so MD5, which the driver has; it has no SCRAM),
 * creates the schema, loads two warehouses with the loader's batches, runs every transaction type
 * {@value #RUNS} times on each warehouse, past the driver's {@code prepareThreshold} of 5 so that named statements
 * and binary results are used too, and leaves a consistent database. Every statement is BenchmarkSQL's own text
 * ({@link TerminalStatements}).
 *
 * <p>The driver is loaded from the jar the build copies to {@code target/old-drivers} (system property
 * {@value #JAR_PROPERTY}), in a class loader of its own: it cannot share the classpath with pgjdbc 42.
 */
class TpccPgjdbc93Test {

    private static final String JAR_PROPERTY = "ashlar.test.pgjdbc93";
    private static final int RUNS = 8;
    private static final int WAREHOUSES = 2;
    private static final PrintStream OUT = System.out;

    @Test
    void benchmarkSqlsOwnDriverRunsEveryTransactionThroughTheShardedExample(@TempDir Path conf) throws Exception {
        Driver pgjdbc93 = loadPgjdbc93();
        try (EmbeddedPostgres server = EmbeddedPostgres.builder().setServerConfig("max_prepared_transactions", "64").start()) {
            try (Connection connection = DriverManager.getConnection(
                    "jdbc:postgresql://127.0.0.1:" + server.getPort() + "/postgres", "postgres", "");
                 Statement statement = connection.createStatement()) {
                statement.execute("CREATE DATABASE tpcc_0");
                statement.execute("CREATE DATABASE tpcc_1");
            }
            Path examples = Path.of("..", "conf", "tpcc");
            Files.copy(examples.resolve("server.yaml"), conf.resolve("server.yaml"));
            String shards = Files.readString(examples.resolve("config-tpcc-2shard.yaml"), StandardCharsets.UTF_8)
                    .replace("127.0.0.1:5432/", "127.0.0.1:" + server.getPort() + "/").replace("password: postgres", "password: \"\"");
            assertFalse(shards.contains(":5432/"), "every URL rewritten");
            Files.writeString(conf.resolve("config-tpcc-2shard.yaml"), shards, StandardCharsets.UTF_8);

            try (ProxyRuntime proxy = ProxyRuntime.start(ProxyConfigurationLoader.load(conf), 0)) {
                TpccConnector viaProxy = new TpccConnector("jdbc:postgresql://127.0.0.1:" + proxy.port() + "/tpcc", "root", "root",
                        Optional.of(pgjdbc93));
                Tpcc.create(viaProxy, true, true, OUT);
                TpccScale scale = TpccScale.of(WAREHOUSES, 50);
                TpccLoader.load(viaProxy, scale, 2, OUT);

                LoadedDatabase loaded;
                try (Connection connection = viaProxy.open()) {
                    loaded = LoadedDatabase.read(connection);
                }
                SplittableRandom seeds = new SplittableRandom(93);
                NuRandConstants constants = NuRandConstants.forRun(seeds, loaded.loadLastName());
                ErrorLog errors = new ErrorLog(System.err, 20);
                long[] expected = new long[TransactionType.values().length];
                Arrays.fill(expected, RUNS);
                for (int warehouse = 1; warehouse <= WAREHOUSES; warehouse++) {
                    TerminalStats stats = new TerminalStats();
                    try (TerminalStatements statements = new TerminalStatements(viaProxy.open())) {
                        TpccTerminal terminal = new TpccTerminal(warehouse, warehouse, 1, true, scale, statements,
                                new TpccRandom(seeds.split(), constants, scale), stats, errors, Long.MIN_VALUE, Long.MAX_VALUE);
                        for (TransactionType type : TransactionType.values()) {
                            for (int i = 0; i < RUNS; i++) {
                                terminal.runOne(type);
                            }
                        }
                    }
                    assertArrayEquals(new long[expected.length], stats.errors,
                            "errors per transaction type on warehouse " + warehouse + " (the first are printed on stderr)");
                    assertArrayEquals(expected, stats.completed, "completed per transaction type on warehouse " + warehouse);
                }
                try (Connection connection = viaProxy.open()) {
                    TpccCheck.Result check = TpccCheck.check(connection);
                    assertEquals(List.of(), check.failures(), "consistency through the proxy, read with pgjdbc 9.3");
                    assertEquals(WAREHOUSES, check.warehouses());
                }
            }
        }
    }

    static Driver loadPgjdbc93() throws Exception {
        String jar = System.getProperty(JAR_PROPERTY);
        if (jar == null || !Files.isRegularFile(Path.of(jar))) {
            throw new IllegalStateException("pgjdbc 9.3 not found (" + JAR_PROPERTY + "=" + jar + "): run the test with Maven, "
                    + "whose benchmarks pom copies org.postgresql:postgresql:9.3-1102-jdbc41 to target/old-drivers");
        }
        URLClassLoader loader = new URLClassLoader("pgjdbc-9.3", new URL[] {Path.of(jar).toUri().toURL()},
                ClassLoader.getPlatformClassLoader());
        Driver result = (Driver) loader.loadClass("org.postgresql.Driver").getDeclaredConstructor().newInstance();
        assertEquals("9.3", result.getMajorVersion() + "." + result.getMinorVersion(), "the driver BenchmarkSQL 5.0 ships");
        return result;
    }
}
