package io.ashlar.bootstrap.it;

import io.ashlar.backend.config.LogicalDatabaseConfig;
import io.ashlar.bootstrap.ProxyRuntime;
import io.ashlar.bootstrap.config.ProxyConfiguration;
import io.ashlar.bootstrap.config.ProxyConfigurationLoader;
import io.ashlar.bootstrap.config.ServerConfig;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * A proxy as an operator meets it, for the operability tests: one PostgreSQL server holding {@code demo_ds_0} and
 * {@code demo_ds_1} (each with {@code t_order_0} and {@code t_order_1}), a sharded logical database
 * {@value #SHARDED} over them with the route golden files' rules (kernel-route's route/rules/sharding.yaml), a pooled
 * one {@value #POOLED} over {@code demo_ds_0}, an admin user {@code root} and a user {@code app} who is none (each
 * user's password is its name).
 */
final class OpsProxy implements AutoCloseable {

    static final String SHARDED = "sharding_db";
    static final String POOLED = "pool_db";

    final EmbeddedPostgres postgres;
    final ProxyRuntime proxy;

    private OpsProxy(EmbeddedPostgres postgres, ProxyRuntime proxy) {
        this.postgres = postgres;
        this.proxy = proxy;
    }

    /** Starts it; {@code props}: server.yaml {@code props:} lines (indented by two), or empty. */
    static OpsProxy start(String props) throws IOException, SQLException, InterruptedException {
        EmbeddedPostgres postgres = EmbeddedPostgres.builder().setServerConfig("max_prepared_transactions", "64").start();
        try {
            StringBuilder dataSources = new StringBuilder();
            for (String each : new String[] {"demo_ds_0", "demo_ds_1"}) {
                try (Connection c = postgres.getPostgresDatabase().getConnection(); Statement s = c.createStatement()) {
                    s.execute("CREATE DATABASE " + each);
                }
                try (Connection c = backend(postgres, each); Statement s = c.createStatement()) {
                    for (String table : new String[] {"t_order_0", "t_order_1"}) {
                        s.execute("CREATE TABLE " + table + " (order_id bigint PRIMARY KEY, user_id int, status text)");
                    }
                }
                dataSources.append("  ").append(each.substring(5)).append(":\n    url: jdbc:postgresql://127.0.0.1:")
                        .append(postgres.getPort()).append('/').append(each)
                        .append("\n    username: postgres\n    password: \"\"\n");
            }
            String rules = Files.readString(Path.of("../kernel-route/src/test/resources/route/rules/sharding.yaml"));
            rules = rules.substring(rules.indexOf("rules:"));
            LogicalDatabaseConfig sharded = ProxyConfigurationLoader.loadDatabase("config-sharding.yaml",
                    "databaseName: " + SHARDED + "\ndataSources:\n" + dataSources + rules);
            LogicalDatabaseConfig pooled = ProxyConfigurationLoader.loadDatabase("config-pool.yaml",
                    "databaseName: " + POOLED + "\ndataSources:\n  ds_0:\n    url: jdbc:postgresql://127.0.0.1:"
                            + postgres.getPort() + "/demo_ds_0\n    username: postgres\n    password: \"\"\n");
            ServerConfig server = ProxyConfigurationLoader.loadServer("server.yaml", """
                    authority:
                      users:
                        - user: root@%
                          password: root
                          admin: true
                        - user: app@%
                          password: app
                      privilege:
                        type: ALL_PERMITTED
                    """ + (props.isEmpty() ? "" : "props:\n" + props));
            ProxyRuntime proxy = ProxyRuntime.start(new ProxyConfiguration(server, List.of(sharded, pooled)), 0);
            return new OpsProxy(postgres, proxy);
        } catch (IOException | SQLException | InterruptedException | RuntimeException | Error e) {
            postgres.close();
            throw e;
        }
    }

    private static Connection backend(EmbeddedPostgres postgres, String database) throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + postgres.getPort() + "/" + database, "postgres", "");
    }

    /** A connection straight to a backend database. */
    Connection backend(String database) throws SQLException {
        return backend(postgres, database);
    }

    /** A pgjdbc connection through the proxy in a {@code preferQueryMode}. */
    Connection connect(String database, String user, String mode) throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + proxy.port() + "/" + database
                + "?preferQueryMode=" + mode, user, user);
    }

    /** A result as text: the header (name:type per column), then one line per row, values between '|'. */
    static List<String> read(ResultSet rs) throws SQLException {
        List<String> result = new ArrayList<>();
        ResultSetMetaData meta = rs.getMetaData();
        StringBuilder header = new StringBuilder();
        for (int i = 1; i <= meta.getColumnCount(); i++) {
            header.append(i > 1 ? "|" : "").append(meta.getColumnName(i)).append(':').append(meta.getColumnTypeName(i));
        }
        result.add(header.toString());
        while (rs.next()) {
            StringBuilder row = new StringBuilder();
            for (int i = 1; i <= meta.getColumnCount(); i++) {
                row.append(i > 1 ? "|" : "").append(rs.getString(i));
            }
            result.add(row.toString());
        }
        return result;
    }

    static List<String> query(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            return read(rs);
        }
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
