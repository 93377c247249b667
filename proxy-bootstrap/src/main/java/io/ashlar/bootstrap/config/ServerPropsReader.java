package io.ashlar.bootstrap.config;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads server.yaml {@code props:} into {@link ServerProps}: the keys Ashlar acts on typed and range-checked, every
 * other key ShardingSphere-Proxy 5.1-5.5 documents logged and ignored, anything else refused.
 *
 * @see <a href="https://shardingsphere.apache.org/document/5.4.1/en/user-manual/shardingsphere-proxy/yaml-config/props/">ShardingSphere-Proxy properties</a>
 */
final class ServerPropsReader {

    private static final Logger LOG = LoggerFactory.getLogger(ServerPropsReader.class);

    /**
     * Keys Ashlar reads. {@code proxy-bind-address}, {@code proxy-frontend-ssl-cert-file}, {@code -key-file},
     * {@code -required}, {@code proxy-frontend-authentication-timeout-seconds} and {@code
     * proxy-frontend-auth-delay-milliseconds} are Ashlar's own.
     */
    static final List<String> USED = List.of("proxy-default-port", "proxy-bind-address", "proxy-frontend-max-connections",
            "sql-show", "sql-simple", "proxy-backend-query-fetch-size", "max-connections-size-per-query",
            "proxy-frontend-database-protocol-type", "proxy-frontend-flush-threshold", "proxy-frontend-executor-size",
            "proxy-netty-backlog", "proxy-frontend-ssl-enabled", "proxy-statement-memory-limit", "proxy-frontend-ssl-version", "proxy-frontend-ssl-cipher",
            "proxy-frontend-ssl-cert-file", "proxy-frontend-ssl-key-file", "proxy-frontend-ssl-required",
            "proxy-frontend-authentication-timeout-seconds", "proxy-frontend-auth-delay-milliseconds", "metrics-port",
            "slow-query-threshold-milliseconds", "transaction-log-directory");

    /** Ashlar's own: where the decisions of two-phase commits are kept (read with the transaction rule, {@link TransactionConfig}). */
    static final String TRANSACTION_LOG_DIRECTORY = "transaction-log-directory";

    /** The TLS versions {@code proxy-frontend-ssl-version} may name. */
    private static final List<String> TLS_VERSIONS = List.of("TLSv1.2", "TLSv1.3");

    /** Keys of ShardingSphere-Proxy 5.1-5.5 (and 5.0, still seen in copied configs) that Ashlar has no use for. */
    static final List<String> IGNORED = List.of("system-log-level", "kernel-executor-size", "executor-size",
            "check-table-metadata-enabled", "check-duplicate-table-enabled", "load-table-metadata-batch-size",
            "proxy-opentracing-enabled", "proxy-hint-enabled", "show-process-list-enabled", "lock-wait-timeout-milliseconds",
            "lock-enabled", "sql-comment-parse-enabled", "proxy-frontend-netty-executor-size",
            "proxy-backend-prefer-netty-executor", "proxy-backend-executor-suitable", "sql-federation-enabled",
            "sql-federation-type", "proxy-backend-driver-type", "proxy-mysql-default-version", "proxy-instance-type",
            "cdc-server-port", "agent-plugins-enabled",
            "persist-schemas-to-repository-enabled", "groovy-inline-expression-parsing-cache-max-size",
            "udt-discovery-enabled", "max-union-size-per-datasource", "proxy-meta-data-collector-enabled",
            "proxy-meta-data-collector-cron", "system-schema-metadata-assembly-enabled", "instance-connection-enabled");

    private static final Set<String> KNOWN;

    static {
        Set<String> known = new LinkedHashSet<>(USED);
        known.addAll(IGNORED);
        KNOWN = known;
    }

    private ServerPropsReader() {
    }

