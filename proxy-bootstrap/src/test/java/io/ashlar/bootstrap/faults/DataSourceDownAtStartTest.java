package io.ashlar.bootstrap.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ashlar.backend.config.LogicalDatabaseConfig;
import io.ashlar.bootstrap.ProxyRuntime;
import io.ashlar.bootstrap.config.ProxyConfiguration;
import io.ashlar.bootstrap.config.ProxyConfigurationLoader;
import io.ashlar.bootstrap.config.ServerConfig;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A data source that is down when the proxy starts: what the proxy reads of it at start (the tables that exist only
 * there, for routing; its tables' metadata, for the logical catalog) is read when it comes back, without a restart or
 * a configuration change. Before, a table that lived only on it was missing from the catalog tools read (psql's
 * {@code \dt}, pgjdbc's DatabaseMetaData) until the proxy restarted. ds_0, the default data source, also holds the
 * catalog database: down at start, the catalog database is made when it is back.
 */
final class DataSourceDownAtStartTest {

    @ParameterizedTest(name = "ds_{0} down at start")
    @ValueSource(ints = {0, 1})
    void itsTablesAreReadWhenItComesBack(int down) throws Exception {
        String table = "only_on_" + down;
        FaultyServers.Server[] servers = FaultyServers.startServers();
        ProxyRuntime proxy = null;
        try {
            try (Connection c = servers[down].connect("ds_" + down); Statement s = c.createStatement()) {
                s.execute("CREATE TABLE " + table + " (id int PRIMARY KEY, note text NOT NULL)");
                s.execute("INSERT INTO " + table + " VALUES (7, 'from ds_" + down + "')");
            }
            servers[down].stop();
            List<LogicalDatabaseConfig> databases = new ArrayList<>();
            for (Map.Entry<String, String> each : FaultyServers.configFiles(servers, 4, 2).entrySet()) {
                databases.add(ProxyConfigurationLoader.loadDatabase(each.getKey(), each.getValue()));
            }
            proxy = ProxyRuntime.start(new ProxyConfiguration(ServerConfig.DEFAULTS, databases), 0);
            try (Connection c = connect(proxy)) {
                assertEquals(List.of(), tables(c), "while ds_" + down + " is down, " + table + " is unknown");
            } catch (SQLException e) {
                // The catalog's own data source is down: catalog queries cannot be answered meanwhile.
                assertEquals(0, down, e::getMessage);
                assertEquals("08006", e.getSQLState(), e::getMessage);
            }

            servers[down].start();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            List<String> seen;
            while (true) {
                try (Connection c = connect(proxy)) {
                    seen = tables(c);
                } catch (SQLException notYet) {
                    seen = List.of();
                }
                if (!seen.isEmpty() || System.nanoTime() - deadline > 0) {
                    break;
                }
                Thread.sleep(100);
            }
            assertEquals(List.of(table), seen, "the catalog lists the table of ds_" + down + " once it is back");
            try (Connection c = connect(proxy); Statement s = c.createStatement()) {
                try (ResultSet rs = s.executeQuery("SELECT note FROM " + table + " WHERE id = 7")) {
                    assertTrue(rs.next());
                    assertEquals("from ds_" + down, rs.getString(1));
                }
                // Its columns, as pgjdbc's DatabaseMetaData (DBeaver, IntelliJ) reads them.
                List<String> columns = new ArrayList<>();
                try (ResultSet rs = c.getMetaData().getColumns(null, "public", table, null)) {
                    while (rs.next()) {
                        columns.add(rs.getString("COLUMN_NAME") + " " + rs.getString("TYPE_NAME") + " " + rs.getString("IS_NULLABLE"));
                    }
                }
                assertEquals(List.of("id int4 NO", "note text NO"), columns);
                // The sharded table still spans both data sources.
                s.execute("INSERT INTO t (id, v) VALUES (10, 'ten'), (11, 'eleven')");
                try (ResultSet rs = s.executeQuery("SELECT count(*) FROM t")) {
                    rs.next();
                    assertEquals(2, rs.getInt(1));
                }
            }
            try (Connection c = servers[1].connect("ds_1"); Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT id FROM t")) {
                assertTrue(rs.next());
                assertEquals(11, rs.getInt(1), "the odd id is on ds_1");
            }
        } finally {
            if (proxy != null) {
                proxy.close();
            }
            for (FaultyServers.Server each : servers) {
                each.remove();
            }
        }
    }

    /** The tables the logical catalog lists besides the sharded t. */
    private static List<String> tables(Connection c) throws SQLException {
        List<String> result = new ArrayList<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT table_name FROM information_schema.tables"
                + " WHERE table_schema = 'public' AND table_name <> 't' ORDER BY 1")) {
            while (rs.next()) {
                result.add(rs.getString(1));
            }
        }
        return result;
    }

    private static Connection connect(ProxyRuntime proxy) throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + proxy.port() + "/" + FaultyServers.SHARDED + "?"
                + FaultyServers.CLIENT_PARAMETERS, "root", "root");
    }
}
