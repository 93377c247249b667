package io.ashlar.bench.batch;

import io.ashlar.backend.config.LogicalDatabaseConfig;
import io.ashlar.backend.datasource.BackendDataSource;
import io.ashlar.bootstrap.ProxyRuntime;
import io.ashlar.bootstrap.config.ProxyConfiguration;
import io.ashlar.bootstrap.config.ProxyConfigurationLoader;
import io.ashlar.bootstrap.config.ServerConfig;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Issue 4's batch measurement: one 1,000-row {@code executeBatch} of an INSERT, straight to
 * PostgreSQL and through Ashlar (a pooler database over the same PostgreSQL database, and
 * databases sharding the table over one and over two data sources), with pgjdbc and with the
 * openGauss JDBC driver in {@code batchMode=on} (its batch bind {@code U}). Contenders take turns
 * batch by batch, and the report gives each one's median time per batch, its ratio to pgjdbc
 * straight to PostgreSQL, and the proxy's CPU per batch (every thread of this JVM but the client's,
 * read before and after each batch: the proxy's event loops, the session threads' carriers, the
 * pools), and the proxy threads' context switches per batch through Ashlar (/proc).
 *
 * <pre>
 * java --enable-native-access=ALL-UNNAMED --add-opens java.base/java.lang=ALL-UNNAMED \
 *     --sun-misc-unsafe-memory-access=allow -cp benchmarks/target/benchmarks.jar \
 *     io.ashlar.bench.batch.BatchBenchmark [rounds] [batchesPerRound] [rows] [batch|rewrite]
 * </pre>
 *
 * <p>The options are {@code bin/ashlar}'s: the {@code --add-opens} lets the sessions of sharded
 * databases run on their clients' event loops, the last lets Netty use sun.misc.Unsafe (JDK 23 and
 * later; leave it out on older ones). {@code rewrite} measures the rewriting of single-row INSERTs
 * into multi-row ones instead: pgjdbc's own {@code reWriteBatchedInserts=true} (direct and through
 * Ashlar), and Ashlar's, set on its data sources. {@code -Donly=REGEX} keeps only the contenders
 * whose names match (and pgjdbc direct, the base): for a profile of one path, and context switches
 * of that path alone. {@code -Dwarmup=SECONDS} (30 by default) is how long the contenders run
 * before anything is counted.
 *
 * <p>One embedded PostgreSQL and the proxy run in this JVM with the client (so all share the
 * machine, as in the pgbench comparisons).
 */
public final class BatchBenchmark {

    private static final String SHARDED_YAML = """
            databaseName: sharded_db
            dataSources:
              ds_0:
                url: @DS0@
                username: postgres
                password: ""
                maxPoolSize: 8
              ds_1:
                url: @DS1@
                username: postgres
                password: ""
                maxPoolSize: 8
            rules:
              - !SHARDING
                tables:
                  t_batch:
                    actualDataNodes: ds_${0..1}.t_batch
                    databaseStrategy:
                      standard:
                        shardingColumn: id
                        shardingAlgorithmName: by_id
                shardingAlgorithms:
                  by_id:
                    type: MOD
                    props:
                      sharding-count: 2
            """;

    private static final String ONE_SHARD_YAML = """
            databaseName: @NAME@
            dataSources:
              ds_0:
                url: @DS0@
                username: postgres
                password: ""
                maxPoolSize: 8
            rules:
              - !SHARDING
                tables:
                  t_batch:
                    actualDataNodes: ds_0.t_batch
            """;

    private static final String POOL_YAML = """
            databaseName: pool_db
            dataSources:
              ds:
                url: @DS@
                username: postgres
                password: ""
                maxPoolSize: 8
            """;

    private static final String INSERT = "INSERT INTO t_batch (id, k, note) VALUES (?, ?, ?)";

    private BatchBenchmark() {
    }

    /** One way of sending the batch. */
    private record Contender(String name, String url, String user, String password) {
    }

