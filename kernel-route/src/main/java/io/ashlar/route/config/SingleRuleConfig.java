package io.ashlar.route.config;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A {@code !SINGLE} rule (ShardingSphere 5.4+): which unsharded tables the proxy serves from which data source
 * ({@code ds_0.t_config}, {@code ds_0.*}, {@code *.*}), and where CREATE TABLE puts a new unsharded table.
 *
 * @param tables data source and table patterns, in file order
 * @param defaultDataSource data source for new single tables
 * @see <a href="https://shardingsphere.apache.org/document/5.4.1/en/user-manual/shardingsphere-jdbc/yaml-config/rules/single/">ShardingSphere YAML single rule</a>
 */
public record SingleRuleConfig(List<String> tables, Optional<String> defaultDataSource) {

    public SingleRuleConfig {
        tables = ConfigCollections.listCopy(tables, "tables");
        Objects.requireNonNull(defaultDataSource, "defaultDataSource");
    }
}
