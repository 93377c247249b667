package io.ashlar.bootstrap.it;

import io.ashlar.backend.config.DataSourceConfig;
import io.ashlar.backend.config.LogicalDatabaseConfig;
import io.ashlar.backend.config.ProxyUser;
import io.ashlar.bootstrap.ProxyRuntime;
import io.ashlar.bootstrap.config.ModeConfig;
import io.ashlar.bootstrap.config.ProxyConfiguration;
import io.ashlar.bootstrap.config.ServerConfig;
import io.ashlar.bootstrap.config.ServerProps;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;

/**
 * One embedded PostgreSQL server and one Ashlar proxy in front of it, serving logical database
 * {@value #DATABASE} as a pooler over the server's {@code postgres} database. Tests talk to both:
 * through the proxy, and directly to the server, with the same client code, and compare.
 *
 * <p>Users of the proxy: {@value #SCRAM_USER} (SCRAM-SHA-256), {@value #MD5_USER} (MD5),
 * {@value #PASSWORD_USER} (clear-text password) and {@value #DEFAULT_METHOD_USER} (no method named: the
 * protocol's default, MD5 for PostgreSQL clients), each with the password {@link #password(String)} gives.
 */
final class ProxiedPostgres implements AutoCloseable {

    static final String DATABASE = "it_db";
    /** The pooled database of {@link #startSharded(boolean)}. */
    static final String POOLED_DATABASE = "pooled_db";
    static final String SCRAM_USER = "root";
    static final String MD5_USER = "md5_user";
    static final String PASSWORD_USER = "plain_user";
    static final String DEFAULT_METHOD_USER = "default_user";
    static final String BACKEND_DATABASE = "postgres";
    static final String BACKEND_USER = "postgres";

    private static final List<ProxyUser> USERS = List.of(
            new ProxyUser(SCRAM_USER, "%", "root", ProxyUser.SCRAM_SHA_256),
            new ProxyUser(MD5_USER, "%", "md5-secret", ProxyUser.MD5),
            new ProxyUser(PASSWORD_USER, "%", "plain-secret", ProxyUser.PASSWORD),
            new ProxyUser(DEFAULT_METHOD_USER, "%", "default-secret", ProxyUser.PROTOCOL_DEFAULT));

    private final EmbeddedPostgres postgres;
    private final ProxyRuntime proxy;

    private ProxiedPostgres(EmbeddedPostgres postgres, ProxyRuntime proxy) {
        this.postgres = postgres;
        this.proxy = proxy;
    }

    /** Starts a fresh server and a proxy on a free port. */
    static ProxiedPostgres start() throws IOException, InterruptedException {
        return start(Map.of());
    }

    /**
     * Starts a fresh server with these postgresql.conf settings (for example a time zone other
     * than the JVM's) and a proxy on a free port.
     */
    static ProxiedPostgres start(Map<String, String> serverSettings) throws IOException, InterruptedException {
        return start(serverSettings, DataSourceConfig.DEFAULT_MAX_POOL_SIZE);
    }

    /**
     * Starts a fresh server and a proxy whose pool holds at most {@code maxPoolSize} backend
     * connections: with one, every session borrows the connection the previous one gave back.
     */
    static ProxiedPostgres start(Map<String, String> serverSettings, int maxPoolSize) throws IOException, InterruptedException {
        EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder().setServerConfig("max_prepared_transactions", "64");
        serverSettings.forEach(builder::setServerConfig);
        EmbeddedPostgres postgres = builder.start();
        try {
            String url = "jdbc:postgresql://127.0.0.1:" + postgres.getPort() + "/" + BACKEND_DATABASE;
            LogicalDatabaseConfig database = new LogicalDatabaseConfig(DATABASE,
                    Map.of("ds_0", new DataSourceConfig("ds_0", url, BACKEND_USER, "",
                            DataSourceConfig.DEFAULT_CONNECTION_TIMEOUT_MILLISECONDS, DataSourceConfig.DEFAULT_IDLE_TIMEOUT_MILLISECONDS,
                            DataSourceConfig.DEFAULT_MAX_LIFETIME_MILLISECONDS, maxPoolSize,
                            Math.min(DataSourceConfig.DEFAULT_MIN_POOL_SIZE, maxPoolSize), Map.of())), List.of());
            ServerConfig server = new ServerConfig(ModeConfig.STANDALONE, USERS, ServerProps.DEFAULTS);
            ProxyRuntime proxy = ProxyRuntime.start(new ProxyConfiguration(server, List.of(database)), 0);
            return new ProxiedPostgres(postgres, proxy);
        } catch (RuntimeException | InterruptedException | Error e) {
            postgres.close();
            throw e;
        }
    }

