package io.ashlar.bootstrap.config;

import io.ashlar.backend.config.ProxyUser;
import java.util.List;
import java.util.Objects;

/**
 * What server.yaml (or ShardingSphere 5.5's global.yaml) configures: the mode, the users who may log in and the
 * server properties.
 *
 * @param mode where rules are kept
 * @param users the users, at least one ({@code root}/{@code root} when the file names none)
 * @param props typed server properties
 * @see <a href="https://shardingsphere.apache.org/document/5.4.1/en/user-manual/shardingsphere-proxy/yaml-config/">ShardingSphere-Proxy YAML configuration</a>
 */
public record ServerConfig(ModeConfig mode, List<ProxyUser> users, ServerProps props) {

    /** The user of a server.yaml that names none, as in ShardingSphere's examples. */
    public static final ProxyUser DEFAULT_USER = new ProxyUser("root", "%", "root", ProxyUser.PROTOCOL_DEFAULT);

    /** The configuration without any server.yaml. */
    public static final ServerConfig DEFAULTS = new ServerConfig(ModeConfig.STANDALONE, List.of(DEFAULT_USER), ServerProps.DEFAULTS);

    public ServerConfig {
        Objects.requireNonNull(mode, "mode");
        users = List.copyOf(users);
        if (users.isEmpty()) {
            throw new IllegalArgumentException("users must not be empty");
        }
        Objects.requireNonNull(props, "props");
    }
}
