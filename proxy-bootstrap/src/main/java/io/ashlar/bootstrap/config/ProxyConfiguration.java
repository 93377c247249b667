package io.ashlar.bootstrap.config;

import io.ashlar.backend.config.LogicalDatabaseConfig;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Everything conf/ holds: the server configuration and the logical databases, in the order of their file names.
 *
 * @param server server.yaml
 * @param databases one per config-*.yaml (or database-*.yaml), sorted by file name
 */
public record ProxyConfiguration(ServerConfig server, List<LogicalDatabaseConfig> databases) {

    public ProxyConfiguration {
        Objects.requireNonNull(server, "server");
        databases = List.copyOf(databases);
    }

    /** The logical database of that name, if configured. */
    public Optional<LogicalDatabaseConfig> database(String name) {
        for (LogicalDatabaseConfig each : databases) {
            if (each.name().equals(name)) {
                return Optional.of(each);
            }
        }
        return Optional.empty();
    }
}
