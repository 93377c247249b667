package io.ashlar.frontend.auth;

import io.ashlar.backend.config.ProxyUser;
import java.util.Optional;

/**
 * How a user proves its password, as named in {@code server.yaml}
 * ({@code authenticationMethod}, like {@code pg_hba.conf}'s methods). For openGauss clients
 * {@link #SCRAM_SHA_256} means openGauss's own SHA256 exchange: openGauss's driver does not do
 * SASL. {@link #PROTOCOL_DEFAULT} is a user for whom nothing is named: MD5 for PostgreSQL clients,
 * SHA256 for openGauss clients, the defaults of ShardingSphere-Proxy's PostgreSQL and openGauss
 * frontends.
 *
 * @see <a href="https://www.postgresql.org/docs/current/auth-password.html">Password Authentication</a>
 */
public enum AuthenticationMethod {

    SCRAM_SHA_256(ProxyUser.SCRAM_SHA_256),
    MD5(ProxyUser.MD5),
    PASSWORD(ProxyUser.PASSWORD),
    PROTOCOL_DEFAULT(ProxyUser.PROTOCOL_DEFAULT);

    private final String configName;

    AuthenticationMethod(String configName) {
        this.configName = configName;
    }

    public String configName() {
        return configName;
    }

    /** The method named in configuration, case-insensitively; empty for an unknown name. */
    public static Optional<AuthenticationMethod> fromConfig(String name) {
        for (AuthenticationMethod each : values()) {
            if (each.configName.equalsIgnoreCase(name)) {
                return Optional.of(each);
            }
        }
        return Optional.empty();
    }
}