    /**
     * Starts a fresh server and a proxy configured by a server.yaml (its users, privileges and props; a port of its
     * own is replaced by a free one), serving {@value #DATABASE} and each of {@code moreDatabases} as poolers over
     * the server's {@code postgres} database.
     */
    static ProxiedPostgres startWithServerYaml(String serverYaml, String... moreDatabases) throws IOException, InterruptedException {
        EmbeddedPostgres postgres = EmbeddedPostgres.builder().setServerConfig("max_prepared_transactions", "64").start();
        try {
            String url = "jdbc:postgresql://127.0.0.1:" + postgres.getPort() + "/" + BACKEND_DATABASE;
            List<LogicalDatabaseConfig> databases = new java.util.ArrayList<>();
            for (String each : java.util.stream.Stream.concat(java.util.stream.Stream.of(DATABASE),
                    java.util.Arrays.stream(moreDatabases)).toList()) {
                databases.add(new LogicalDatabaseConfig(each, Map.of("ds_0", new DataSourceConfig("ds_0", url, BACKEND_USER, "",
                        DataSourceConfig.DEFAULT_CONNECTION_TIMEOUT_MILLISECONDS, DataSourceConfig.DEFAULT_IDLE_TIMEOUT_MILLISECONDS,
                        DataSourceConfig.DEFAULT_MAX_LIFETIME_MILLISECONDS, DataSourceConfig.DEFAULT_MAX_POOL_SIZE,
                        DataSourceConfig.DEFAULT_MIN_POOL_SIZE, Map.of())), List.of()));
            }
            ServerConfig server = io.ashlar.bootstrap.config.ProxyConfigurationLoader.loadServer("server.yaml", serverYaml);
            ProxyRuntime proxy = ProxyRuntime.start(new ProxyConfiguration(server, databases), 0);
            return new ProxiedPostgres(postgres, proxy);
        } catch (RuntimeException | InterruptedException | Error e) {
            postgres.close();
            throw e;
        }
    }

    /**
     * Starts a fresh server holding two shard databases, {@code ds_0} and {@code ds_1}, and a proxy
     * serving {@value #DATABASE} over them with one sharded table, {@code t_og (id int primary key,
     * name text)}: row {@code id} lives in {@code ds_${id % 2}.t_og_${id.intdiv(2) % 2}}. Read the
     * shards with {@link #backend(String)}.
     */
    static ProxiedPostgres startSharded() throws IOException, InterruptedException, SQLException {
        return startSharded(false);
    }

    /**
     * As {@link #startSharded()}, and with {@code withPooled} the proxy also serves {@value #POOLED_DATABASE}
     * as a pooler over the server's {@code postgres} database: one server behind both kinds of session.
     */
    static ProxiedPostgres startSharded(boolean withPooled) throws IOException, InterruptedException, SQLException {
        return startSharded(withPooled, ServerProps.DEFAULTS);
    }

    /** As {@link #startSharded(boolean)}, with the server.yaml {@code props} given. */
    static ProxiedPostgres startSharded(boolean withPooled, ServerProps props) throws IOException, InterruptedException,
            SQLException {
        EmbeddedPostgres postgres = EmbeddedPostgres.builder().setServerConfig("max_prepared_transactions", "64").start();
        try {
            StringBuilder yaml = new StringBuilder("databaseName: " + DATABASE + "\ndataSources:\n");
            for (String dataSource : new String[] {"ds_0", "ds_1"}) {
                try (Connection c = postgres.getPostgresDatabase().getConnection(); java.sql.Statement s = c.createStatement()) {
                    s.execute("CREATE DATABASE " + dataSource);
                }
                String url = "jdbc:postgresql://127.0.0.1:" + postgres.getPort() + "/" + dataSource;
                try (Connection c = DriverManager.getConnection(url, BACKEND_USER, ""); java.sql.Statement s = c.createStatement()) {
                    s.execute("CREATE TABLE t_og_0 (id int PRIMARY KEY, name text)");
                    s.execute("CREATE TABLE t_og_1 (id int PRIMARY KEY, name text)");
                }
                // ds_1 asks pgjdbc to rewrite batched INSERTs into multi-row ones: batches that span
                // both shards run both ways.
                yaml.append("  ").append(dataSource).append(":\n    url: \"").append(url)
                        .append(dataSource.equals("ds_1") ? "?reWriteBatchedInserts=true" : "")
                        .append("\"\n    username: postgres\n    password: \"\"\n");
            }
            yaml.append("""
                    rules:
                      - !SHARDING
                        tables:
                          t_og:
                            actualDataNodes: ds_${0..1}.t_og_${0..1}
                            databaseStrategy:
                              standard:
                                shardingColumn: id
                                shardingAlgorithmName: og_database
                            tableStrategy:
                              standard:
                                shardingColumn: id
                                shardingAlgorithmName: og_table
                        shardingAlgorithms:
                          og_database:
                            type: INLINE
                            props:
                              algorithm-expression: ds_${id % 2}
                          og_table:
                            type: INLINE
                            props:
                              algorithm-expression: t_og_${id.intdiv(2) % 2}
                    """);
            LogicalDatabaseConfig database = io.ashlar.bootstrap.config.ProxyConfigurationLoader.loadDatabase(
                    "config-og.yaml", yaml.toString());
            ServerConfig server = new ServerConfig(ModeConfig.STANDALONE, USERS, props);
            List<LogicalDatabaseConfig> databases = new java.util.ArrayList<>(List.of(database));
            if (withPooled) {
                databases.add(pooled(postgres.getPort(), BACKEND_DATABASE, Map.of()));
            }
            ProxyRuntime proxy = ProxyRuntime.start(new ProxyConfiguration(server, databases), 0);
            return new ProxiedPostgres(postgres, proxy);
        } catch (RuntimeException | InterruptedException | SQLException | Error e) {
            postgres.close();
            throw e;
        }
    }

