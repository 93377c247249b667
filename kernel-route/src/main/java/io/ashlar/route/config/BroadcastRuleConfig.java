package io.ashlar.route.config;

import java.util.List;

/**
 * A {@code !BROADCAST} rule (ShardingSphere 5.4+): tables with a full copy on every data source; reads go to one,
 * writes go to all. The 5.1-5.3 spelling, {@code broadcastTables:} inside {@code !SHARDING}, lands in
 * {@link ShardingRuleConfig#broadcastTables()}.
 *
 * @param tables the broadcast logic tables, in file order
 * @see <a href="https://shardingsphere.apache.org/document/5.4.1/en/user-manual/shardingsphere-jdbc/yaml-config/rules/broadcast/">ShardingSphere YAML broadcast rule</a>
 */
public record BroadcastRuleConfig(List<String> tables) {

    public BroadcastRuleConfig {
        tables = ConfigCollections.listCopy(tables, "tables");
    }
}
