package io.ashlar.bootstrap.it;

import io.ashlar.backend.config.LogicalDatabaseConfig;
import io.ashlar.backend.config.ProxyUser;
import io.ashlar.bootstrap.ProxyRuntime;
import io.ashlar.bootstrap.config.ModeConfig;
import io.ashlar.bootstrap.config.ProxyConfiguration;
import io.ashlar.bootstrap.config.ProxyConfigurationLoader;
import io.ashlar.bootstrap.config.ServerConfig;
import io.ashlar.bootstrap.config.ServerProps;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * One logical database over data sources that are databases of one embedded PostgreSQL (made here, each prepared by
 * the test), served by a proxy with one clear-text password user ({@link #USER}). For tests that need rules of their
 * own; {@link ProxiedPostgres} serves the common layouts.
 */
final class ShardedProxyFixture implements AutoCloseable {

    static final String USER = "plain_user";
    static final String PASSWORD = "plain-secret";

    /** What a test makes in each data source's database before the proxy starts. */
    @FunctionalInterface
    interface Preparation {
        /**
         * @param admin a statement on the server's postgres database ({@code ALTER DATABASE}, roles)
         * @param shard a statement on the data source's own database
         */
        void prepare(String dataSource, Statement admin, Statement shard) throws SQLException;
    }

    private final EmbeddedPostgres postgres;
    private final ProxyRuntime proxy;

    private ShardedProxyFixture(EmbeddedPostgres postgres, ProxyRuntime proxy) {
        this.postgres = postgres;
        this.proxy = proxy;
    }

    /**
     * @param rules the YAML of the logical database after its {@code dataSources} ({@code rules: ...})
     */
    static ShardedProxyFixture start(String database, List<String> dataSources, Preparation preparation, String rules)
            throws Exception {
        EmbeddedPostgres postgres = EmbeddedPostgres.builder().setServerConfig("max_prepared_transactions", "64").start();
        try {
            StringBuilder yaml = new StringBuilder("databaseName: " + database + "\ndataSources:\n");
            for (String dataSource : dataSources) {
                try (Connection admin = postgres.getPostgresDatabase().getConnection(); Statement s = admin.createStatement()) {
                    s.execute("CREATE DATABASE " + dataSource);
                    try (Connection shard = connect(postgres, dataSource); Statement t = shard.createStatement()) {
                        preparation.prepare(dataSource, s, t);
                    }
                }
                yaml.append("  ").append(dataSource).append(":\n    url: \"jdbc:postgresql://127.0.0.1:").append(postgres.getPort())
                        .append('/').append(dataSource).append("\"\n    username: postgres\n    password: \"\"\n");
            }
            yaml.append(rules);
            LogicalDatabaseConfig config = ProxyConfigurationLoader.loadDatabase("config-" + database + ".yaml", yaml.toString());
            ServerConfig server = new ServerConfig(ModeConfig.STANDALONE, List.of(new ProxyUser(USER, "%", PASSWORD, ProxyUser.PASSWORD)),
                    ServerProps.DEFAULTS);
            return new ShardedProxyFixture(postgres, ProxyRuntime.start(new ProxyConfiguration(server, List.of(config)), 0));
        } catch (Exception | Error e) {
            postgres.close();
            throw e;
        }
    }

    private static Connection connect(EmbeddedPostgres postgres, String dataSource) throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + postgres.getPort() + "/" + dataSource, "postgres", "");
    }

    /** A JDBC connection straight to a data source's database. */
    Connection shard(String dataSource) throws SQLException {
        return connect(postgres, dataSource);
    }

    int port() {
        return proxy.port();
    }

    /** A raw protocol connection to the proxy, logged in to {@code database}. */
    RawConnection logIn(String database, java.util.Map<String, String> parameters) throws IOException {
        RawConnection result = new RawConnection(proxy.port());
        result.logIn(USER, database, PASSWORD, parameters);
        return result;
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
