package io.ashlar.backend.datasource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.ashlar.backend.config.DataSourceConfig;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import org.postgresql.core.BaseConnection;

/**
 * One backend database: a HikariCP pool of pgjdbc connections, and for each physical connection
 * the proxy's own per-connection state ({@link BackendConnection}).
 *
 * <p>The pgjdbc connections are set up for a proxy: results in text format (values pass
 * through byte for byte), no client-side statement splitting or escapes (the proxy sends what
 * the client sent), and server-side prepared statements reused per connection.
 */
public final class BackendDataSource implements AutoCloseable {

    private final String name;
    private final DataSourceConfig config;
    private final HikariDataSource pool;
    private final Map<BaseConnection, BackendConnection> connections = new ConcurrentHashMap<>();
    private volatile Map<String, String> backendParameters = Map.of();
    private volatile String serverTimeZone = "";
    private final java.util.concurrent.atomic.LongAdder batches = new java.util.concurrent.atomic.LongAdder();
    private final java.util.concurrent.atomic.LongAdder batchRows = new java.util.concurrent.atomic.LongAdder();

    private final io.ashlar.backend.pg.LinkPool links;

    private BackendDataSource(String name, DataSourceConfig config, HikariDataSource pool) {
        this.name = name;
        this.config = config;
        this.pool = pool;
        this.links = new io.ashlar.backend.pg.LinkPool(config);
    }

    /** The native connections of this data source, per event loop (connected when first borrowed). */
    public io.ashlar.backend.pg.LinkPool links() {
        return links;
    }

    /**
     * Opens the pool. The pool starts lazily (a backend that is down does not stop the proxy
     * from starting; statements routed to it fail with SQLSTATE 08006 until it is back).
     */
    public static BackendDataSource open(DataSourceConfig config) {
        HikariConfig hikari = new HikariConfig();
        hikari.setPoolName("ashlar-" + config.name());
        hikari.setJdbcUrl(config.url());
        hikari.setUsername(config.username());
        hikari.setPassword(config.password());
        hikari.setConnectionTimeout(config.connectionTimeoutMilliseconds());
        hikari.setIdleTimeout(config.idleTimeoutMilliseconds());
        hikari.setMaxLifetime(config.maxLifetimeMilliseconds());
        hikari.setMaximumPoolSize(config.maxPoolSize());
        hikari.setMinimumIdle(Math.min(config.minPoolSize(), config.maxPoolSize()));
        hikari.setInitializationFailTimeout(-1);
        hikari.setAutoCommit(true);
        Properties props = new Properties();
        props.setProperty("ApplicationName", "");
        props.setProperty("binaryTransfer", "false");
        props.setProperty("allowEncodingChanges", "true");
        props.setProperty("tcpKeepAlive", "true");
        props.setProperty("preparedStatementCacheQueries", "0");
        props.setProperty("assumeMinServerVersion", "9.4");
        props.setProperty("socketFactory", BlockingSocketFactory.class.getName());
        config.driverProperties().forEach(props::setProperty);
        hikari.setDataSourceProperties(props);
        return new BackendDataSource(config.name(), config, new HikariDataSource(hikari));
    }

    public String name() {
        return name;
    }

    /** Counts one backend batch of {@code rows} rows (clients' batches that did not run row by row). */
    void countBatch(int rows) {
        batches.increment();
        batchRows.add(rows);
    }

    /** How many backend batches ran on this data source, and how many rows they carried: {batches, rows}. */
    public long[] batchCounts() {
        return new long[] {batches.sum(), batchRows.sum()};
    }

    public DataSourceConfig config() {
        return config;
    }

    /**
     * Borrows a connection from the pool. The caller returns it with
     * {@link BackendConnection#release()}.
     */
    public BackendConnection borrow() throws SQLException {
        Connection connection = pool.getConnection();
        BaseConnection base;
        try {
            base = connection.unwrap(BaseConnection.class);
        } catch (SQLException e) {
            connection.close();
            throw e;
        }
        BackendConnection result = connections.get(base);
        if (result == null) {
            result = new BackendConnection(this, base);
            connections.put(base, result);
            if (backendParameters.isEmpty()) {
                backendParameters = Map.copyOf(base.getQueryExecutor().getParameterStatuses());
            }
        }
        result.lease(connection);
        return result;
    }

    /**
     * The ParameterStatus values the backend reported at login (server_version, server_encoding,
     * ...), once a connection was made; empty before. {@link #warmUp()} makes one.
     */
    public Map<String, String> backendParameters() {
        return backendParameters;
    }

    /**
     * Makes one connection now, so that the backend's parameters are known, and learns the
     * server's own default TimeZone; false when the backend is down.
     */
    public boolean warmUp() {
        BackendConnection connection;
        try {
            connection = borrow();
        } catch (SQLException e) {
            return false;
        }
        try {
            String zone = firstValue(connection, COMMAND_LINE_TIME_ZONE_SQL);
            if (zone == null) {
                zone = firstValue(connection, FILE_TIME_ZONE_SQL);
            }
            if (zone == null) {
                zone = firstValue(connection, "SELECT current_setting('log_timezone')");
            }
            if (zone != null && !zone.isEmpty()) {
                serverTimeZone = zone;
            }
        } finally {
            connection.release();
        }
        return true;
    }

    /*
     * The server's configured TimeZone: pgjdbc sends the JVM's zone when it connects, so a pooled
     * connection does not show it. Where the data source's user may read them (a superuser): the
     * postmaster's command line (-c timezone=...), then the configuration files; otherwise
     * log_timezone, which initdb sets to the same zone as timezone.
     */
    private static final String COMMAND_LINE_TIME_ZONE_SQL = "SELECT substring(pg_catalog.pg_read_file('postmaster.opts')"
            + " FROM '(?i)timezone=\"?([^\" ]+)')";
    private static final String FILE_TIME_ZONE_SQL = "SELECT setting FROM pg_catalog.pg_file_settings"
            + " WHERE name = 'timezone' AND applied ORDER BY seqno DESC LIMIT 1";

    private static String firstValue(BackendConnection connection, String sql) {
        try {
            java.util.List<String[]> rows = io.ashlar.backend.execute.TextRows.query(connection, sql);
            return rows.isEmpty() ? null : rows.get(0)[0];
        } catch (SQLException e) {
            return null;
        }
    }

    /** The server's own default TimeZone, once {@link #warmUp()} read it; empty before. */
    public String serverTimeZone() {
        return serverTimeZone;
    }

    void evict(Connection connection) {
        pool.evictConnection(connection);
    }

    void forget(BaseConnection base) {
        connections.remove(base);
    }

    @Override
    public void close() {
        links.close();
        pool.close();
        connections.clear();
    }
}
