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
 * PostgreSQL and through Ashlar (a pooler database over the same PostgreSQL database, and a
 * database sharding the table over two), with pgjdbc and with the openGauss JDBC driver in
 * {@code batchMode=on} (its batch bind {@code U}). Contenders take turns batch by batch, and the
 * report gives each one's median time per batch and its ratio to pgjdbc straight to PostgreSQL.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.ashlar.bench.batch.BatchBenchmark [rounds] [batchesPerRound] [rows]
 * </pre>
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

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 3;
        int batchesPerRound = args.length > 1 ? Integer.parseInt(args[1]) : 20;
        int rows = args.length > 2 ? Integer.parseInt(args[2]) : 1000;
        try (EmbeddedPostgres postgres = EmbeddedPostgres.builder().start()) {
            try (Connection c = postgres.getPostgresDatabase().getConnection(); Statement s = c.createStatement()) {
                for (String db : new String[] {"bench", "ds_0", "ds_1"}) {
                    s.execute("CREATE DATABASE " + db);
                }
            }
            for (String db : new String[] {"bench", "ds_0", "ds_1"}) {
                try (Connection c = DriverManager.getConnection(url(postgres, db), "postgres", "");
                     Statement s = c.createStatement()) {
                    s.execute("CREATE TABLE t_batch (id bigint PRIMARY KEY, k int NOT NULL, note text)");
                }
            }
            LogicalDatabaseConfig sharded = ProxyConfigurationLoader.loadDatabase("config-sharded.yaml",
                    SHARDED_YAML.replace("@DS0@", url(postgres, "ds_0")).replace("@DS1@", url(postgres, "ds_1")));
            LogicalDatabaseConfig pool = ProxyConfigurationLoader.loadDatabase("config-pool.yaml",
                    POOL_YAML.replace("@DS@", url(postgres, "bench")));
            try (ProxyRuntime proxy = ProxyRuntime.start(new ProxyConfiguration(ServerConfig.DEFAULTS, List.of(pool, sharded)), 0)) {
                String proxyBase = "127.0.0.1:" + proxy.port() + "/";
                List<Contender> contenders = new ArrayList<>();
                contenders.add(new Contender("pgjdbc, direct", url(postgres, "bench"), "postgres", ""));
                contenders.add(new Contender("pgjdbc, Ashlar pooler", "jdbc:postgresql://" + proxyBase + "pool_db", "root", "root"));
                contenders.add(new Contender("pgjdbc, Ashlar 2 shards", "jdbc:postgresql://" + proxyBase + "sharded_db", "root", "root"));
                boolean openGauss = hasDriver("org.opengauss.Driver");
                if (openGauss) {
                    contenders.add(new Contender("openGauss batchMode=on, Ashlar pooler",
                            "jdbc:opengauss://" + proxyBase + "pool_db?batchMode=on", "root", "root"));
                    contenders.add(new Contender("openGauss batchMode=on, Ashlar 2 shards",
                            "jdbc:opengauss://" + proxyBase + "sharded_db?batchMode=on", "root", "root"));
                }
                Map<String, List<Double>> millis = new LinkedHashMap<>();
                List<Connection> connections = new ArrayList<>();
                for (Contender contender : contenders) {
                    connections.add(DriverManager.getConnection(contender.url(), contender.user(), contender.password()));
                    millis.put(contender.name(), new ArrayList<>());
                }
                long[] batchesBefore = batchCounts(proxy);
                long nextId = 1;
                // Warm-up: a few batches each, not counted.
                for (int w = 0; w < 5; w++) {
                    for (Connection c : connections) {
                        nextId = batch(c, nextId, rows);
                    }
                }
                truncate(postgres);
                for (int round = 0; round < rounds; round++) {
                    for (int b = 0; b < batchesPerRound; b++) {
                        for (int i = 0; i < contenders.size(); i++) {
                            long started = System.nanoTime();
                            nextId = batch(connections.get(i), nextId, rows);
                            millis.get(contenders.get(i).name()).add((System.nanoTime() - started) / 1e6);
                        }
                    }
                    truncate(postgres);
                }
                long[] batchesAfter = batchCounts(proxy);
                for (Connection c : connections) {
                    c.close();
                }
                double base = median(millis.get(contenders.get(0).name()));
                System.out.println();
                System.out.println("executeBatch of " + rows + " rows (INSERT, autocommit), " + rounds + " rounds x "
                        + batchesPerRound + " batches per contender, interleaved; median ms per batch");
                System.out.println("| client, target | median ms / batch | rows/s | ratio to pgjdbc direct (time) |");
                System.out.println("|---|---|---|---|");
                for (Contender contender : contenders) {
                    double median = median(millis.get(contender.name()));
                    System.out.printf("| %s | %.2f | %,.0f | %.2f |%n", contender.name(), median, rows / median * 1000, median / base);
                }
                if (!openGauss) {
                    System.out.println("(openGauss JDBC driver not on the classpath: its rows are missing)");
                }
                System.out.println("backend batches through Ashlar: " + (batchesAfter[0] - batchesBefore[0]) + " carrying "
                        + (batchesAfter[1] - batchesBefore[1]) + " rows");
            }
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
        for (String db : new String[] {"bench", "ds_0", "ds_1"}) {
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
