package io.ashlar.bootstrap.sharding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ashlar.backend.config.LogicalDatabaseConfig;
import io.ashlar.bootstrap.ProxyRuntime;
import io.ashlar.bootstrap.config.ProxyConfiguration;
import io.ashlar.bootstrap.config.ProxyConfigurationLoader;
import io.ashlar.bootstrap.config.ServerConfig;
import io.ashlar.bootstrap.sharding.ShardingLayout.LogicalTable;
import io.ashlar.bootstrap.sharding.ShardingLayout.Node;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One embedded PostgreSQL server holding three databases: the shards {@code ds_0} and {@code ds_1}, and
 * {@code reference}, which holds every logical table as one plain table; and an Ashlar proxy serving logical
 * database {@value #LOGICAL_DATABASE} over the two shards with the rules of {@code sharding/config-sharding.yaml}.
 *
 * <p>A data source is only a JDBC URL, so shards as databases of one server test the same routing, rewriting and
 * merging as shards on separate servers, and start in a third of the time. All three databases share the server's
 * collation, so text order is the same everywhere.
 */
final class ShardedDatabases implements AutoCloseable {

    static final String LOGICAL_DATABASE = "sharding_db";
    static final String REFERENCE = "reference";

    /** Client settings for every connection: a hung statement fails the test instead of the whole build. */
    private static final String CLIENT_PARAMETERS = "connectTimeout=10&socketTimeout=60";

    private final EmbeddedPostgres postgres;
    private final ProxyRuntime proxy;

    private ShardedDatabases(EmbeddedPostgres postgres, ProxyRuntime proxy) {
        this.postgres = postgres;
        this.proxy = proxy;
    }

    /** Starts the server, creates the databases and the tables that exist at start (empty), and starts the proxy. */
    static ShardedDatabases start() throws IOException, SQLException, InterruptedException {
        return start(ServerConfig.DEFAULTS);
    }

    /** The same, with the proxy's server.yaml (its props) given. */
    static ShardedDatabases start(ServerConfig server) throws IOException, SQLException, InterruptedException {
        return start(server, java.util.function.UnaryOperator.identity());
    }

    /** The same, with the rules' YAML changed first (a test's own tables added to it). */
    static ShardedDatabases start(ServerConfig server, java.util.function.UnaryOperator<String> rules)
            throws IOException, SQLException, InterruptedException {
        EmbeddedPostgres postgres = EmbeddedPostgres.builder().setServerConfig("max_prepared_transactions", "64").start();
        try {
            try (Connection connection = postgres.getPostgresDatabase().getConnection(); Statement statement = connection.createStatement()) {
                for (String each : ShardingLayout.DATA_SOURCES) {
                    statement.execute("CREATE DATABASE " + each);
                }
                statement.execute("CREATE DATABASE " + REFERENCE);
            }
            String yaml = rules.apply(resource("sharding/config-sharding.yaml"))
                    .replace("@DS0_URL@", url(postgres, "ds_0"))
                    .replace("@DS1_URL@", url(postgres, "ds_1"));
            createTables(postgres);
            LogicalDatabaseConfig database = ProxyConfigurationLoader.loadDatabase("config-sharding.yaml", yaml);
            ProxyRuntime proxy = ProxyRuntime.start(new ProxyConfiguration(server, List.of(database)), 0);
            return new ShardedDatabases(postgres, proxy);
        } catch (IOException | SQLException | InterruptedException | RuntimeException | Error e) {
            postgres.close();
            throw e;
        }
    }

    /** A connection to the logical database through the proxy, as root/root, with extra URL parameters ({@code a=b&c=d}, or empty). */
    Connection proxy(String parameters) throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + proxy.port() + "/" + LOGICAL_DATABASE + "?"
                + CLIENT_PARAMETERS + (parameters.isEmpty() ? "" : "&" + parameters), "root", "root");
    }

    /** The proxy's port, for clients that are no JDBC driver (psql): user root, password root. */
    int proxyPort() {
        return proxy.port();
    }

    /** The PostgreSQL server's port, whose database {@value #REFERENCE} user postgres (no password) reaches directly. */
    int backendPort() {
        return postgres.getPort();
    }

    /** Empties a logical table: its actual tables on every shard, and the reference's table. */
    void truncate(String table) throws SQLException {
        for (Node node : ShardingLayout.table(table).nodes()) {
            try (Connection connection = shard(node.dataSource()); Statement statement = connection.createStatement()) {
                statement.execute("TRUNCATE " + node.table());
            }
        }
        try (Connection connection = reference(""); Statement statement = connection.createStatement()) {
            statement.execute("TRUNCATE " + table);
        }
    }

    /** The proxy's data sources of the logical database. */
    java.util.List<io.ashlar.backend.datasource.BackendDataSource> dataSources() {
        return proxy.databases().get(LOGICAL_DATABASE).dataSources();
    }

    /** A connection to the reference database, with the same client settings as {@link #proxy}. */
    Connection reference(String parameters) throws SQLException {
        return DriverManager.getConnection(url(postgres, REFERENCE) + "?" + CLIENT_PARAMETERS
                + (parameters.isEmpty() ? "" : "&" + parameters), "postgres", "");
    }

    /** A connection straight to a shard, which never waits long for a lock (a lock the proxy leaked fails fast). */
    Connection shard(String dataSource) throws SQLException {
        return shard(postgres, dataSource);
    }

    private static Connection shard(EmbeddedPostgres postgres, String dataSource) throws SQLException {
        Connection result = DriverManager.getConnection(url(postgres, dataSource) + "?" + CLIENT_PARAMETERS, "postgres", "");
        try (Statement statement = result.createStatement()) {
            statement.execute("SET lock_timeout = '5s'");
        }
        return result;
    }

    /**
     * Loads one table's rows through the proxy (multi-row INSERTs spanning shards), and the same statements into the
     * reference. Should the proxy fail, the table's rows are loaded straight into the shards instead, so that the
     * tests that read them still run.
     *
     * @return the proxy's failure, if any
     */
    Optional<SQLException> loadThroughProxy(TestData data, String table) throws SQLException {
        LogicalTable logical = ShardingLayout.table(table);
        try (Connection proxied = proxy(""); Connection reference = reference("");
                Statement viaProxy = proxied.createStatement(); Statement direct = reference.createStatement()) {
            for (String each : TestData.inserts(logical, table, data.rows(table), 40)) {
                direct.execute(each);
                try {
                    viaProxy.execute(each);
                } catch (SQLException e) {
                    direct.execute("TRUNCATE " + table);
                    loadDirectly(data, logical);
                    return Optional.of(new SQLException("loading " + table + " through the proxy failed on: " + abbreviate(each)
                            + ": " + e.getMessage(), e.getSQLState(), e));
                }
            }
        }
        return Optional.empty();
    }

    /**
     * Empties every table (dropping those the tests create), then loads the rows straight into the actual tables where
     * the rules place them, and into the reference, without the proxy.
     */
    void resetDirectly(TestData data) throws SQLException {
        for (String dataSource : ShardingLayout.DATA_SOURCES) {
            try (Connection connection = shard(dataSource); Statement statement = connection.createStatement()) {
                statement.execute("DROP TABLE IF EXISTS t_ddl, t_ddl_0, t_ddl_1, t_fresh");
            }
        }
        try (Connection connection = reference(""); Statement statement = connection.createStatement()) {
            statement.execute("DROP TABLE IF EXISTS t_ddl, t_fresh");
        }
        for (LogicalTable table : ShardingLayout.TABLES) {
            if (table.createdAtStart()) {
                loadDirectly(data, table);
            }
        }
    }

    /** Empties a table's actual tables and the reference's table, and loads its rows straight into both. */
    private void loadDirectly(TestData data, LogicalTable table) throws SQLException {
        List<List<Object>> rows = data.rows(table.name());
        for (String dataSource : ShardingLayout.DATA_SOURCES) {
            try (Connection connection = shard(dataSource); Statement statement = connection.createStatement()) {
                Map<Node, List<List<Object>>> byNode = new LinkedHashMap<>();
                for (Node node : table.nodes()) {
                    if (node.dataSource().equals(dataSource)) {
                        statement.execute("TRUNCATE " + node.table());
                        byNode.put(node, new ArrayList<>());
                    }
                }
                for (List<Object> row : rows) {
                    for (Node node : table.nodesOf(TestData.byColumn(table, row))) {
                        List<List<Object>> onNode = byNode.get(node);
                        if (onNode != null) {
                            onNode.add(row);
                        }
                    }
                }
                for (Map.Entry<Node, List<List<Object>>> each : byNode.entrySet()) {
                    for (String insert : TestData.inserts(table, each.getKey().table(), each.getValue(), 200)) {
                        statement.execute(insert);
                    }
                }
            }
        }
        try (Connection connection = reference(""); Statement statement = connection.createStatement()) {
            statement.execute("TRUNCATE " + table.name());
            for (String insert : TestData.inserts(table, table.name(), rows, 200)) {
                statement.execute(insert);
            }
        }
    }

    /**
     * Asserts that the shards, read directly, hold exactly the reference's rows of a logical table, each on the node
     * the rules place it on (every node for a broadcast table). A table missing in the reference must be missing on
     * every node.
     */
    void assertContents(String table) throws SQLException {
        LogicalTable logical = ShardingLayout.table(table);
        TableRows expected = read(reference(""), table);
        List<String> misplaced = new ArrayList<>();
        List<String> union = new ArrayList<>();
        Map<Node, TableRows> byNode = new LinkedHashMap<>();
        for (Node node : logical.nodes()) {
            TableRows rows = read(shard(node.dataSource()), node.table());
            byNode.put(node, rows);
            if (expected.missing() || rows.missing()) {
                continue;
            }
            assertEquals(expected.header(), rows.header(), "columns of " + node + " and of the reference's " + table);
            for (Map<String, String> row : rows.values()) {
                List<Node> allowed = logical.nodesOf(row);
                if (!allowed.contains(node)) {
                    misplaced.add(row + " is on " + node + ", the rules put it on " + allowed);
                }
            }
            if (logical.broadcast()) {
                assertEquals(String.join("\n", expected.sorted()), String.join("\n", rows.sorted()),
                        "the copy of broadcast table " + table + " on " + node.dataSource());
            } else {
                union.addAll(rows.rendered());
            }
        }
        if (expected.missing()) {
            for (Map.Entry<Node, TableRows> each : byNode.entrySet()) {
                assertTrue(each.getValue().missing(), table + " does not exist in the reference, but " + each.getKey() + " does");
            }
            return;
        }
        for (Map.Entry<Node, TableRows> each : byNode.entrySet()) {
            assertTrue(!each.getValue().missing(), table + " exists in the reference, but " + each.getKey() + " does not");
        }
        assertEquals(List.of(), misplaced, "rows of " + table + " on the wrong shard");
        if (!logical.broadcast()) {
            Collections.sort(union);
            assertEquals(String.join("\n", expected.sorted()), String.join("\n", union),
                    "rows of " + table + " in the reference (expected) and on all shards together (actual)");
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

    private static void createTables(EmbeddedPostgres postgres) throws SQLException {
        for (String dataSource : ShardingLayout.DATA_SOURCES) {
            try (Connection connection = shard(postgres, dataSource); Statement statement = connection.createStatement()) {
                for (LogicalTable table : ShardingLayout.TABLES) {
                    if (!table.createdAtStart()) {
                        continue;
                    }
                    for (Node node : table.nodes()) {
                        if (node.dataSource().equals(dataSource)) {
                            statement.execute("CREATE TABLE " + node.table() + " (" + table.columnDefinitions() + ")");
                        }
                    }
                }
            }
        }
        try (Connection connection = DriverManager.getConnection(url(postgres, REFERENCE), "postgres", "");
                Statement statement = connection.createStatement()) {
            for (LogicalTable table : ShardingLayout.TABLES) {
                if (table.createdAtStart()) {
                    statement.execute("CREATE TABLE " + table.name() + " (" + table.columnDefinitions() + ")");
                }
            }
        }
    }

    /** A table's rows read with getString; {@code missing} when the table does not exist. */
    private record TableRows(boolean missing, List<String> header, List<Map<String, String>> values) {

        List<String> rendered() {
            List<String> result = new ArrayList<>();
            for (Map<String, String> each : values) {
                StringBuilder row = new StringBuilder();
                for (String value : each.values()) {
                    row.append(row.isEmpty() ? "" : " | ").append(value == null ? StatementOutcome.NULL : value);
                }
                result.add(row.toString());
            }
            return result;
        }

        List<String> sorted() {
            List<String> result = rendered();
            Collections.sort(result);
            return result;
        }
    }

    private static TableRows read(Connection connection, String table) throws SQLException {
        try (connection; Statement statement = connection.createStatement(); ResultSet rs = statement.executeQuery("SELECT * FROM " + table)) {
            ResultSetMetaData metaData = rs.getMetaData();
            List<String> header = new ArrayList<>();
            for (int i = 1; i <= metaData.getColumnCount(); i++) {
                header.add(metaData.getColumnLabel(i) + " " + metaData.getColumnTypeName(i));
            }
            List<Map<String, String>> values = new ArrayList<>();
            while (rs.next()) {
                Map<String, String> row = new LinkedHashMap<>();
                for (int i = 1; i <= metaData.getColumnCount(); i++) {
                    row.put(metaData.getColumnLabel(i), rs.getString(i));
                }
                values.add(row);
            }
            return new TableRows(false, header, values);
        } catch (SQLException e) {
            if ("42P01".equals(e.getSQLState())) {
                return new TableRows(true, List.of(), List.of());
            }
            throw e;
        }
    }

    private static String url(EmbeddedPostgres postgres, String database) {
        return "jdbc:postgresql://127.0.0.1:" + postgres.getPort() + "/" + database;
    }

    private static String resource(String name) throws IOException {
        try (InputStream in = ShardedDatabases.class.getClassLoader().getResourceAsStream(name)) {
            if (in == null) {
                throw new IOException("no test resource " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    static String abbreviate(String sql) {
        String flat = sql.replaceAll("\\s+", " ").strip();
        return flat.length() <= 120 ? flat : flat.substring(0, 117) + "...";
    }
}
