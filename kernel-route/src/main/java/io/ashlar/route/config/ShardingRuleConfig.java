package io.ashlar.route.config;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A {@code !SHARDING} rule of one logical database, as ShardingSphere-Proxy 5.1-5.5 writes it.
 *
 * <p>Standard strategies that leave out {@code shardingColumn} already carry {@code defaultShardingColumn} here;
 * references between the parts (algorithm names, key generator names, binding tables, literal data source names)
 * were checked by the loader. Inline expressions are left for the rule compiler.
 *
 * @param tables {@code tables:} by logic table, in file order
 * @param autoTables {@code autoTables:} by logic table, in file order
 * @param bindingTables {@code bindingTables:} groups
 * @param broadcastTables {@code broadcastTables:} of 5.1-5.3 (5.4+ spells them as a {@code !BROADCAST} rule,
 *                        see {@link BroadcastRuleConfig})
 * @param defaultDatabaseStrategy {@code defaultDatabaseStrategy:}
 * @param defaultTableStrategy {@code defaultTableStrategy:}
 * @param defaultKeyGenerateStrategy {@code defaultKeyGenerateStrategy:}
 * @param defaultShardingColumn {@code defaultShardingColumn:}
 * @param shardingAlgorithms {@code shardingAlgorithms:} by name, in file order
 * @param keyGenerators {@code keyGenerators:} by name, in file order
 * @see <a href="https://shardingsphere.apache.org/document/5.4.1/en/user-manual/shardingsphere-jdbc/yaml-config/rules/sharding/">ShardingSphere YAML sharding rule</a>
 */
public record ShardingRuleConfig(Map<String, TableRuleConfig> tables, Map<String, AutoTableRuleConfig> autoTables,
                                 List<BindingTableGroupConfig> bindingTables, List<String> broadcastTables,
                                 Optional<ShardingStrategyConfig> defaultDatabaseStrategy,
                                 Optional<ShardingStrategyConfig> defaultTableStrategy,
                                 Optional<KeyGenerateStrategyConfig> defaultKeyGenerateStrategy,
                                 Optional<String> defaultShardingColumn,
                                 Map<String, AlgorithmConfig> shardingAlgorithms,
                                 Map<String, AlgorithmConfig> keyGenerators) {

    public ShardingRuleConfig {
        tables = ConfigCollections.orderedCopy(tables, "tables");
        autoTables = ConfigCollections.orderedCopy(autoTables, "autoTables");
        bindingTables = ConfigCollections.listCopy(bindingTables, "bindingTables");
        broadcastTables = ConfigCollections.listCopy(broadcastTables, "broadcastTables");
        Objects.requireNonNull(defaultDatabaseStrategy, "defaultDatabaseStrategy");
        Objects.requireNonNull(defaultTableStrategy, "defaultTableStrategy");
        Objects.requireNonNull(defaultKeyGenerateStrategy, "defaultKeyGenerateStrategy");
        Objects.requireNonNull(defaultShardingColumn, "defaultShardingColumn");
        shardingAlgorithms = ConfigCollections.orderedCopy(shardingAlgorithms, "shardingAlgorithms");
        keyGenerators = ConfigCollections.orderedCopy(keyGenerators, "keyGenerators");
    }
}