    static ServerProps read(Optional<MappingReader> section) {
        if (section.isEmpty()) {
            return ServerProps.DEFAULTS;
        }
        MappingReader props = section.get();
        props.expectKeys(KNOWN);
        List<String> ignored = new ArrayList<>();
        for (ConfigNode.Entry each : props.entries()) {
            if (IGNORED.contains(each.key())) {
                ignored.add(each.key());
            }
        }
        if (!ignored.isEmpty()) {
            LOG.info("{}: ignoring ShardingSphere props Ashlar has no use for: {}", props.fileName(), String.join(", ", ignored));
        }
        ServerProps defaults = ServerProps.DEFAULTS;
        int port = props.integer("proxy-default-port", defaults.port(), 1, "a port number (1-65535)");
        if (port > 65_535) {
            throw props.error(props.value("proxy-default-port").orElseThrow(), "expected a port number (1-65535), got " + port);
        }
        String bindAddress = props.nonBlankText("proxy-bind-address").orElse(defaults.bindAddress()).strip();
        int maxConnections = props.integer("proxy-frontend-max-connections", 0, Integer.MIN_VALUE, "an integer");
        boolean sqlShow = props.bool("sql-show", false);
        boolean sqlSimple = props.bool("sql-simple", false);
        int fetchSize = props.integer("proxy-backend-query-fetch-size", defaults.backendQueryFetchSize(), -1, "an integer of -1 or more");
        int perQuery = props.integer("max-connections-size-per-query", defaults.maxConnectionsSizePerQuery(), 1, "a positive integer");
        int flushThreshold = props.integer("proxy-frontend-flush-threshold", defaults.frontendFlushThreshold(), 1, "a positive integer");
        int executorSize = props.integer("proxy-frontend-executor-size", defaults.frontendExecutorSize(), 0, "a non-negative integer");
        int backlog = props.integer("proxy-netty-backlog", defaults.nettyBacklog(), 1, "a positive integer");
        int authenticationTimeout = props.integer("proxy-frontend-authentication-timeout-seconds",
                ServerProps.DEFAULT_AUTHENTICATION_TIMEOUT_SECONDS, 1, "a number of seconds from 1 to 600");
        if (authenticationTimeout > ServerProps.MAX_AUTHENTICATION_TIMEOUT_SECONDS) {
            throw props.error(props.value("proxy-frontend-authentication-timeout-seconds").orElseThrow(),
                    "expected a number of seconds from 1 to 600 (PostgreSQL's authentication_timeout), got " + authenticationTimeout);
        }
        int authDelay = props.integer("proxy-frontend-auth-delay-milliseconds", 0, 0, "a number of milliseconds, 0 or more");
        int metricsPort = props.integer("metrics-port", 0, 0, "a port number (1-65535), or 0 for none");
        if (metricsPort > 65_535) {
            throw props.error(props.value("metrics-port").orElseThrow(), "expected a port number (1-65535), got " + metricsPort);
        }
        int slowQuery = props.integer("slow-query-threshold-milliseconds", 0, 0, "a number of milliseconds, 0 for none");
        return new ServerProps(port, bindAddress, maxConnections, sqlShow, sqlSimple, fetchSize, perQuery,
                protocolType(props), flushThreshold, executorSize, backlog, memoryLimit(props, defaults.statementMemoryLimit()),
                frontendTls(props), authenticationTimeout, authDelay, new ObservabilityConfig(metricsPort, slowQuery));
    }

