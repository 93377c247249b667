package io.ashlar.backend.config;

import java.util.Objects;

/**
 * A user allowed to log in to the proxy, from server.yaml ({@code root@%:root} in the 5.1
 * {@code !AUTHORITY} list form, or {@code user: root@%} with {@code password:} in the 5.4+
 * {@code authority:} form).
 *
 * @param name user name
 * @param host host pattern ({@code %} for any)
 * @param password clear-text password; the proxy derives SCRAM/MD5/SHA256 verifiers from it
 * @param authenticationMethod {@code scram-sha-256}, {@code md5}, {@code password}, or {@link #PROTOCOL_DEFAULT}
 *     when the configuration names none
 * @param sslRequired whether the user may log in over TLS only (Ashlar's {@code sslRequired})
 * @param admin whether the user may run the proxy's admin commands ({@code SHOW POOLS}, {@code SHOW CLIENTS}, ...):
 *     ShardingSphere's {@code admin: true} (5.4 and later)
 * @see <a href="https://shardingsphere.apache.org/document/5.4.1/en/user-manual/shardingsphere-proxy/yaml-config/authority/">ShardingSphere-Proxy authority</a>
 */
public record ProxyUser(String name, String host, String password, String authenticationMethod, boolean sslRequired,
                        boolean admin) {

    public static final String SCRAM_SHA_256 = "scram-sha-256";
    public static final String MD5 = "md5";
    public static final String PASSWORD = "password";

    /**
     * No method named in the configuration: the client protocol's own default, as ShardingSphere-Proxy
     * chooses it ("according to the frontend protocol"): MD5 for PostgreSQL clients, which every
     * PostgreSQL driver speaks (pgjdbc before 42.2 and BenchmarkSQL's bundled driver have no SCRAM),
     * and openGauss's SHA256 exchange for openGauss clients. Never written to configuration: a user
     * with this method is a user without {@code authenticationMethod}.
     */
    public static final String PROTOCOL_DEFAULT = "protocol-default";

    public ProxyUser {
        Objects.requireNonNull(name, "name");
        host = host == null || host.isEmpty() ? "%" : host;
        password = password == null ? "" : password;
        authenticationMethod = authenticationMethod == null ? PROTOCOL_DEFAULT : authenticationMethod;
    }

    /** A user who may log in with or without TLS, and is no admin. */
    public ProxyUser(String name, String host, String password, String authenticationMethod) {
        this(name, host, password, authenticationMethod, false, false);
    }

    /** A user who is no admin. */
    public ProxyUser(String name, String host, String password, String authenticationMethod, boolean sslRequired) {
        this(name, host, password, authenticationMethod, sslRequired, false);
    }
}
