package io.ashlar.route.rule;

/**
 * An unsharded table that lives on exactly one data source: found in that backend's catalog at start, named by a
 * {@code !SINGLE} rule, or created through the proxy.
 *
 * @param logicTable the table name
 * @param dataSource the data source holding it
 * @param dataSourceIndex the index of {@code dataSource} in {@link ShardingRules#dataSources()}
 * @see <a href="https://shardingsphere.apache.org/document/5.4.1/en/user-manual/shardingsphere-jdbc/yaml-config/rules/single/">ShardingSphere single rule</a>
 */
public record SingleTable(String logicTable, String dataSource, int dataSourceIndex) implements RuleTable {
}
