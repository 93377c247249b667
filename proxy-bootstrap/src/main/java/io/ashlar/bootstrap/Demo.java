package io.ashlar.bootstrap;

import io.ashlar.bootstrap.config.DemoConfiguration;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code ashlar demo}: two embedded PostgreSQL servers (no installation needed), the demo schema
 * of {@code demo/schema.sql} on them, and the proxy with user root / password root and logical
 * database {@code sharding_db}: t_order and t_order_item sharded over both servers (binding
 * tables), t_address broadcast. Ctrl-C or SIGTERM stops everything and removes the servers' files.
 */
final class Demo {

    static final String DATABASE = "sharding_db";

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
                servers.add(EmbeddedPostgres.builder().setServerConfig("max_prepared_transactions", "64").start());
            }
            for (int i = 0; i < 2; i++) {
                try (Connection c = servers.get(i).getPostgresDatabase().getConnection(); Statement s = c.createStatement()) {
                    for (String sql : DemoConfiguration.schemaStatements("ds_" + i)) {
                        s.execute(sql);
                    }
                }
            }
            ProxyRuntime runtime = ProxyRuntime.start(DemoConfiguration.load(url(servers.get(0)), url(servers.get(1)),
                    "postgres", ""), port);
            AutoCloseable servers0 = everything;
            everything = () -> {
                runtime.close();
                servers0.close();
            };
            System.out.println();
            System.out.println("Ashlar demo is ready. Connect with (password: root):");
            System.out.println("  psql -h 127.0.0.1 -p " + runtime.port() + " -U root " + DATABASE);
            System.out.println("t_order and t_order_item are split over 2 PostgreSQL servers x 2 tables (by user_id, then");
            System.out.println("order_id); t_address has a copy on each. Try:");
            System.out.println("  SELECT * FROM t_order ORDER BY order_id;");
            System.out.println("  SELECT user_id, count(*), min(order_id) FROM t_order GROUP BY user_id ORDER BY user_id;");
            System.out.println("  SELECT o.order_id, i.order_item_id FROM t_order o JOIN t_order_item i ON o.order_id = i.order_id"
                    + " AND o.user_id = i.user_id WHERE o.user_id = 2;");
            System.out.println("  INSERT INTO t_order (user_id, status) VALUES (7, 'NEW') RETURNING order_id;");
            System.out.println("  SELECT * FROM t_address;");
            System.out.println("Behind the proxy (user postgres, no password), each data source's own server:");
            for (int i = 0; i < servers.size(); i++) {
                System.out.println("  ds_" + i + ": psql -h 127.0.0.1 -p " + servers.get(i).getPort() + " -U postgres postgres");
            }
            System.out.println("See where a statement goes: PREVIEW SELECT * FROM t_order WHERE user_id = 2;"
                    + " the pools: SHOW POOLS; (docs/operations.md)");
            System.out.println("Ctrl-C stops the proxy and both PostgreSQL servers.");
        } catch (Exception | Error e) {
            everything.close();
            throw e;
        }
        Ashlar.awaitShutdown(everything);
    }

    private static String url(EmbeddedPostgres server) {
        return "jdbc:postgresql://127.0.0.1:" + server.getPort() + "/postgres";
    }
}
