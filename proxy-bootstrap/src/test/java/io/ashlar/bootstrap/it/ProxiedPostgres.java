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
 * <p>Users of the proxy: {@value #SCRAM_USER} (SCRAM-SHA-256), {@value #MD5_USER} (MD5) and
 * {@value #PASSWORD_USER} (clear-text password), each with the password {@link #password(String)} gives.
 */
final class ProxiedPostgres implements AutoCloseable {

    static final String DATABASE = "it_db";
    static final String SCRAM_USER = "root";
    static final String MD5_USER = "md5_user";
    static final String PASSWORD_USER = "plain_user";
    static final String BACKEND_DATABASE = "postgres";
    static final String BACKEND_USER = "postgres";

    private static final List<ProxyUser> USERS = List.of(
            new ProxyUser(SCRAM_USER, "%", "root", ProxyUser.SCRAM_SHA_256),
            new ProxyUser(MD5_USER, "%", "md5-secret", ProxyUser.MD5),
            new ProxyUser(PASSWORD_USER, "%", "plain-secret", ProxyUser.PASSWORD));

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
        EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder();
        serverSettings.forEach(builder::setServerConfig);
        EmbeddedPostgres postgres = builder.start();
        try {
            String url = "jdbc:postgresql://127.0.0.1:" + postgres.getPort() + "/" + BACKEND_DATABASE;
            LogicalDatabaseConfig database = new LogicalDatabaseConfig(DATABASE,
                    Map.of("ds_0", DataSourceConfig.of("ds_0", url, BACKEND_USER, "")), List.of());
            ServerConfig server = new ServerConfig(ModeConfig.STANDALONE, USERS, ServerProps.DEFAULTS);
            ProxyRuntime proxy = ProxyRuntime.start(new ProxyConfiguration(server, List.of(database)), 0);
            return new ProxiedPostgres(postgres, proxy);
        } catch (RuntimeException | InterruptedException | Error e) {
            postgres.close();
            throw e;
        }
    }

    static String password(String user) {
        for (ProxyUser each : USERS) {
            if (each.name().equals(user)) {
                return each.password();
            }
        }
        throw new IllegalArgumentException("no such test user: " + user);
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
