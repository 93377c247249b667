package io.ashlar.sharding;

import java.util.Properties;

/**
 * A configured sharding algorithm: one entry of {@code shardingAlgorithms} in
 * {@code config-sharding.yaml}, built by {@link ShardingAlgorithms#create}.
 *
 * <p>There are exactly three kinds, matching the three kinds of ShardingSphere sharding strategy
 * (<a href="https://shardingsphere.apache.org/document/current/en/user-manual/shardingsphere-jdbc/yaml-config/rules/sharding/">standard, complex, hint</a>),
 * so the route engine can {@code switch} over them. Each kind is {@code non-sealed} because a
 * {@code CLASS_BASED} algorithm is a user's class implementing one of them.
 */
public sealed interface ShardingAlgorithm permits StandardShardingAlgorithm, ComplexShardingAlgorithm, HintShardingAlgorithm {

    /**
     * The ShardingSphere type name, e.g. {@code MOD}; user classes loaded by {@code CLASS_BASED}
     * keep this default.
     */
    default String type() {
        return "CLASS_BASED";
    }

    /**
     * Called once, right after a {@code CLASS_BASED} algorithm is instantiated, with every
     * property of its configuration entry (including {@code strategy} and
     * {@code algorithmClassName}). Built-in algorithms read their properties in their constructor
     * and ignore this call. Never called on the routing path.
     */
    default void init(Properties props) {
    }
}
