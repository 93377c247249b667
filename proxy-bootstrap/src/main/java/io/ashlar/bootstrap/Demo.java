package io.ashlar.bootstrap;

import io.ashlar.backend.config.DataSourceConfig;
import io.ashlar.backend.config.LogicalDatabaseConfig;
import io.ashlar.bootstrap.config.ProxyConfiguration;
import io.ashlar.bootstrap.config.ServerConfig;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code ashlar demo}: two embedded PostgreSQL servers (no installation needed), a small demo
 * schema, and the proxy on them with user root / password root and logical database
 * {@code sharding_db}. Ctrl-C or SIGTERM stops everything and removes the servers' files.
 *
 * <p>Until the sharding milestone lands, {@code sharding_db} is a pooler over the first server;
 * the second one is started so that the demo already has the shape it will have.
 */
final class Demo {

    static final String DATABASE = "sharding_db";
    private static final String SCHEMA = """
            CREATE TABLE t_order (order_id BIGINT PRIMARY KEY, user_id INT NOT NULL, status VARCHAR(50));
            CREATE TABLE t_order_item (order_item_id BIGINT PRIMARY KEY, order_id BIGINT NOT NULL, user_id INT NOT NULL,
                                       product VARCHAR(100), price NUMERIC(10, 2));
            INSERT INTO t_order VALUES (1, 10, 'paid'), (2, 11, 'shipped'), (3, 10, 'new');
            INSERT INTO t_order_item VALUES (1, 1, 10, 'tea', 3.50), (2, 1, 10, 'cake', 4.25), (3, 2, 11, 'coffee', 2.80);
            """;

    private Demo() {
    }

    static void run(int port) throws Exception {
        List<EmbeddedPostgres> servers = new ArrayList<>();
        AutoCloseable everything = () -> {
            for (EmbeddedPostgres server : servers) {
                server.close();
            }
        };
        try {
            System.out.println("ashlar demo: starting 2 embedded PostgreSQL servers...");
            for (int i = 0; i < 2; i++) {
                servers.add(EmbeddedPostgres.builder().start());
            }
            try (Connection c = servers.get(0).getPostgresDatabase().getConnection(); Statement s = c.createStatement()) {
                s.execute(SCHEMA);
            }
            ProxyRuntime runtime = ProxyRuntime.start(configuration(servers), port);
            AutoCloseable servers0 = everything;
            everything = () -> {
                runtime.close();
                servers0.close();
            };
            System.out.println();
            System.out.println("Ashlar demo is ready. Connect with (password: root):");
            System.out.println("  psql -h 127.0.0.1 -p " + runtime.port() + " -U root " + DATABASE);
            System.out.println("Try:");
            System.out.println("  SELECT * FROM t_order ORDER BY order_id;");
            System.out.println("  SELECT o.order_id, i.product, i.price FROM t_order o JOIN t_order_item i USING (order_id);");
            System.out.println("Ctrl-C stops the proxy and both PostgreSQL servers.");
        } catch (Exception | Error e) {
            everything.close();
            throw e;
        }
        Ashlar.awaitShutdown(everything);
    }

    private static ProxyConfiguration configuration(List<EmbeddedPostgres> servers) throws SQLException {
        Map<String, DataSourceConfig> dataSources = new LinkedHashMap<>();
        for (int i = 0; i < 1; i++) {
            String name = "ds_" + i;
            String url = "jdbc:postgresql://127.0.0.1:" + servers.get(i).getPort() + "/postgres";
            dataSources.put(name, DataSourceConfig.of(name, url, "postgres", ""));
        }
        LogicalDatabaseConfig database = new LogicalDatabaseConfig(DATABASE, dataSources, List.of());
        return new ProxyConfiguration(ServerConfig.DEFAULTS, List.of(database));
    }
}