    /**
     * A second proxy over this server serving {@value #POOLED_DATABASE} as a pooler over {@code backendDatabase},
     * with these pgjdbc driver properties on its data source ({@code reWriteBatchedInserts=true} puts its sessions
     * on the JDBC path instead of the relay); the caller closes it.
     */
    ProxyRuntime pooler(String backendDatabase, Map<String, String> driverProperties) throws InterruptedException {
        return ProxyRuntime.start(new ProxyConfiguration(new ServerConfig(ModeConfig.STANDALONE, USERS, ServerProps.DEFAULTS),
                List.of(pooled(postgres.getPort(), backendDatabase, driverProperties))), 0);
    }

    /** {@value #POOLED_DATABASE}: a pooler over one database of the server on {@code port}, with these driver properties. */
    private static LogicalDatabaseConfig pooled(int port, String backendDatabase, Map<String, String> driverProperties) {
        String url = "jdbc:postgresql://127.0.0.1:" + port + "/" + backendDatabase;
        return new LogicalDatabaseConfig(POOLED_DATABASE, Map.of("ds_0", new DataSourceConfig("ds_0", url, BACKEND_USER, "",
                DataSourceConfig.DEFAULT_CONNECTION_TIMEOUT_MILLISECONDS, DataSourceConfig.DEFAULT_IDLE_TIMEOUT_MILLISECONDS,
                DataSourceConfig.DEFAULT_MAX_LIFETIME_MILLISECONDS, DataSourceConfig.DEFAULT_MAX_POOL_SIZE,
                DataSourceConfig.DEFAULT_MIN_POOL_SIZE, driverProperties)), List.of());
    }

    /** A connection straight to one database of the backend server (a shard of {@link #startSharded()}). */
    Connection backend(String database) throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + backendPort() + "/" + database, BACKEND_USER, "");
    }

    static String password(String user) {
        for (ProxyUser each : USERS) {
            if (each.name().equals(user)) {
                return each.password();
            }
        }
        throw new IllegalArgumentException("no such test user: " + user);
    }

    /** How many clients of a dialect logged in to the proxy with an exchange. */
    long logins(io.ashlar.protocol.ClientDialect dialect, io.ashlar.frontend.auth.LoginMethod method) {
        return proxy.logins(dialect, method);
    }

    int proxyPort() {
        return proxy.port();
    }

    int backendPort() {
        return postgres.getPort();
    }

    /** pgjdbc URL of the proxy's logical database, with extra URL parameters ({@code a=b&c=d}, or empty). */
    String proxyUrl(String parameters) {
        return "jdbc:postgresql://127.0.0.1:" + proxyPort() + "/" + DATABASE + (parameters.isEmpty() ? "" : "?" + parameters);
    }

    /** openGauss JDBC driver URL of the proxy's logical database, with extra URL parameters ({@code a=b&c=d}, or empty). */
    String openGaussUrl(String parameters) {
        return "jdbc:opengauss://127.0.0.1:" + proxyPort() + "/" + DATABASE + (parameters.isEmpty() ? "" : "?" + parameters);
    }

    /** pgjdbc URL of the backend database itself. */
    String directUrl(String parameters) {
        return "jdbc:postgresql://127.0.0.1:" + backendPort() + "/" + BACKEND_DATABASE
                + (parameters.isEmpty() ? "" : "?" + parameters);
    }

    /** A connection through the proxy as the SCRAM user. */
    Connection proxy(String parameters) throws SQLException {
        return DriverManager.getConnection(proxyUrl(parameters), SCRAM_USER, password(SCRAM_USER));
    }

    /** A connection straight to the backend PostgreSQL server. */
    Connection direct(String parameters) throws SQLException {
        return DriverManager.getConnection(directUrl(parameters), BACKEND_USER, "");
    }

    /** Stops the proxy as SIGTERM does (the backend server stays up). */
    void stopProxy() {
        proxy.close();
    }

    @Override
    public void close() throws IOException {
        try {
            proxy.close();
        } finally {
            postgres.close();
        }
    }
}
