package io.ashlar.bootstrap.catalog;

import io.ashlar.backend.config.LogicalDatabaseConfig;
import io.ashlar.bootstrap.ProxyRuntime;
import io.ashlar.bootstrap.config.ProxyConfiguration;
import io.ashlar.bootstrap.config.ProxyConfigurationLoader;
import io.ashlar.bootstrap.config.ServerConfig;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One embedded PostgreSQL server holding the shards {@code ds_0} and {@code ds_1} and {@code reference}, which holds
 * the same tables as plain tables, made by the same statements ({@code catalog/schema.sql}); and an Ashlar proxy
 * serving logical database {@value #LOGICAL_DATABASE} over the shards with the rules of
 * {@code catalog/config-catalog.yaml}. What a client sees of the logical database through the proxy is compared with
 * what it sees of the reference: one PostgreSQL database with the same schema.
 */
final class CatalogDatabases implements AutoCloseable {

    static final String LOGICAL_DATABASE = "sharding_db";
    static final String REFERENCE = "reference";
    static final String PROXY_USER = "root";
    static final String PROXY_PASSWORD = "root";
    static final String BACKEND_USER = "postgres";

    /** Client settings for every connection: a hung statement fails the test instead of the whole build. */
    private static final String CLIENT_PARAMETERS = "connectTimeout=10&socketTimeout=60";

    /** Where each logical table's actual tables are: data source and table, in the rules' order. */
    static final Map<String, List<String[]>> NODES = nodes();

    private final EmbeddedPostgres postgres;
    private final ProxyRuntime proxy;

    private CatalogDatabases(EmbeddedPostgres postgres, ProxyRuntime proxy) {
        this.postgres = postgres;
        this.proxy = proxy;
    }

    static CatalogDatabases start() throws IOException, SQLException, InterruptedException {
        EmbeddedPostgres postgres = EmbeddedPostgres.builder().setServerConfig("max_prepared_transactions", "64").start();
        try {
            try (Connection connection = postgres.getPostgresDatabase().getConnection(); Statement statement = connection.createStatement()) {
                statement.execute("CREATE DATABASE ds_0");
                statement.execute("CREATE DATABASE ds_1");
                statement.execute("CREATE DATABASE " + REFERENCE);
            }
            createTables(postgres);
            String yaml = resource("catalog/config-catalog.yaml")
                    .replace("@DS0_URL@", url(postgres, "ds_0"))
                    .replace("@DS1_URL@", url(postgres, "ds_1"));
            LogicalDatabaseConfig database = ProxyConfigurationLoader.loadDatabase("config-catalog.yaml", yaml);
            ProxyRuntime proxy = ProxyRuntime.start(new ProxyConfiguration(ServerConfig.DEFAULTS, List.of(database)), 0);
            return new CatalogDatabases(postgres, proxy);
        } catch (IOException | SQLException | InterruptedException | RuntimeException | Error e) {
            postgres.close();
            throw e;
        }
    }

    int proxyPort() {
        return proxy.port();
    }

    int backendPort() {
        return postgres.getPort();
    }

    ProxyRuntime runtime() {
        return proxy;
    }

    /** A connection to the logical database through the proxy, with extra URL parameters ({@code a=b&c=d}, or empty). */
    Connection proxy(String parameters) throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + proxy.port() + "/" + LOGICAL_DATABASE + "?"
                + CLIENT_PARAMETERS + (parameters.isEmpty() ? "" : "&" + parameters), PROXY_USER, PROXY_PASSWORD);
    }

    Connection reference(String parameters) throws SQLException {
        return DriverManager.getConnection(url(postgres, REFERENCE) + "?" + CLIENT_PARAMETERS
                + (parameters.isEmpty() ? "" : "&" + parameters), BACKEND_USER, "");
    }

    Connection shard(String dataSource) throws SQLException {
        return DriverManager.getConnection(url(postgres, dataSource) + "?" + CLIENT_PARAMETERS, BACKEND_USER, "");
    }

    @Override
    public void close() throws IOException {
        try {
            proxy.close();
        } finally {
            postgres.close();
        }
    }

    private static Map<String, List<String[]>> nodes() {
        Map<String, List<String[]>> result = new LinkedHashMap<>();
        List<String[]> twoByTwo = new ArrayList<>();
        for (String dataSource : List.of("ds_0", "ds_1")) {
            for (int i = 0; i < 2; i++) {
                twoByTwo.add(new String[] {dataSource, "_" + i});
            }
        }
        result.put("t_order", twoByTwo);
        result.put("t_order_item", twoByTwo);
        result.put("t_user", List.<String[]>of(new String[] {"ds_0", ""}, new String[] {"ds_1", ""}));
        result.put("t_dict", List.<String[]>of(new String[] {"ds_0", ""}, new String[] {"ds_1", ""}));
        result.put("t_single", List.<String[]>of(new String[] {"ds_1", ""}));
        result.put("app.settings", List.<String[]>of(new String[] {"ds_0", ""}));
        return result;
    }

    /** Runs schema.sql: each block for every actual table of its logical table, and once in the reference. */
    private static void createTables(EmbeddedPostgres postgres) throws IOException, SQLException {
        Map<String, List<String>> blocks = new LinkedHashMap<>();
        List<String> current = null;
        StringBuilder statement = new StringBuilder();
        for (String line : resource("catalog/schema.sql").split("\n")) {
            if (line.startsWith("-- @table ")) {
                current = new ArrayList<>();
                blocks.put(line.substring("-- @table ".length()).strip(), current);
                continue;
            }
            if (line.startsWith("--") || line.isBlank() || current == null) {
                continue;
            }
            statement.append(statement.isEmpty() ? "" : "\n").append(line);
            if (line.endsWith(";")) {
                current.add(statement.substring(0, statement.length() - 1));
                statement.setLength(0);
            }
        }
        try (Connection reference = DriverManager.getConnection(url(postgres, REFERENCE), BACKEND_USER, "");
                Statement sql = reference.createStatement()) {
            for (Map.Entry<String, List<String>> block : blocks.entrySet()) {
                for (String each : block.getValue()) {
                    sql.execute(fill(each, block.getKey(), ""));
                }
            }
        }
        for (String dataSource : List.of("ds_0", "ds_1")) {
            try (Connection shard = DriverManager.getConnection(url(postgres, dataSource), BACKEND_USER, "");
                    Statement sql = shard.createStatement()) {
                for (Map.Entry<String, List<String>> block : blocks.entrySet()) {
                    for (String[] node : NODES.get(block.getKey())) {
                        if (node[0].equals(dataSource)) {
                            for (String each : block.getValue()) {
                                sql.execute(fill(each, block.getKey(), node[1]));
                            }
                        }
                    }
                }
            }
        }
    }

    /** A statement of schema.sql for the actual table of {@code table} with suffix {@code nodeSuffix} ("_0", or none). */
    private static String fill(String statement, String table, String nodeSuffix) {
        String actual = table + nodeSuffix;
        return statement.replace("{table}", actual)
                .replace("{suffix}", nodeSuffix.isEmpty() ? "" : "_" + actual)
                .replace("{t_order}", "t_order" + nodeSuffix);
    }

    static String url(EmbeddedPostgres postgres, String database) {
        return "jdbc:postgresql://127.0.0.1:" + postgres.getPort() + "/" + database;
    }

    static String resource(String name) throws IOException {
        try (InputStream in = CatalogDatabases.class.getClassLoader().getResourceAsStream(name)) {
            if (in == null) {
                throw new IOException("no test resource " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
