package io.ashlar.bootstrap.drivers;

import io.ashlar.backend.config.DataSourceConfig;
import io.ashlar.backend.config.LogicalDatabaseConfig;
import io.ashlar.bootstrap.ProxyRuntime;
import io.ashlar.bootstrap.TempTrees;
import io.ashlar.bootstrap.config.DemoConfiguration;
import io.ashlar.bootstrap.config.ProxyConfiguration;
import io.ashlar.bootstrap.config.ProxyConfigurationLoader;
import io.ashlar.bootstrap.config.ServerConfig;
import io.ashlar.bootstrap.it.TestCertificates;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.security.GeneralSecurityException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyManager;

/**
 * What the Python driver suites run against: one embedded PostgreSQL server holding the databases {@code ds_0} and
 * {@code ds_1} (the demo's shards), {@code pool_db} and {@code reference}, and one Ashlar proxy serving two logical
 * databases over them:
 * <ul>
 *   <li>{@value #SHARDED}: the demo's rules ({@code demo/config-sharding.yaml}): t_order and t_order_item sharded by
 *       {@code ds_${user_id % 2}} and {@code *_${order_id % 2}} (binding tables), t_address broadcast;</li>
 *   <li>{@value #POOLED}: no rules, one data source ({@code pool_db}) whose pool holds at most
 *       {@value #POOLED_MAX_POOL_SIZE} connections, so that every session shares backend connections with
 *       others;</li>
 * </ul>
 * and {@code reference}, which holds the logical tables as plain tables with the same rows, for the suites to compare
 * with value by value. {@code pool_db} holds the same plain tables and rows. A NOLOGIN role {@value #ROLE} exists for
 * {@code SET ROLE}.
 *
 * <p>The proxy speaks TLS with a certificate for 127.0.0.1 signed by a CA the fixtures make ({@link TestCertificates}),
 * so that every suite runs over TLS wherever its driver asks for it (psycopg's and asyncpg's default is
 * {@code prefer}), and test_tls.py checks {@code require}, {@code verify-full} and channel binding. Its user
 * {@value #TLS_USER} (SCRAM-SHA-256) may log in over TLS only.
 *
 * <p>The rows are the demo's ({@code demo/schema.sql}) and {@value #GENERATED_ORDERS} generated orders with two items
 * each, placed on the shards as the rules place them.
 */
final class DriverDatabases implements AutoCloseable {

    static final String SHARDED = "sharding_db";
    static final String POOLED = "pooled_db";
    static final String POOLED_BACKEND = "pool_db";
    static final String REFERENCE = "reference";
    static final List<String> SHARDS = List.of("ds_0", "ds_1");
    static final String ROLE = "ashlar_driver_role";
    static final int POOLED_MAX_POOL_SIZE = 2;
    static final String PROXY_USER = "root";
    static final String PROXY_PASSWORD = "root";
    static final String BACKEND_USER = "postgres";
    static final String TLS_USER = "tls_user";
    static final String TLS_PASSWORD = "tls-secret";

    private static final int GENERATED_ORDERS = 120;
    private static final String[] STATUSES = {"NEW", "PAID", "SHIPPED", "CANCELLED", "Returned ünïcode"};

    /** The logical tables with the column definitions of demo/schema.sql, in load order. */
    private static final Map<String, String> LOGICAL_TABLES = tables();

    private final EmbeddedPostgres postgres;
    private final ProxyRuntime proxy;
    private final TestCertificates certificates;

    private DriverDatabases(EmbeddedPostgres postgres, ProxyRuntime proxy, TestCertificates certificates) {
        this.postgres = postgres;
        this.proxy = proxy;
        this.certificates = certificates;
    }

