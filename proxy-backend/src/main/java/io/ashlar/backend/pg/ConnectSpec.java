package io.ashlar.backend.pg;

import io.ashlar.backend.config.DataSourceConfig;
import io.ashlar.protocol.ClientDialect;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Where and as whom a native backend connection logs in, read from a data source's JDBC URL the
 * way pgjdbc reads it ({@code jdbc:postgresql://host[:port][,...]/database?key=value&...}, also
 * {@code jdbc:opengauss:}); the first host is used. The connection's startup parameters are the
 * ones a plain PostgreSQL client sends: the database, the user, {@code client_encoding=UTF8}
 * (the proxy reads and writes text as UTF-8), and the URL's {@code options} and
 * {@code currentSchema} (as {@code search_path}); nothing else, so that a session starts from
 * the server's own defaults, as a client connected directly would. A {@code jdbc:opengauss:} URL
 * logs in as openGauss's JDBC driver does: protocol 3.51 (3.50 with {@code protocolVersion=350})
 * and openGauss's SHA256 exchange. TLS is read by {@link BackendTls}.
 *
 * @param host the backend's host
 * @param port its port (5432 when the URL names none)
 * @param database the database to connect to
 * @param user the user to log in as
 * @param password the password, empty for none
 * @param startupParameters the startup packet's parameters, user and database first
 * @param connectTimeoutMillis how long a connection (TCP and login) may take
 * @param protocolVersion the startup packet's version: 3.0, or openGauss's 3.51 or 3.50
 * @param tls whether and how the connection speaks TLS
 * @param tcpKeepaliveSeconds TCP keepalive of the connection (see {@link DataSourceConfig#tcpKeepaliveSeconds()}), 0 for
 *        the operating system's
 * @see <a href="https://jdbc.postgresql.org/documentation/use/#connecting-to-the-database">pgjdbc URLs</a>
 */
public record ConnectSpec(String host, int port, String database, String user, String password,
                          Map<String, String> startupParameters, int connectTimeoutMillis, int protocolVersion,
                          BackendTls tls, int tcpKeepaliveSeconds) {

    public ConnectSpec {
        startupParameters = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(startupParameters));
    }

    /**
     * The spec of a data source, its URL read as pgjdbc reads it; throws
     * {@link IllegalArgumentException} with the reason for a setting that cannot be used (a TLS
     * file that cannot be read, an sslmode pgjdbc does not know).
     */
    public static ConnectSpec of(DataSourceConfig config) {
        return of(config, true);
    }

    /**
     * Checks a data source's URL and settings as {@link #of} reads them, without reading the TLS
     * files they name; throws {@link IllegalArgumentException} with the reason.
     */
    public static void check(DataSourceConfig config) {
        of(config, false);
    }

    private static ConnectSpec of(DataSourceConfig config, boolean readFiles) {
        String url = config.url();
        int scheme = url.indexOf("://");
        if (!url.startsWith("jdbc:") || scheme < 0) {
            throw new IllegalArgumentException("data source " + config.name() + ": not a PostgreSQL JDBC URL: " + url);
        }
        String rest = url.substring(scheme + 3);
        int query = rest.indexOf('?');
        Map<String, String> properties = new LinkedHashMap<>();
        if (query >= 0) {
            for (String pair : rest.substring(query + 1).split("&")) {
                int eq = pair.indexOf('=');
                if (eq > 0) {
                    properties.put(pair.substring(0, eq), URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
                }
            }
            rest = rest.substring(0, query);
        }
        properties.putAll(config.driverProperties());
        int slash = rest.indexOf('/');
        String hosts = slash < 0 ? rest : rest.substring(0, slash);
        String database = slash < 0 ? "" : URLDecoder.decode(rest.substring(slash + 1), StandardCharsets.UTF_8);
        String first = hosts.split(",")[0];
        String host = first;
        int port = 5432;
        int colon = first.lastIndexOf(':');
        if (first.startsWith("[")) {
            int close = first.indexOf(']');
            host = first.substring(1, close);
            if (close + 1 < first.length() && first.charAt(close + 1) == ':') {
                port = Integer.parseInt(first.substring(close + 2));
            }
        } else if (colon >= 0) {
            host = first.substring(0, colon);
            port = Integer.parseInt(first.substring(colon + 1));
        }
        if (host.isEmpty()) {
            host = "localhost";
        }
        String user = config.username().isEmpty() ? properties.getOrDefault("user", "") : config.username();
        String password = config.password().isEmpty() ? properties.getOrDefault("password", "") : config.password();
        if (database.isEmpty()) {
            database = user;
        }
        Map<String, String> startup = new LinkedHashMap<>();
        startup.put("user", user);
        startup.put("database", database);
        startup.put("client_encoding", "UTF8");
        String options = properties.get("options");
        if (options != null && !options.isEmpty()) {
            startup.put("options", options);
        }
        String schema = properties.get("currentSchema");
        if (schema != null && !schema.isEmpty()) {
            startup.put("search_path", schema);
        }
        int timeout = (int) Math.min(Integer.MAX_VALUE, config.connectionTimeoutMilliseconds());
        String connectTimeout = properties.get("connectTimeout");
        if (connectTimeout != null) {
            timeout = Math.min(timeout, Integer.parseInt(connectTimeout) * 1000);
        }
        int protocolVersion = ClientDialect.PROTOCOL_3_0;
        if (url.regionMatches(true, 0, "jdbc:opengauss:", 0, "jdbc:opengauss:".length())) {
            String version = properties.getOrDefault("protocolVersion", "351").strip();
            protocolVersion = switch (version) {
                case "351" -> ClientDialect.PROTOCOL_OPENGAUSS_3_51;
                case "350" -> ClientDialect.PROTOCOL_OPENGAUSS_3_50;
                default -> throw new IllegalArgumentException("protocolVersion=" + version + " is not supported for an"
                        + " openGauss data source: Ashlar speaks openGauss's 351 (the default) or 350");
            };
        }
        BackendTls tls = readFiles ? BackendTls.of(properties) : BackendTls.DISABLED;
        if (!readFiles) {
            BackendTls.check(properties);
        }
        return new ConnectSpec(host, port, database, user, password, startup, timeout, protocolVersion, tls,
                config.tcpKeepaliveSeconds());
    }

    /**
     * The spec of the health check's own connection: named in {@code pg_stat_activity} (application_name), and
     * given up after {@code timeoutMillis} (a login that takes longer counts as no answer).
     */
    ConnectSpec forHealthCheck(int timeoutMillis) {
        Map<String, String> startup = new LinkedHashMap<>(startupParameters);
        startup.put("application_name", "ashlar health check");
        return new ConnectSpec(host, port, database, user, password, startup, Math.min(connectTimeoutMillis, timeoutMillis),
                protocolVersion, tls, tcpKeepaliveSeconds);
    }

    /** Where the connection goes, for messages: {@code host:port/database}. */
    public String address() {
        return host + ":" + port + "/" + database;
    }

    /** Whether the backend is openGauss: authentication codes 10 and 11 are its SHA256 and MD5_SHA256, not SASL. */
    public boolean openGauss() {
        return protocolVersion != ClientDialect.PROTOCOL_3_0;
    }
}
