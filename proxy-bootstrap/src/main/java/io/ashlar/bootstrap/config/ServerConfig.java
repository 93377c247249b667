package io.ashlar.bootstrap.config;

import io.ashlar.backend.config.ProxyUser;
import java.util.List;
import java.util.Objects;

/**
 * What server.yaml (or ShardingSphere 5.5's global.yaml) configures: the mode, the users who may log in, which
 * databases they may use, and the server properties.
 *
 * @param mode where rules are kept
 * @param users the users, at least one ({@code root}/{@code root} when the file names none)
 * @param props typed server properties
 * @param defaultAuthenticationMethod the method of users who name none ({@code defaultAuthenticator}'s, else
 *                                    {@link ProxyUser#PROTOCOL_DEFAULT}): what a user nobody configured is asked for
 * @param privilege which logical databases each user may use
 * @param transaction how transactions over several data sources commit
 * @see <a href="https://shardingsphere.apache.org/document/5.4.1/en/user-manual/shardingsphere-proxy/yaml-config/">ShardingSphere-Proxy YAML configuration</a>
 */
public record ServerConfig(ModeConfig mode, List<ProxyUser> users, ServerProps props, String defaultAuthenticationMethod,
                           PrivilegeConfig privilege, TransactionConfig transaction) {

    /** The user of a server.yaml that names none, as in ShardingSphere's examples: the only user, so the admin. */
    public static final ProxyUser DEFAULT_USER = new ProxyUser("root", "%", "root", ProxyUser.PROTOCOL_DEFAULT, false, true);

    /** The configuration without any server.yaml. */
    public static final ServerConfig DEFAULTS = new ServerConfig(ModeConfig.STANDALONE, List.of(DEFAULT_USER), ServerProps.DEFAULTS);

    public ServerConfig {
        Objects.requireNonNull(mode, "mode");
        users = List.copyOf(users);
        if (users.isEmpty()) {
            throw new IllegalArgumentException("users must not be empty");
        }
        Objects.requireNonNull(props, "props");
        Objects.requireNonNull(defaultAuthenticationMethod, "defaultAuthenticationMethod");
        Objects.requireNonNull(privilege, "privilege");
        Objects.requireNonNull(transaction, "transaction");
        if (!props.frontendTls().enabled()) {
            for (ProxyUser each : users) {
                if (each.sslRequired()) {
                    throw new IllegalArgumentException("user " + each.name() + " requires TLS, and TLS is not enabled");
                }
            }
        }
    }

    /** The default transaction configuration (two-phase commit, its log in the working directory). */
    public ServerConfig(ModeConfig mode, List<ProxyUser> users, ServerProps props, String defaultAuthenticationMethod,
                        PrivilegeConfig privilege) {
        this(mode, users, props, defaultAuthenticationMethod, privilege, TransactionConfig.DEFAULTS);
    }

    /** The same server with another transaction configuration. */
    public ServerConfig withTransaction(TransactionConfig newTransaction) {
        return new ServerConfig(mode, users, props, defaultAuthenticationMethod, privilege, newTransaction);
    }

    /** Users who name their method or take the protocol's default, each allowed every logical database. */
    public ServerConfig(ModeConfig mode, List<ProxyUser> users, ServerProps props) {
        this(mode, users, props, ProxyUser.PROTOCOL_DEFAULT, PrivilegeConfig.ALL_PERMITTED);
    }
}
