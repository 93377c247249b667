package io.ashlar.backend.config;

import java.util.Map;
import java.util.Objects;

/**
 * One backend data source as a {@code dataSources:} entry of a config-*.yaml describes it
 * (ShardingSphere-Proxy shape: {@code url}, {@code username}, {@code password} and the
 * HikariCP pool settings).
 *
 * @param name data source name as the rules refer to it ({@code ds_0})
 * @param url JDBC URL ({@code jdbc:postgresql://...} or {@code jdbc:opengauss://...})
 * @param username backend user
 * @param password backend password, empty for none
 * @param connectionTimeoutMilliseconds how long a session waits for a pooled connection
 * @param idleTimeoutMilliseconds how long an idle pooled connection lives
 * @param maxLifetimeMilliseconds how long any pooled connection lives
 * @param maxPoolSize most connections in the pool
 * @param minPoolSize idle connections the pool keeps
 * @param driverProperties extra JDBC driver properties ({@code props:} of the entry), never null
 * @param healthCheckIntervalMilliseconds how often the proxy checks that the data source answers (and, while it
 *        is down, the longest wait between attempts to reconnect); 0 checks only by the connections statements use
 * @param healthCheckTimeoutMilliseconds how long a check (a login, or an empty query on the check's connection)
 *        may take before the data source is marked down
 * @param tcpKeepaliveSeconds TCP keepalive of the backend connections: probes start after this long idle, three
 *        go out a third of it apart, and data the backend's host has not acknowledged for twice this long ends the
 *        connection (TCP_USER_TIMEOUT); 0 leaves the operating system's defaults (about two hours)
 */
public record DataSourceConfig(String name, String url, String username, String password,
                               long connectionTimeoutMilliseconds, long idleTimeoutMilliseconds,
                               long maxLifetimeMilliseconds, int maxPoolSize, int minPoolSize,
                               Map<String, String> driverProperties, long healthCheckIntervalMilliseconds,
                               long healthCheckTimeoutMilliseconds, int tcpKeepaliveSeconds) {

    public static final long DEFAULT_CONNECTION_TIMEOUT_MILLISECONDS = 30_000;
    public static final long DEFAULT_IDLE_TIMEOUT_MILLISECONDS = 60_000;
    public static final long DEFAULT_MAX_LIFETIME_MILLISECONDS = 1_800_000;
    public static final int DEFAULT_MAX_POOL_SIZE = 50;
    public static final int DEFAULT_MIN_POOL_SIZE = 1;
    public static final long DEFAULT_HEALTH_CHECK_INTERVAL_MILLISECONDS = 5_000;
    public static final long DEFAULT_HEALTH_CHECK_TIMEOUT_MILLISECONDS = 5_000;
    public static final int DEFAULT_TCP_KEEPALIVE_SECONDS = 10;

    public DataSourceConfig {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(url, "url");
        Objects.requireNonNull(username, "username");
        password = password == null ? "" : password;
        driverProperties = driverProperties == null ? Map.of() : Map.copyOf(driverProperties);
    }

    /** A data source with the default health check and TCP keepalive. */
    public DataSourceConfig(String name, String url, String username, String password, long connectionTimeoutMilliseconds,
                            long idleTimeoutMilliseconds, long maxLifetimeMilliseconds, int maxPoolSize, int minPoolSize,
                            Map<String, String> driverProperties) {
        this(name, url, username, password, connectionTimeoutMilliseconds, idleTimeoutMilliseconds, maxLifetimeMilliseconds,
                maxPoolSize, minPoolSize, driverProperties, DEFAULT_HEALTH_CHECK_INTERVAL_MILLISECONDS,
                DEFAULT_HEALTH_CHECK_TIMEOUT_MILLISECONDS, DEFAULT_TCP_KEEPALIVE_SECONDS);
    }

    /** This data source with other health check and keepalive settings. */
    public DataSourceConfig withHealthCheck(long intervalMilliseconds, long timeoutMilliseconds, int keepaliveSeconds) {
        return new DataSourceConfig(name, url, username, password, connectionTimeoutMilliseconds, idleTimeoutMilliseconds,
                maxLifetimeMilliseconds, maxPoolSize, minPoolSize, driverProperties, intervalMilliseconds, timeoutMilliseconds,
                keepaliveSeconds);
    }

    /** A data source with the default pool settings. */
    public static DataSourceConfig of(String name, String url, String username, String password) {
        return new DataSourceConfig(name, url, username, password, DEFAULT_CONNECTION_TIMEOUT_MILLISECONDS,
                DEFAULT_IDLE_TIMEOUT_MILLISECONDS, DEFAULT_MAX_LIFETIME_MILLISECONDS, DEFAULT_MAX_POOL_SIZE,
                DEFAULT_MIN_POOL_SIZE, Map.of());
    }
}
