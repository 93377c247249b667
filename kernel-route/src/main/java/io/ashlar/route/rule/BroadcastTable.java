package io.ashlar.route.rule;

/**
 * A table with a full copy on every data source ({@code broadcastTables} or a {@code !BROADCAST} rule): reads go to
 * one data source, writes and DDL to all of them.
 *
 * @param logicTable the table name
 * @see <a href="https://shardingsphere.apache.org/document/5.4.1/en/user-manual/shardingsphere-jdbc/yaml-config/rules/broadcast/">ShardingSphere broadcast rule</a>
 */
public record BroadcastTable(String logicTable) implements RuleTable {
}
