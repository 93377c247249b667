package io.ashlar.route.config;

import java.util.Objects;
import java.util.Optional;

/**
 * One entry of {@code autoTables:} in a {@code !SHARDING} rule: a logic table whose actual tables are derived from
 * an auto sharding algorithm ({@code MOD}, {@code HASH_MOD}, {@code VOLUME_RANGE}, {@code BOUNDARY_RANGE},
 * {@code AUTO_INTERVAL}) spread round-robin over the data sources.
 *
 * @param logicTable the table name clients use
 * @param actualDataSources {@code ds_0, ds_1} (comma separated, possibly an inline expression); empty means every
 *                          data source of the logical database
 * @param shardingStrategy the auto sharding strategy (a {@code standard} one in practice)
 * @param keyGenerateStrategy generated key column; empty falls back to {@code defaultKeyGenerateStrategy}
 * @see <a href="https://shardingsphere.apache.org/document/5.4.1/en/user-manual/shardingsphere-jdbc/yaml-config/rules/sharding/">ShardingSphere YAML sharding rule</a>
 */
public record AutoTableRuleConfig(String logicTable, Optional<String> actualDataSources,
                                  Optional<ShardingStrategyConfig> shardingStrategy,
                                  Optional<KeyGenerateStrategyConfig> keyGenerateStrategy) {

    public AutoTableRuleConfig {
        ConfigCollections.requireText(logicTable, "logicTable");
        Objects.requireNonNull(actualDataSources, "actualDataSources");
        Objects.requireNonNull(shardingStrategy, "shardingStrategy");
        Objects.requireNonNull(keyGenerateStrategy, "keyGenerateStrategy");
    }
}