    private static final String[] DATABASES = {"bench", "ds_0", "ds_1", "ds_one"};

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 3;
        int batchesPerRound = args.length > 1 ? Integer.parseInt(args[1]) : 20;
        int rows = args.length > 2 ? Integer.parseInt(args[2]) : 1000;
        boolean rewrite = args.length > 3 && args[3].equals("rewrite");
        try (EmbeddedPostgres postgres = EmbeddedPostgres.builder().setServerConfig("max_prepared_transactions", "64").start()) {
            try (Connection c = postgres.getPostgresDatabase().getConnection(); Statement s = c.createStatement()) {
                for (String db : DATABASES) {
                    s.execute("CREATE DATABASE " + db);
                }
            }
            for (String db : DATABASES) {
                try (Connection c = DriverManager.getConnection(url(postgres, db), "postgres", "");
                     Statement s = c.createStatement()) {
                    s.execute("CREATE TABLE t_batch (id bigint PRIMARY KEY, k int NOT NULL, note text)");
                }
            }
            // With "rewrite", Ashlar's databases rewrite batched INSERTs on their data sources.
            String option = rewrite ? "?reWriteBatchedInserts=true" : "";
            LogicalDatabaseConfig sharded = ProxyConfigurationLoader.loadDatabase("config-sharded.yaml",
                    SHARDED_YAML.replace("@DS0@", url(postgres, "ds_0") + option).replace("@DS1@", url(postgres, "ds_1") + option));
            LogicalDatabaseConfig oneShard = ProxyConfigurationLoader.loadDatabase("config-one-shard.yaml",
                    ONE_SHARD_YAML.replace("@NAME@", "one_shard_db").replace("@DS0@", url(postgres, "ds_one") + option));
            LogicalDatabaseConfig pool = ProxyConfigurationLoader.loadDatabase("config-pool.yaml",
                    POOL_YAML.replace("@DS@", url(postgres, "bench") + option));
            try (ProxyRuntime proxy = ProxyRuntime.start(new ProxyConfiguration(ServerConfig.DEFAULTS,
                    List.of(pool, oneShard, sharded)), 0)) {
                String proxyBase = "127.0.0.1:" + proxy.port() + "/";
                boolean openGauss = hasDriver("org.opengauss.Driver");
                List<Contender> contenders = new ArrayList<>();
                if (rewrite) {
                    String clientRewrite = "?reWriteBatchedInserts=true";
                    contenders.add(new Contender("pgjdbc, direct", url(postgres, "bench"), "postgres", ""));
                    contenders.add(new Contender("pgjdbc reWriteBatchedInserts, direct", url(postgres, "bench") + clientRewrite,
                            "postgres", ""));
                    contenders.add(new Contender("pgjdbc reWriteBatchedInserts, Ashlar pooler",
                            "jdbc:postgresql://" + proxyBase + "pool_db" + clientRewrite, "root", "root"));
                    contenders.add(new Contender("pgjdbc reWriteBatchedInserts, Ashlar 2 shards",
                            "jdbc:postgresql://" + proxyBase + "sharded_db" + clientRewrite, "root", "root"));
                    contenders.add(new Contender("pgjdbc, Ashlar pooler, data source reWriteBatchedInserts",
                            "jdbc:postgresql://" + proxyBase + "pool_db", "root", "root"));
                    contenders.add(new Contender("pgjdbc, Ashlar 2 shards, data sources reWriteBatchedInserts",
                            "jdbc:postgresql://" + proxyBase + "sharded_db", "root", "root"));
                } else {
                    contenders.add(new Contender("pgjdbc, direct", url(postgres, "bench"), "postgres", ""));
                    contenders.add(new Contender("pgjdbc, Ashlar pooler", "jdbc:postgresql://" + proxyBase + "pool_db", "root", "root"));
                    contenders.add(new Contender("pgjdbc, Ashlar 1 shard", "jdbc:postgresql://" + proxyBase + "one_shard_db",
                            "root", "root"));
                    contenders.add(new Contender("pgjdbc, Ashlar 2 shards", "jdbc:postgresql://" + proxyBase + "sharded_db", "root", "root"));
                    if (openGauss) {
                        contenders.add(new Contender("openGauss batchMode=on, Ashlar pooler",
                                "jdbc:opengauss://" + proxyBase + "pool_db?batchMode=on", "root", "root"));
                        contenders.add(new Contender("openGauss batchMode=on, Ashlar 2 shards",
                                "jdbc:opengauss://" + proxyBase + "sharded_db?batchMode=on", "root", "root"));
                    }
                }
                // -Donly=REGEX keeps the contenders whose names match (and the first, the base), for a profile of one path.
                String only = System.getProperty("only");
                if (only != null) {
                    java.util.regex.Pattern keep = java.util.regex.Pattern.compile(only);
                    contenders.removeIf(c -> c != contenders.get(0) && !keep.matcher(c.name()).find());
                }
                Map<String, List<Double>> millis = new LinkedHashMap<>();
                Map<String, List<Double>> proxyMicros = new LinkedHashMap<>();
                List<Connection> connections = new ArrayList<>();
                for (Contender contender : contenders) {
                    connections.add(DriverManager.getConnection(contender.url(), contender.user(), contender.password()));
                    millis.put(contender.name(), new ArrayList<>());
                    proxyMicros.put(contender.name(), new ArrayList<>());
                }
                long nextId = 1;
                // Warm-up, not counted: on 2 shared cores the JIT compilers settle after 20-30 s, and
                // what they compile meanwhile would be counted as the proxy's CPU.
                long warmUpEnd = System.nanoTime() + Long.getLong("warmup", 30) * 1_000_000_000L;
                for (int w = 0; w < 5 || System.nanoTime() < warmUpEnd; w++) {
                    for (Connection c : connections) {
                        nextId = batch(c, nextId, rows);
                    }
                    if (w % 50 == 49) {
                        truncate(postgres);
                    }
                }
                truncate(postgres);
                long[] batchesBefore = batchCounts(proxy);
                long switchesBefore = proxyContextSwitches();
                OtherThreadsCpu proxyCpu = new OtherThreadsCpu();
                for (int round = 0; round < rounds; round++) {
                    for (int b = 0; b < batchesPerRound; b++) {
                        for (int i = 0; i < contenders.size(); i++) {
                            long cpuBefore = proxyCpu.nanos();
                            long started = System.nanoTime();
                            nextId = batch(connections.get(i), nextId, rows);
                            millis.get(contenders.get(i).name()).add((System.nanoTime() - started) / 1e6);
                            proxyMicros.get(contenders.get(i).name()).add((proxyCpu.nanos() - cpuBefore) / 1e3);
                        }
                    }
                    truncate(postgres);
                }
                long[] batchesAfter = batchCounts(proxy);
                long switches = proxyContextSwitches() - switchesBefore;
                for (Connection c : connections) {
                    c.close();
                }
                double base = median(millis.get(contenders.get(0).name()));
                System.out.println();
                System.out.println("executeBatch of " + rows + " rows (INSERT, autocommit), " + rounds + " rounds x "
                        + batchesPerRound + " batches per contender, interleaved; medians per batch");
                System.out.println("| client, target | median ms / batch | rows/s | ratio to pgjdbc direct (time) | proxy CPU µs / batch |");
                System.out.println("|---|---|---|---|---|");
                for (Contender contender : contenders) {
                    double median = median(millis.get(contender.name()));
                    double cpu = median(proxyMicros.get(contender.name()));
                    boolean direct = contender.url().startsWith(url(postgres, ""));
                    System.out.printf("| %s | %.2f | %,.0f | %.2f | %s |%n", contender.name(), median, rows / median * 1000,
                            median / base, direct ? "-" : String.format("%,.0f", cpu));
                }
                if (!openGauss && !rewrite) {
                    System.out.println("(openGauss JDBC driver not on the classpath: its rows are missing)");
                }
                long ashlarBatches = (long) rounds * batchesPerRound * (contenders.size() - 1);
                System.out.println("backend batches through Ashlar: " + (batchesAfter[0] - batchesBefore[0]) + " carrying "
                        + (batchesAfter[1] - batchesBefore[1]) + " rows; proxy context switches per batch through Ashlar: "
                        + (switchesBefore < 0 ? "n/a" : String.format("%.1f", (double) switches / ashlarBatches))
                        + "; sessions of sharded databases on their event loops: " + sessionsOnLoops());
            }
        }
    }

    /**
     * The CPU time of every thread of this JVM but the one that calls: with the client on the
     * calling thread, the proxy's (its event loops and the carriers of its session threads).
     */
    private static final class OtherThreadsCpu {
        private final com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        private final long own = Thread.currentThread().threadId();

        long nanos() {
            long[] ids = threads.getAllThreadIds();
            long[] cpu = threads.getThreadCpuTime(ids);
            long result = 0;
            for (int i = 0; i < ids.length; i++) {
                if (ids[i] != own && cpu[i] > 0) {
                    result += cpu[i];
                }
            }
            return result;
        }
    }

    /**
     * Context switches (voluntary and not) of the proxy's threads so far, from /proc: its event
     * loops, the JDK's virtual-thread carriers and unparker (sessions fall back to them without the
     * --add-opens), its backend I/O thread; -1 where /proc cannot tell.
     */
    private static long proxyContextSwitches() {
        java.io.File[] tasks = new java.io.File("/proc/self/task").listFiles();
        if (tasks == null) {
            return -1;
        }
        long result = 0;
        for (java.io.File task : tasks) {
            try {
                String name = java.nio.file.Files.readString(task.toPath().resolve("comm")).strip();
                if (!name.startsWith("multiThreadIoEv") && !name.startsWith("ForkJoinPool") && !name.startsWith("VirtualThread")
                        && !name.startsWith("ashlar")) {
                    continue;
                }
                for (String line : java.nio.file.Files.readAllLines(task.toPath().resolve("status"))) {
                    if (line.startsWith("voluntary_ctxt_switches:") || line.startsWith("nonvoluntary_ctxt_switches:")) {
                        result += Long.parseLong(line.substring(line.indexOf(':') + 1).strip());
                    }
                }
            } catch (java.io.IOException | RuntimeException ended) {
                // the thread ended meanwhile
            }
        }
        return result;
    }

    /** Whether the JVM lets the proxy run virtual threads on event loops (--add-opens java.base/java.lang). */
    private static boolean sessionsOnLoops() {
        try {
            Class.forName("java.lang.ThreadBuilders$VirtualThreadBuilder").getDeclaredConstructor(java.util.concurrent.Executor.class)
                    .setAccessible(true);
            return true;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return false;
        }
    }

    private static long batch(Connection connection, long firstId, int rows) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement(INSERT)) {
            for (int i = 0; i < rows; i++) {
                insert.setLong(1, firstId + i);
                insert.setInt(2, i % 97);
                insert.setString(3, "row " + i);
                insert.addBatch();
            }
            int[] counts = insert.executeBatch();
            if (counts.length != rows) {
                throw new IllegalStateException("batch answered " + counts.length + " counts: " + Arrays.toString(counts));
            }
        }
        return firstId + rows;
    }

    private static void truncate(EmbeddedPostgres postgres) throws SQLException {
        for (String db : DATABASES) {
            try (Connection c = DriverManager.getConnection(url(postgres, db), "postgres", ""); Statement s = c.createStatement()) {
                s.execute("TRUNCATE t_batch");
            }
        }
    }

    private static long[] batchCounts(ProxyRuntime proxy) {
        long[] total = new long[2];
        for (var database : proxy.databases().values()) {
            for (BackendDataSource dataSource : database.dataSources()) {
                long[] counts = dataSource.batchCounts();
                total[0] += counts[0];
                total[1] += counts[1];
            }
        }
        return total;
    }

    private static boolean hasDriver(String className) {
        try {
            Class.forName(className);
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    private static double median(List<Double> values) {
        double[] sorted = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    private static String url(EmbeddedPostgres postgres, String database) {
        return "jdbc:postgresql://127.0.0.1:" + postgres.getPort() + "/" + database;
    }
}
