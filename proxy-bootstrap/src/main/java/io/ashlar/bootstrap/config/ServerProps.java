package io.ashlar.bootstrap.config;

import java.util.Objects;
import java.util.Optional;

/**
 * The {@code props:} of server.yaml that Ashlar acts on, typed and checked once at start.
 *
 * <p>Every other property ShardingSphere-Proxy 5.1-5.5 documents is accepted and ignored with a log line (see
 * docs/configuration.md); an unknown key is an error, so a misspelt property never goes unnoticed.
 *
 * @param port {@code proxy-default-port}: the listening port (Ashlar's default 5433, not ShardingSphere's 3307)
 * @param bindAddress {@code proxy-bind-address} (Ashlar's own key): the addresses to listen on, comma-separated,
 *                    {@code *} for every interface, as PostgreSQL's {@code listen_addresses}; default
 *                    {@code 127.0.0.1}
 * @param frontendMaxConnections {@code proxy-frontend-max-connections}: most client connections at once; 0 (or
 *                               less, ShardingSphere's "no limit") for the proxy's own limit: half its open-file
 *                               limit, at most 10,000 (see {@code FrontendPolicy.defaultMaxConnections})
 * @param sqlShow {@code sql-show}: log each logical SQL and the SQL sent to each data source
 * @param sqlSimple {@code sql-simple}: with {@code sql-show}, log without parameters
 * @param backendQueryFetchSize {@code proxy-backend-query-fetch-size}: JDBC fetch size for backend queries,
 *                              -1 (the default) for the driver's default
 * @param maxConnectionsSizePerQuery {@code max-connections-size-per-query}: most connections one statement may
 *                                   use per data source (1 by default)
 * @param frontendDatabaseProtocolType {@code proxy-frontend-database-protocol-type}: {@code PostgreSQL} or
 *                                     {@code openGauss} if set; Ashlar serves both on one port anyway
 * @param frontendFlushThreshold {@code proxy-frontend-flush-threshold}: rows written before a flush while
 *                               streaming a result (128)
 * @param frontendExecutorSize {@code proxy-frontend-executor-size}: Netty event loop threads, 0 to let Netty
 *                             decide
 * @param nettyBacklog {@code proxy-netty-backlog}: the listen socket backlog (1024)
 * @param statementMemoryLimit {@code proxy-statement-memory-limit} (Ashlar's own key): bytes one statement may hold in
 *                             the proxy for rows it cannot stream (an in-memory sort or GROUP BY across shards, a
 *                             result kept whole); past it the statement fails with 53200. 256 MiB by default
 * @param frontendTls TLS for clients: {@code proxy-frontend-ssl-*}
 * @param authenticationTimeoutSeconds {@code proxy-frontend-authentication-timeout-seconds} (Ashlar's own):
 *                                     how long a client may take to log in, PostgreSQL's
 *                                     {@code authentication_timeout} (60, 1 to 600)
 * @param authDelayMilliseconds {@code proxy-frontend-auth-delay-milliseconds} (Ashlar's own): how long the
 *                              answer to a wrong password waits, PostgreSQL's {@code auth_delay.milliseconds} (0)
 * @param observability {@code metrics-port} and {@code slow-query-threshold-milliseconds} (Ashlar's own)
 * @see <a href="https://shardingsphere.apache.org/document/5.4.1/en/user-manual/shardingsphere-proxy/yaml-config/props/">ShardingSphere-Proxy properties</a>
 */
public record ServerProps(int port, String bindAddress, int frontendMaxConnections, boolean sqlShow, boolean sqlSimple,
                          int backendQueryFetchSize, int maxConnectionsSizePerQuery,
                          Optional<String> frontendDatabaseProtocolType, int frontendFlushThreshold,
                          int frontendExecutorSize, int nettyBacklog, long statementMemoryLimit, FrontendTlsConfig frontendTls,
                          int authenticationTimeoutSeconds, int authDelayMilliseconds, ObservabilityConfig observability) {

    public static final int DEFAULT_PORT = 5433;

    /** Only this machine's clients until the operator says otherwise, as PostgreSQL's {@code listen_addresses}. */
    public static final String DEFAULT_BIND_ADDRESS = "127.0.0.1";

    /** PostgreSQL's {@code authentication_timeout} default. */
    public static final int DEFAULT_AUTHENTICATION_TIMEOUT_SECONDS = 60;

    /** PostgreSQL's {@code authentication_timeout} maximum. */
    public static final int MAX_AUTHENTICATION_TIMEOUT_SECONDS = 600;

    /** The properties of a server.yaml without {@code props:}. */
    public static final ServerProps DEFAULTS = new ServerProps(DEFAULT_PORT, DEFAULT_BIND_ADDRESS, 0, false, false, -1, 1,
            Optional.empty(), 128, 0, 1024, 256L << 20, FrontendTlsConfig.DISABLED, DEFAULT_AUTHENTICATION_TIMEOUT_SECONDS, 0);

    public ServerProps {
        if (port < 1 || port > 65_535) {
            throw new IllegalArgumentException("port " + port + " is not in 1..65535");
        }
        Objects.requireNonNull(bindAddress, "bindAddress");
        Objects.requireNonNull(frontendDatabaseProtocolType, "frontendDatabaseProtocolType");
        frontendMaxConnections = Math.max(0, frontendMaxConnections);
        if (statementMemoryLimit <= 0) {
            throw new IllegalArgumentException("statement memory limit " + statementMemoryLimit + " is not positive");
        }
        Objects.requireNonNull(frontendTls, "frontendTls");
        if (authenticationTimeoutSeconds < 1 || authenticationTimeoutSeconds > MAX_AUTHENTICATION_TIMEOUT_SECONDS) {
            throw new IllegalArgumentException("authenticationTimeoutSeconds " + authenticationTimeoutSeconds + " is not in 1..600");
        }
        if (authDelayMilliseconds < 0) {
            throw new IllegalArgumentException("authDelayMilliseconds must not be negative");
        }
        Objects.requireNonNull(observability, "observability");
    }

    /** Properties without metrics or a slow-query log. */
    public ServerProps(int port, String bindAddress, int frontendMaxConnections, boolean sqlShow, boolean sqlSimple,
                       int backendQueryFetchSize, int maxConnectionsSizePerQuery,
                       Optional<String> frontendDatabaseProtocolType, int frontendFlushThreshold,
                       int frontendExecutorSize, int nettyBacklog, long statementMemoryLimit, FrontendTlsConfig frontendTls,
                       int authenticationTimeoutSeconds, int authDelayMilliseconds) {
        this(port, bindAddress, frontendMaxConnections, sqlShow, sqlSimple, backendQueryFetchSize, maxConnectionsSizePerQuery,
                frontendDatabaseProtocolType, frontendFlushThreshold, frontendExecutorSize, nettyBacklog, statementMemoryLimit,
                frontendTls, authenticationTimeoutSeconds, authDelayMilliseconds, ObservabilityConfig.OFF);
    }

    /** The same properties listening on another port (the command line's {@code --port}). */
    public ServerProps withPort(int newPort) {
        return new ServerProps(newPort, bindAddress, frontendMaxConnections, sqlShow, sqlSimple, backendQueryFetchSize,
                maxConnectionsSizePerQuery, frontendDatabaseProtocolType, frontendFlushThreshold, frontendExecutorSize,
                nettyBacklog, statementMemoryLimit, frontendTls, authenticationTimeoutSeconds, authDelayMilliseconds,
                observability);
    }
}