    /**
     * {@code proxy-statement-memory-limit}: bytes, as a number ({@code 268435456}) or with a unit
     * ({@code 256MB}, {@code 256MiB}, {@code 1GB}, {@code 512kB}; the units are powers of 1024, as
     * PostgreSQL's {@code work_mem} reads them).
     */
    private static long memoryLimit(MappingReader props, long defaultValue) {
        Optional<String> text = props.text("proxy-statement-memory-limit").map(String::strip);
        if (text.isEmpty() || text.get().isEmpty()) {
            return defaultValue;
        }
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?i)(\\d+)\\s*(|b|bytes|k|kb|kib|m|mb|mib|g|gb|gib|t|tb|tib)")
                .matcher(text.get());
        String expected = "a memory size such as 268435456, 256MB or 1GB (more than 0)";
        if (!m.matches()) {
            throw props.error(props.value("proxy-statement-memory-limit").orElseThrow(), "expected " + expected + ", got " + text.get());
        }
        int shift = switch (m.group(2).isEmpty() ? 'b' : Character.toLowerCase(m.group(2).charAt(0))) {
            case 'k' -> 10;
            case 'm' -> 20;
            case 'g' -> 30;
            case 't' -> 40;
            default -> 0;
        };
        long value;
        try {
            value = Long.parseLong(m.group(1));
        } catch (NumberFormatException e) {
            value = -1;
        }
        if (value <= 0 || value > (Long.MAX_VALUE >> shift)) {
            throw props.error(props.value("proxy-statement-memory-limit").orElseThrow(), "expected " + expected + ", got " + text.get());
        }
        return value << shift;
    }

    /** {@code proxy-frontend-ssl-*}: checked together, so that no setting is silently without effect. */
    private static FrontendTlsConfig frontendTls(MappingReader props) {
        boolean enabled = props.bool("proxy-frontend-ssl-enabled", false);
        List<String> versions = commaList(props, "proxy-frontend-ssl-version");
        if (versions.isEmpty()) {
            versions = FrontendTlsConfig.DEFAULT_VERSIONS;
        }
        for (String each : versions) {
            if (!TLS_VERSIONS.contains(each)) {
                throw props.error(props.value("proxy-frontend-ssl-version").orElseThrow(), "TLS version '" + each
                        + "' is not supported: Ashlar speaks TLSv1.2 and TLSv1.3 (PostgreSQL's ssl_min_protocol_version is TLSv1.2)");
            }
        }
        List<String> ciphers = commaList(props, "proxy-frontend-ssl-cipher");
        Optional<String> certFile = props.nonBlankText("proxy-frontend-ssl-cert-file").map(String::strip);
        Optional<String> keyFile = props.nonBlankText("proxy-frontend-ssl-key-file").map(String::strip);
        boolean required = props.bool("proxy-frontend-ssl-required", false);
        if (certFile.isPresent() != keyFile.isPresent()) {
            String given = certFile.isPresent() ? "proxy-frontend-ssl-cert-file" : "proxy-frontend-ssl-key-file";
            throw props.error(props.value(given).orElseThrow(), "proxy-frontend-ssl-cert-file and proxy-frontend-ssl-key-file"
                    + " go together: name both (or neither, for a self-signed certificate made at start)");
        }
        if (!enabled) {
            for (String each : List.of("proxy-frontend-ssl-cert-file", "proxy-frontend-ssl-required")) {
                if (props.has(each) && (!each.endsWith("required") || required)) {
                    throw props.error(props.value(each).orElseThrow(), each + " needs proxy-frontend-ssl-enabled: true");
                }
            }
        }
        return new FrontendTlsConfig(enabled, versions, ciphers, certFile, keyFile, required);
    }

    /** A comma-separated text (or a YAML list) as its non-blank items. */
    private static List<String> commaList(MappingReader props, String key) {
        List<String> result = new ArrayList<>();
        for (String each : props.textList(key)) {
            for (String item : each.split(",")) {
                if (!item.isBlank()) {
                    result.add(item.strip());
                }
            }
        }
        return result;
    }

    private static Optional<String> protocolType(MappingReader props) {
        Optional<String> text = props.text("proxy-frontend-database-protocol-type").map(String::strip);
        if (text.isEmpty() || text.get().isEmpty()) {
            return Optional.empty();
        }
        return switch (text.get().toLowerCase(Locale.ROOT)) {
            case "postgresql" -> Optional.of("PostgreSQL");
            case "opengauss" -> Optional.of("openGauss");
            default -> throw props.error(props.value("proxy-frontend-database-protocol-type").orElseThrow(),
                    "Ashlar speaks the PostgreSQL and openGauss protocols only, got " + text.get());
        };
    }
}
