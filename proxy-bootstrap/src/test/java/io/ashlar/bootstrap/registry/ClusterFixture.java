package io.ashlar.bootstrap.registry;

import io.ashlar.bootstrap.config.ProxyConfiguration;
import io.ashlar.bootstrap.config.ProxyConfigurationLoader;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.apache.curator.test.TestingServer;

/**
 * Real ZooKeeper (Curator's TestingServer) and one embedded PostgreSQL server holding the shards {@code ds_0} and
 * {@code ds_1}, each with a table {@code t_order(order_id, user_id)}; writes conf/ directories for proxies in Cluster
 * mode whose logical database {@value #DATABASE} places {@code t_order} rows by {@code ds_${<expression>}}.
 */
final class ClusterFixture implements AutoCloseable {

    static final String DATABASE = "sharding_db";

    final TestingServer zooKeeper;
    final EmbeddedPostgres postgres;

    private ClusterFixture(TestingServer zooKeeper, EmbeddedPostgres postgres) {
        this.zooKeeper = zooKeeper;
        this.postgres = postgres;
    }

    static ClusterFixture start() throws Exception {
        TestingServer zooKeeper = new TestingServer(true);
        EmbeddedPostgres postgres;
        try {
            postgres = EmbeddedPostgres.builder().setServerConfig("max_prepared_transactions", "64").start();
        } catch (IOException | RuntimeException e) {
            zooKeeper.close();
            throw e;
        }
        try (Connection connection = postgres.getPostgresDatabase().getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE DATABASE ds_0");
            statement.execute("CREATE DATABASE ds_1");
        }
        return new ClusterFixture(zooKeeper, postgres);
    }

    /** Empties t_order on both shards (creating it the first time). */
    void resetShards() throws SQLException {
        for (String each : new String[] {"ds_0", "ds_1"}) {
            try (Connection connection = shard(each); Statement statement = connection.createStatement()) {
                statement.execute("CREATE TABLE IF NOT EXISTS t_order (order_id bigint PRIMARY KEY, user_id int NOT NULL)");
                statement.execute("TRUNCATE t_order");
            }
        }
    }

    /** server.yaml in Cluster mode on this ZooKeeper, in its own namespace. */
    String serverYaml(String namespace) {
        return serverYaml(namespace, 10);
    }

    /** server.yaml in Cluster mode with this ZooKeeper session timeout. */
    String serverYaml(String namespace, int timeToLiveSeconds) {
        return """
                mode:
                  type: Cluster
                  repository:
                    type: ZooKeeper
                    props:
                      namespace: %s
                      server-lists: %s
                      retryIntervalMilliseconds: 200
                      maxRetries: 3
                      timeToLiveSeconds: %d
                      operationTimeoutMilliseconds: 1000
                """.formatted(namespace, zooKeeper.getConnectString(), timeToLiveSeconds);
    }

    /** The logical database, t_order on data source {@code ds_${databaseExpression}}. */
    String databaseYaml(String databaseExpression) {
        return """
                databaseName: %s
                dataSources:
                  ds_0:
                    url: %s
                    username: postgres
                    password: ""
                    maxPoolSize: 4
                    minPoolSize: 1
                  ds_1:
                    url: %s
                    username: postgres
                    password: ""
                    maxPoolSize: 4
                    minPoolSize: 1
                rules:
                  - !SHARDING
                    tables:
                      t_order:
                        actualDataNodes: ds_${0..1}.t_order
                        databaseStrategy:
                          standard:
                            shardingColumn: user_id
                            shardingAlgorithmName: by_user
                    shardingAlgorithms:
                      by_user:
                        type: INLINE
                        props:
                          algorithm-expression: ds_${%s}
                """.formatted(DATABASE, url("ds_0"), url("ds_1"),
                databaseExpression);
    }

    /** A conf/ directory: server.yaml, and config-sharding.yaml unless {@code databaseYaml} is empty. */
    static Path conf(Path dir, String serverYaml, String databaseYaml) throws IOException {
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("server.yaml"), serverYaml);
        if (!databaseYaml.isEmpty()) {
            Files.writeString(dir.resolve("config-sharding.yaml"), databaseYaml);
        } else {
            Files.deleteIfExists(dir.resolve("config-sharding.yaml"));
        }
        return dir;
    }

    static ProxyConfiguration load(Path conf) {
        return ProxyConfigurationLoader.load(conf);
    }

    static Connection proxy(ClusterProxy proxy) throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + proxy.port() + "/" + DATABASE
                + "?connectTimeout=10&socketTimeout=30", "root", "root");
    }

    Connection shard(String dataSource) throws SQLException {
        return DriverManager.getConnection(url(dataSource) + "?connectTimeout=10&socketTimeout=30", "postgres", "");
    }

    String url(String database) {
        return "jdbc:postgresql://127.0.0.1:" + postgres.getPort() + "/" + database;
    }

    /** The shard holding the t_order row, or "none". */
    String shardOf(long orderId) throws SQLException {
        for (String each : new String[] {"ds_0", "ds_1"}) {
            try (Connection connection = shard(each); Statement statement = connection.createStatement();
                    ResultSet rows = statement.executeQuery("SELECT 1 FROM t_order WHERE order_id = " + orderId)) {
                if (rows.next()) {
                    return each;
                }
            }
        }
        return "none";
    }

    @Override
    public void close() throws IOException {
        try {
            postgres.close();
        } finally {
            zooKeeper.close();
        }
    }
}
