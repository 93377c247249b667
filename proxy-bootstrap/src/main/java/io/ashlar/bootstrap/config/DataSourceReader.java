package io.ashlar.bootstrap.config;

import io.ashlar.backend.config.DataSourceConfig;
import io.ashlar.backend.pg.ConnectSpec;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads one {@code dataSources:} entry into a {@link DataSourceConfig}. Both spellings ShardingSphere accepts are
 * read: its own ({@code url}, {@code maxPoolSize}, {@code connectionTimeoutMilliseconds}, ...) and the HikariCP
 * property names it passes through ({@code jdbcUrl}, {@code maximumPoolSize}, {@code connectionTimeout}, ...);
 * giving both for one setting is an error. Other HikariCP settings are accepted and ignored with a log line.
 *
 * @see <a href="https://shardingsphere.apache.org/document/5.4.1/en/user-manual/shardingsphere-proxy/yaml-config/data-source/">ShardingSphere-Proxy data sources</a>
 */
final class DataSourceReader {

    private static final Logger LOG = LoggerFactory.getLogger(DataSourceReader.class);

    /** ShardingSphere name and HikariCP name of each setting Ashlar uses. */
    private static final String[][] SYNONYMS = {
        {"url", "jdbcUrl"},
        {"username", "username"},
        {"password", "password"},
        {"connectionTimeoutMilliseconds", "connectionTimeout"},
        {"idleTimeoutMilliseconds", "idleTimeout"},
        {"maxLifetimeMilliseconds", "maxLifetime"},
        {"maxPoolSize", "maximumPoolSize"},
        {"minPoolSize", "minimumIdle"},
        {"healthCheckIntervalMilliseconds", "healthCheckIntervalMilliseconds"},
        {"healthCheckTimeoutMilliseconds", "healthCheckTimeoutMilliseconds"},
        {"tcpKeepaliveSeconds", "tcpKeepaliveSeconds"},
        {"props", "dataSourceProperties"},
    };

    /** HikariCP and ShardingSphere keys that Ashlar accepts and does not use. */
    private static final List<String> IGNORED = List.of("dataSourceClassName", "driverClassName", "readOnly", "customPoolProps",
            "poolName", "connectionTestQuery", "keepaliveTime", "leakDetectionThreshold", "validationTimeout", "autoCommit",
            "initializationFailTimeout", "isolateInternalQueries", "allowPoolSuspension", "transactionIsolation", "catalog",
            "schema", "connectionInitSql", "registerMbeans", "dataSourceJNDI", "healthCheckRegistry", "metricRegistry");

    private static final List<String> KNOWN;

    static {
        List<String> known = new ArrayList<>();
        for (String[] each : SYNONYMS) {
            known.add(each[0]);
            if (!each[1].equals(each[0])) {
                known.add(each[1]);
            }
        }
        known.addAll(IGNORED);
        KNOWN = List.copyOf(known);
    }

    private DataSourceReader() {
    }

    static DataSourceConfig read(String name, MappingReader source) {
        source.expectKeys(KNOWN);
        Map<String, String> chosen = new LinkedHashMap<>();
        for (String[] each : SYNONYMS) {
            if (source.contains(each[0]) && source.contains(each[1]) && !each[0].equals(each[1])) {
                throw source.error("both '" + each[0] + "' and '" + each[1] + "' are given; keep one");
            }
            chosen.put(each[0], source.contains(each[1]) ? each[1] : each[0]);
        }
        List<String> ignored = new ArrayList<>();
        for (ConfigNode.Entry each : source.entries()) {
            if (IGNORED.contains(each.key())) {
                ignored.add(each.key());
            }
        }
        source.text("dataSourceClassName").filter(each -> !"com.zaxxer.hikari.HikariDataSource".equals(each.strip()))
                .ifPresent(each -> LOG.warn("{}: {}: dataSourceClassName {} is ignored: Ashlar pools its own native connections",
                        source.fileName(), source.path(), each));
        if (!ignored.isEmpty()) {
            LOG.info("{}: {}: ignoring pool settings Ashlar does not use: {}", source.fileName(), source.path(), String.join(", ", ignored));
        }
        String url = source.requiredText(chosen.get("url")).strip();
        String lowerUrl = url.toLowerCase(Locale.ROOT);
        if (!lowerUrl.startsWith("jdbc:postgresql:") && !lowerUrl.startsWith("jdbc:opengauss:")) {
            throw source.error(source.value(chosen.get("url")).orElseThrow(),
                    "expected a jdbc:postgresql: or jdbc:opengauss: URL, got '" + url + "'");
        }
        String username = source.text(chosen.get("username")).orElse("");
        String password = source.text(chosen.get("password")).orElse("");
        long connectionTimeout = source.longValue(chosen.get("connectionTimeoutMilliseconds"),
                DataSourceConfig.DEFAULT_CONNECTION_TIMEOUT_MILLISECONDS, 1, "a positive integer");
        long idleTimeout = source.longValue(chosen.get("idleTimeoutMilliseconds"),
                DataSourceConfig.DEFAULT_IDLE_TIMEOUT_MILLISECONDS, 0, "a non-negative integer");
        long maxLifetime = source.longValue(chosen.get("maxLifetimeMilliseconds"),
                DataSourceConfig.DEFAULT_MAX_LIFETIME_MILLISECONDS, 0, "a non-negative integer");
        int maxPoolSize = source.integer(chosen.get("maxPoolSize"), DataSourceConfig.DEFAULT_MAX_POOL_SIZE, 1, "a positive integer");
        int minPoolSize = source.integer(chosen.get("minPoolSize"), Math.min(DataSourceConfig.DEFAULT_MIN_POOL_SIZE, maxPoolSize), 0,
                "a non-negative integer");
        if (minPoolSize > maxPoolSize) {
            throw source.error(source.value(chosen.get("minPoolSize")).orElseThrow(), "expected at most "
                    + chosen.get("maxPoolSize") + " (" + maxPoolSize + "), got " + minPoolSize);
        }
        long healthCheckInterval = source.longValue("healthCheckIntervalMilliseconds",
                DataSourceConfig.DEFAULT_HEALTH_CHECK_INTERVAL_MILLISECONDS, 0, "a non-negative integer");
        long healthCheckTimeout = source.longValue("healthCheckTimeoutMilliseconds",
                DataSourceConfig.DEFAULT_HEALTH_CHECK_TIMEOUT_MILLISECONDS, 1, "a positive integer");
        int tcpKeepalive = source.integer("tcpKeepaliveSeconds", DataSourceConfig.DEFAULT_TCP_KEEPALIVE_SECONDS, 0,
                "a non-negative integer");
        Map<String, String> driverProperties = source.props(chosen.get("props"));
        DataSourceConfig result = new DataSourceConfig(name, url, username, password, connectionTimeout, idleTimeout, maxLifetime,
                maxPoolSize, minPoolSize, driverProperties, healthCheckInterval, healthCheckTimeout, tcpKeepalive);
        try {
            // A setting that cannot work (sslmode, port, protocolVersion) is an error of this file, not of
            // every connection later. The TLS files are read where the proxy runs, when it opens the data source.
            ConnectSpec.check(result);
        } catch (IllegalArgumentException e) {
            throw source.error(source.value(chosen.get("url")).orElseThrow(), e.getMessage());
        }
        return result;
    }
}
