package io.ashlar.bootstrap.faults;

import io.ashlar.backend.config.LogicalDatabaseConfig;
import io.ashlar.bootstrap.ProxyRuntime;
import io.ashlar.bootstrap.TempTrees;
import io.ashlar.bootstrap.config.ProxyConfiguration;
import io.ashlar.bootstrap.config.ProxyConfigurationLoader;
import io.ashlar.bootstrap.config.ServerConfig;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Two real PostgreSQL servers that a test can stop, start again, freeze (SIGSTOP on every process of the server, as a
 * paused container or a silent network partition looks) and thaw; and an Ashlar proxy in front of them serving:
 * <ul>
 *   <li>{@value #SHARDED}: table {@code t (id int primary key, v text)} sharded by {@code id % 2} over {@code ds_0}
 *       (server 0) and {@code ds_1} (server 1), each actual table named {@code t};</li>
 *   <li>{@value #POOLED}: a pooler over server 0's {@code pooled} database (relayed on the event loop);</li>
 *   <li>{@value #POOLED_JDBC}: a pooler over the same database whose data source rewrites batched inserts, which
 *       runs its sessions as method calls ({@code PassthroughSession}) instead of relaying them.</li>
 * </ul>
 * The data sources check their health every {@value #CHECK_INTERVAL_MILLIS} ms with a deadline of
 * {@value #CHECK_TIMEOUT_MILLIS} ms, and give up on a connection after {@value #CONNECTION_TIMEOUT_MILLIS} ms.
 */
final class FaultyServers implements AutoCloseable {

    static final String SHARDED = "faults_db";
    static final String POOLED = "pooled_db";
    static final String POOLED_JDBC = "pooled_jdbc_db";
    static final long CHECK_INTERVAL_MILLIS = 500;
    static final long CHECK_TIMEOUT_MILLIS = 1500;
    static final long CONNECTION_TIMEOUT_MILLIS = 8000;
    /** Client settings: a hung statement fails the test instead of the whole build. */
    static final String CLIENT_PARAMETERS = "connectTimeout=10&socketTimeout=60";

    /** One server, in a data directory of its own that outlives a stop. */
    static final class Server {
        private final Path directory;
        private final int port;
        private EmbeddedPostgres postgres;
        private final List<Long> frozen = new ArrayList<>();

        Server(Path directory, int port) {
            this.directory = directory;
            this.port = port;
        }

        void start() throws IOException {
            postgres = EmbeddedPostgres.builder().setDataDirectory(directory).setCleanDataDirectory(false).setPort(port)
                    .setServerConfig("max_connections", "200").setServerConfig("max_prepared_transactions", "64").start();
        }

        /** Stops the server (fast shutdown: its backends end with FATAL 57P01, then it stops listening). */
        void stop() throws IOException {
            EmbeddedPostgres running = postgres;
            postgres = null;
            if (running != null) {
                running.close();
            }
        }

        /** Stops the server for good and deletes its data directory (each holds about 250 MB). */
        void remove() throws IOException {
            try {
                stop();
            } finally {
                TempTrees.delete(directory);
            }
        }

        /**
         * SIGKILL to the postmaster and every backend, as a crash or an OOM killer ends them: the kernel closes their
         * connections without a word of PostgreSQL's. {@link #start()} then runs crash recovery on the same data.
         */
        void kill() throws IOException, InterruptedException {
            List<Long> pids = processes();
            signal("KILL", pids);
            for (long pid : pids) {
                ProcessHandle.of(pid).ifPresent(each -> each.onExit().orTimeout(10, TimeUnit.SECONDS).join());
            }
            EmbeddedPostgres running = postgres;
            postgres = null;
            if (running != null) {
                running.close(); // its pg_ctl stop finds no server; this releases its lock on the data directory
            }
        }

        private List<Long> processes() throws IOException {
            long postmaster = Long.parseLong(Files.readAllLines(directory.resolve("postmaster.pid")).get(0).strip());
            List<Long> result = new ArrayList<>();
            result.add(postmaster);
            ProcessHandle.of(postmaster).orElseThrow().descendants().forEach(each -> result.add(each.pid()));
            return result;
        }

        /** SIGSTOP to the postmaster and every backend: connections stay open and nothing answers. */
        void freeze() throws IOException, InterruptedException {
            List<Long> pids = processes();
            signal("STOP", pids);
            frozen.addAll(pids);
        }

        void thaw() throws IOException, InterruptedException {
            if (!frozen.isEmpty()) {
                signal("CONT", frozen);
                frozen.clear();
            }
        }

        private static void signal(String signal, List<Long> pids) throws IOException, InterruptedException {
            List<String> command = new ArrayList<>(List.of("kill", "-" + signal));
            pids.forEach(each -> command.add(Long.toString(each)));
            Process kill = new ProcessBuilder(command).inheritIO().start();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill -" + signal + " " + pids + " failed");
            }
        }

        int port() {
            return port;
        }

        /**
         * A connection to the server itself, in clear text: pgjdbc gives a server 5 s to answer its SSLRequest
         * (sslResponseTimeout), which a server forking its backend on a loaded machine missed once.
         */
        Connection connect(String database) throws SQLException {
            return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port + "/" + database + "?" + CLIENT_PARAMETERS
                    + "&sslmode=disable", "postgres", "");
        }
    }

    private final Server[] servers;
    private final ProxyRuntime proxy;

    private FaultyServers(Server[] servers, ProxyRuntime proxy) {
        this.servers = servers;
        this.proxy = proxy;
    }

    /**
     * Starts both servers and the proxy.
     *
     * @param maxPoolSizes maxPoolSize of ds_0 and ds_1 (the pooled databases' data sources get ds_0's)
     */
    static FaultyServers start(int... maxPoolSizes) throws IOException, SQLException, InterruptedException {
        Server[] servers = startServers();
        try {
            List<LogicalDatabaseConfig> databases = new ArrayList<>();
            for (java.util.Map.Entry<String, String> each : configFiles(servers, maxPoolSizes).entrySet()) {
                databases.add(ProxyConfigurationLoader.loadDatabase(each.getKey(), each.getValue()));
            }
            ProxyRuntime proxy = ProxyRuntime.start(new ProxyConfiguration(ServerConfig.DEFAULTS, databases), 0);
            return new FaultyServers(servers, proxy);
        } catch (RuntimeException | InterruptedException | Error e) {
            for (Server each : servers) {
                each.remove();
            }
            throw e;
        }
    }

    /** Starts both servers with their databases and empty tables, and no proxy (a test runs its own). */
    static Server[] startServers() throws IOException, SQLException {
        Server[] servers = new Server[2];
        try {
            for (int i = 0; i < 2; i++) {
                Path directory = Files.createTempDirectory("ashlar-faults-" + i);
                servers[i] = new Server(directory, freePort());
                servers[i].start();
                try (Connection c = servers[i].connect("postgres"); Statement s = c.createStatement()) {
                    s.execute("CREATE DATABASE ds_" + i);
                    if (i == 0) {
                        s.execute("CREATE DATABASE pooled");
                    }
                }
                try (Connection c = servers[i].connect("ds_" + i); Statement s = c.createStatement()) {
                    s.execute("CREATE TABLE t (id int PRIMARY KEY, v text)");
                }
            }
            try (Connection c = servers[0].connect("pooled"); Statement s = c.createStatement()) {
                s.execute("CREATE TABLE p (id int PRIMARY KEY, v text)");
            }
            return servers;
        } catch (IOException | SQLException | RuntimeException | Error e) {
            for (Server each : servers) {
                if (each != null) {
                    each.remove();
                }
            }
            throw e;
        }
    }

    /** The config-*.yaml files of the three logical databases over {@code servers}, by file name. */
    static java.util.Map<String, String> configFiles(Server[] servers, int... maxPoolSizes) {
        java.util.Map<String, String> result = new java.util.LinkedHashMap<>();
        result.put("config-faults.yaml", """
                databaseName: %s
                dataSources:
                %s%s
                rules:
                  - !SHARDING
                    tables:
                      t:
                        actualDataNodes: ds_${0..1}.t
                        databaseStrategy:
                          standard:
                            shardingColumn: id
                            shardingAlgorithmName: by_id
                    shardingAlgorithms:
                      by_id:
                        type: INLINE
                        props:
                          algorithm-expression: ds_${id %% 2}
                """.formatted(SHARDED, dataSource("ds_0", servers[0], "ds_0", maxPoolSizes[0], ""),
                dataSource("ds_1", servers[1], "ds_1", maxPoolSizes[1], "")));
        result.put("config-pooled.yaml", "databaseName: " + POOLED + "\ndataSources:\n"
                + dataSource("ds_0", servers[0], "pooled", maxPoolSizes[0], ""));
        result.put("config-pooled-jdbc.yaml", "databaseName: " + POOLED_JDBC + "\ndataSources:\n"
                + dataSource("ds_0", servers[0], "pooled", maxPoolSizes[0], "?reWriteBatchedInserts=true"));
        return result;
    }

    private static String dataSource(String name, Server server, String database, int maxPoolSize, String urlSuffix) {
        return "  " + name + ":\n"
                + "    url: jdbc:postgresql://127.0.0.1:" + server.port() + "/" + database + urlSuffix + "\n"
                + "    username: postgres\n"
                + "    password: \"\"\n"
                + "    maxPoolSize: " + maxPoolSize + "\n"
                + "    connectionTimeoutMilliseconds: " + CONNECTION_TIMEOUT_MILLIS + "\n"
                + "    healthCheckIntervalMilliseconds: " + CHECK_INTERVAL_MILLIS + "\n"
                + "    healthCheckTimeoutMilliseconds: " + CHECK_TIMEOUT_MILLIS + "\n"
                + "    tcpKeepaliveSeconds: 3\n";
    }

    private static int freePort() throws IOException {
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    Server server(int index) {
        return servers[index];
    }

    ProxyRuntime proxy() {
        return proxy;
    }

    /** A connection through the proxy to a logical database, as its default user. */
    Connection connect(String database) throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + proxy.port() + "/" + database + "?"
                + CLIENT_PARAMETERS, "root", "root");
    }

    @Override
    public void close() throws IOException, InterruptedException {
        try {
            proxy.close();
        } finally {
            for (Server each : servers) {
                each.thaw();
                each.remove();
            }
        }
    }
}