    /** Starts the server, creates and fills the databases, and starts the proxy on a free port. */
    static DriverDatabases start() throws IOException, SQLException, InterruptedException, GeneralSecurityException {
        TestCertificates certificates = TestCertificates.create(Files.createTempDirectory("ashlar-driver-tls"));
        EmbeddedPostgres postgres = EmbeddedPostgres.builder().setServerConfig("max_prepared_transactions", "64").start();
        try {
            try (Connection connection = postgres.getPostgresDatabase().getConnection(); Statement statement = connection.createStatement()) {
                for (String each : SHARDS) {
                    statement.execute("CREATE DATABASE " + each);
                }
                statement.execute("CREATE DATABASE " + POOLED_BACKEND);
                statement.execute("CREATE DATABASE " + REFERENCE);
                statement.execute("CREATE ROLE " + ROLE + " NOLOGIN");
            }
            fill(postgres);
            ProxyConfiguration demo = DemoConfiguration.load(url(postgres, "ds_0"), url(postgres, "ds_1"), BACKEND_USER, "");
            DataSourceConfig pool = new DataSourceConfig("ds_0", url(postgres, POOLED_BACKEND), BACKEND_USER, "",
                    DataSourceConfig.DEFAULT_CONNECTION_TIMEOUT_MILLISECONDS, DataSourceConfig.DEFAULT_IDLE_TIMEOUT_MILLISECONDS,
                    DataSourceConfig.DEFAULT_MAX_LIFETIME_MILLISECONDS, POOLED_MAX_POOL_SIZE, 1, Map.of());
            LogicalDatabaseConfig pooled = new LogicalDatabaseConfig(POOLED, Map.of("ds_0", pool), List.of());
            List<LogicalDatabaseConfig> databases = new ArrayList<>(demo.databases());
            databases.add(pooled);
            ServerConfig server = ProxyConfigurationLoader.loadServer("server.yaml", """
                    authority:
                      users:
                        - user: %s
                          password: %s
                        - user: %s
                          password: %s
                          authenticationMethod: scram-sha-256
                          sslRequired: true
                    props:
                      proxy-frontend-ssl-enabled: true
                      proxy-frontend-ssl-cert-file: %s
                      proxy-frontend-ssl-key-file: %s
                    """.formatted(PROXY_USER, PROXY_PASSWORD, TLS_USER, TLS_PASSWORD, certificates.serverCert,
                    certificates.serverKey));
            ProxyRuntime proxy = ProxyRuntime.start(new ProxyConfiguration(server, databases), 0);
            return new DriverDatabases(postgres, proxy, certificates);
        } catch (IOException | SQLException | InterruptedException | RuntimeException | Error e) {
            postgres.close();
            throw e;
        }
    }

    /**
     * The environment the Python suites read (conftest.py): where the proxy and the backend server listen, the
     * credentials and the database names. Only {@code ASHLAR_} names, so that no libpq {@code PG*} variable is set.
     */
    Map<String, String> environment() {
        Map<String, String> result = new LinkedHashMap<>();
        result.put("ASHLAR_HOST", "127.0.0.1");
        result.put("ASHLAR_PORT", String.valueOf(proxy.port()));
        result.put("ASHLAR_USER", PROXY_USER);
        result.put("ASHLAR_PASSWORD", PROXY_PASSWORD);
        result.put("ASHLAR_SHARDED_DB", SHARDED);
        result.put("ASHLAR_POOLED_DB", POOLED);
        result.put("ASHLAR_POOLED_MAX_POOL_SIZE", String.valueOf(POOLED_MAX_POOL_SIZE));
        result.put("ASHLAR_PG_HOST", "127.0.0.1");
        result.put("ASHLAR_PG_PORT", String.valueOf(postgres.getPort()));
        result.put("ASHLAR_PG_USER", BACKEND_USER);
        result.put("ASHLAR_PG_PASSWORD", "");
        result.put("ASHLAR_PG_SHARDS", String.join(",", SHARDS));
        result.put("ASHLAR_PG_POOLED", POOLED_BACKEND);
        result.put("ASHLAR_PG_REFERENCE", REFERENCE);
        result.put("ASHLAR_ROLE", ROLE);
        result.put("ASHLAR_SSL_ROOTCERT", certificates.caCert.toString());
        result.put("ASHLAR_SSL_OTHER_ROOTCERT", certificates.otherCaCert.toString());
        result.put("ASHLAR_TLS_USER", TLS_USER);
        result.put("ASHLAR_TLS_PASSWORD", TLS_PASSWORD);
        return result;
    }

    @Override
    public void close() throws IOException {
        try {
            proxy.close();
        } finally {
            try {
                postgres.close();
            } finally {
                TempTrees.delete(certificates.caCert.getParent()); // each run made one in /tmp, and none went
            }
        }
    }

