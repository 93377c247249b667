package io.ashlar.route.config;

import java.util.List;
import java.util.Optional;

/**
 * How a table is split over data sources ({@code databaseStrategy}) or over actual tables ({@code tableStrategy}):
 * exactly one of ShardingSphere's {@code standard}, {@code complex}, {@code hint} or {@code none}.
 *
 * @see <a href="https://shardingsphere.apache.org/document/5.4.1/en/user-manual/shardingsphere-jdbc/yaml-config/rules/sharding/">ShardingSphere YAML sharding rule</a>
 */
public sealed interface ShardingStrategyConfig
        permits ShardingStrategyConfig.Standard, ShardingStrategyConfig.Complex, ShardingStrategyConfig.Hint,
        ShardingStrategyConfig.None {

    /** The sharding algorithm this strategy names; empty for {@code none}. */
    Optional<String> algorithmName();

    /**
     * {@code standard: {shardingColumn, shardingAlgorithmName}}: one sharding column.
     *
     * @param shardingColumn the column whose value picks the target (already resolved from
     *                       {@code defaultShardingColumn} when the file leaves it out)
     * @param shardingAlgorithmName name of an entry of {@code shardingAlgorithms}
     */
    record Standard(String shardingColumn, String shardingAlgorithmName) implements ShardingStrategyConfig {

        public Standard {
            ConfigCollections.requireText(shardingColumn, "shardingColumn");
            ConfigCollections.requireText(shardingAlgorithmName, "shardingAlgorithmName");
        }

        @Override
        public Optional<String> algorithmName() {
            return Optional.of(shardingAlgorithmName);
        }
    }

    /**
     * {@code complex: {shardingColumns, shardingAlgorithmName}}: several sharding columns
     * (comma-separated in YAML).
     *
     * @param shardingColumns the sharding columns, in file order, at least one
     * @param shardingAlgorithmName name of an entry of {@code shardingAlgorithms}
     */
    record Complex(List<String> shardingColumns, String shardingAlgorithmName) implements ShardingStrategyConfig {

        public Complex {
            shardingColumns = ConfigCollections.listCopy(shardingColumns, "shardingColumns");
            if (shardingColumns.isEmpty()) {
                throw new IllegalArgumentException("shardingColumns must not be empty");
            }
            ConfigCollections.requireText(shardingAlgorithmName, "shardingAlgorithmName");
        }

        @Override
        public Optional<String> algorithmName() {
            return Optional.of(shardingAlgorithmName);
        }
    }

    /**
     * {@code hint: {shardingAlgorithmName}}: the target comes from a hint, not from a column.
     *
     * @param shardingAlgorithmName name of an entry of {@code shardingAlgorithms}
     */
    record Hint(String shardingAlgorithmName) implements ShardingStrategyConfig {

        public Hint {
            ConfigCollections.requireText(shardingAlgorithmName, "shardingAlgorithmName");
        }

        @Override
        public Optional<String> algorithmName() {
            return Optional.of(shardingAlgorithmName);
        }
    }

    /** {@code none:}: not split at this level (every data source, or every actual table, is a target). */
    record None() implements ShardingStrategyConfig {

        /** The one instance worth having. */
        public static final None INSTANCE = new None();

        @Override
        public Optional<String> algorithmName() {
            return Optional.empty();
        }
    }
}
