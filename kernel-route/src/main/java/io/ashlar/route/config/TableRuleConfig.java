package io.ashlar.route.config;

import java.util.Objects;
import java.util.Optional;

/**
 * One entry of {@code tables:} in a {@code !SHARDING} rule: a logic table, where its rows live and how a row
 * finds its place.
 *
 * @param logicTable the table name clients use
 * @param actualDataNodes {@code ds_${0..1}.t_order_${0..1}}: data source and actual table pairs, comma
 *                        separated, possibly inline expressions; empty means "the logic table on every data
 *                        source" (ShardingSphere: sharding databases only)
 * @param databaseStrategy how to pick the data source; empty falls back to {@code defaultDatabaseStrategy}
 * @param tableStrategy how to pick the actual table; empty falls back to {@code defaultTableStrategy}
 * @param keyGenerateStrategy generated key column; empty falls back to {@code defaultKeyGenerateStrategy}
 * @see <a href="https://shardingsphere.apache.org/document/5.4.1/en/user-manual/shardingsphere-jdbc/yaml-config/rules/sharding/">ShardingSphere YAML sharding rule</a>
 */
public record TableRuleConfig(String logicTable, Optional<String> actualDataNodes,
                              Optional<ShardingStrategyConfig> databaseStrategy,
                              Optional<ShardingStrategyConfig> tableStrategy,
                              Optional<KeyGenerateStrategyConfig> keyGenerateStrategy) {

    public TableRuleConfig {
        ConfigCollections.requireText(logicTable, "logicTable");
        Objects.requireNonNull(actualDataNodes, "actualDataNodes");
        Objects.requireNonNull(databaseStrategy, "databaseStrategy");
        Objects.requireNonNull(tableStrategy, "tableStrategy");
        Objects.requireNonNull(keyGenerateStrategy, "keyGenerateStrategy");
    }
}
