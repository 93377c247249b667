package io.ashlar.backend.config;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One logical database (one config-*.yaml): its name ({@code databaseName}, or the older
 * {@code schemaName}), its data sources in file order, and its rules as plain configuration.
 *
 * @param name logical database name clients connect to
 * @param dataSources data sources by name, in the order the file lists them
 * @param rules rule configurations (for example the sharding rule of kernel-route), in file order
 */
public record LogicalDatabaseConfig(String name, Map<String, DataSourceConfig> dataSources, List<Object> rules) {

    public LogicalDatabaseConfig {
        Objects.requireNonNull(name, "name");
        dataSources = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(dataSources));
        rules = List.copyOf(rules);
    }
}