    /**
     * Creates the demo's actual tables and rows on the shards, adds the generated rows where the rules place them,
     * then copies every actual table's rows into the plain tables of {@code reference} and {@code pool_db}.
     */
    private static void fill(EmbeddedPostgres postgres) throws SQLException, IOException {
        for (String shard : SHARDS) {
            try (Connection connection = connect(postgres, shard); Statement statement = connection.createStatement()) {
                for (String sql : DemoConfiguration.schemaStatements(shard)) {
                    statement.execute(sql);
                }
                for (String sql : generatedRows(shard)) {
                    statement.execute(sql);
                }
            }
        }
        for (String plain : List.of(REFERENCE, POOLED_BACKEND)) {
            try (Connection target = connect(postgres, plain); Statement statement = target.createStatement()) {
                for (Map.Entry<String, String> table : LOGICAL_TABLES.entrySet()) {
                    statement.execute("CREATE TABLE " + table.getKey() + " (" + table.getValue() + ")");
                }
                CopyManager into = target.unwrap(PGConnection.class).getCopyAPI();
                for (String shard : SHARDS) {
                    try (Connection source = connect(postgres, shard)) {
                        CopyManager from = source.unwrap(PGConnection.class).getCopyAPI();
                        for (String table : LOGICAL_TABLES.keySet()) {
                            if (table.equals("t_address")) {
                                if (shard.equals(SHARDS.get(0))) {
                                    copy(from, table, into, table);
                                }
                                continue;
                            }
                            for (int i = 0; i < 2; i++) {
                                copy(from, table + "_" + i, into, table);
                            }
                        }
                    }
                }
                statement.execute("ANALYZE");
            }
        }
    }

    private static void copy(CopyManager from, String fromTable, CopyManager into, String intoTable) throws SQLException, IOException {
        ByteArrayOutputStream rows = new ByteArrayOutputStream();
        from.copyOut("COPY " + fromTable + " TO STDOUT (FORMAT binary)", rows);
        into.copyIn("COPY " + intoTable + " FROM STDIN (FORMAT binary)", new ByteArrayInputStream(rows.toByteArray()));
    }

    /**
     * INSERTs of the generated orders (order_id 1..{@value #GENERATED_ORDERS}, user_id 1..12) and their two items
     * each, for the actual tables of one shard: data source {@code ds_${user_id % 2}}, table {@code *_${order_id % 2}}.
     */
    private static List<String> generatedRows(String shard) {
        List<String> result = new ArrayList<>();
        for (int order = 1; order <= GENERATED_ORDERS; order++) {
            int user = order * 7 % 12 + 1;
            if (!shard.equals("ds_" + user % 2)) {
                continue;
            }
            String status = STATUSES[order % STATUSES.length];
            result.add("INSERT INTO t_order_" + order % 2 + " (order_id, user_id, status) VALUES (" + order + ", " + user + ", '" + status + "')");
            for (int item = 0; item < 2; item++) {
                result.add("INSERT INTO t_order_item_" + order % 2 + " (order_item_id, order_id, user_id, status) VALUES ("
                        + (order * 10 + item) + ", " + order + ", " + user + ", '" + status + "')");
            }
        }
        return result;
    }

    private static Map<String, String> tables() {
        Map<String, String> result = new LinkedHashMap<>();
        result.put("t_order", "order_id BIGINT PRIMARY KEY, user_id INT NOT NULL, status VARCHAR(50) NOT NULL");
        result.put("t_order_item", "order_item_id BIGINT PRIMARY KEY, order_id BIGINT NOT NULL, user_id INT NOT NULL, status VARCHAR(50) NOT NULL");
        result.put("t_address", "address_id BIGINT PRIMARY KEY, address_name VARCHAR(100) NOT NULL");
        return result;
    }

    private static Connection connect(EmbeddedPostgres postgres, String database) throws SQLException {
        return DriverManager.getConnection(url(postgres, database), BACKEND_USER, "");
    }

    private static String url(EmbeddedPostgres postgres, String database) {
        return "jdbc:postgresql://127.0.0.1:" + postgres.getPort() + "/" + database;
    }

    /**
     * Starts the fixtures and prints their environment as {@code export} lines, then waits for Ctrl-C: for running
     * the Python suites by hand while writing them (see src/test/python/README.md).
     */
    public static void main(String[] args) throws Exception {
        try (DriverDatabases databases = start()) {
            for (Map.Entry<String, String> each : databases.environment().entrySet()) {
                System.out.println("export " + each.getKey() + "='" + each.getValue() + "'");
            }
            System.out.flush();
            Thread.currentThread().join();
        }
    }
}
