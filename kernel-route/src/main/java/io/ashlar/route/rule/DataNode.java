package io.ashlar.route.rule;

/**
 * One actual table of a sharded logic table: {@code ds_0.t_order_1} of {@code actualDataNodes}.
 *
 * @param dataSource the data source name
 * @param table the actual table name
 * @see <a href="https://shardingsphere.apache.org/document/5.4.1/en/features/sharding/concept/#data-node">ShardingSphere data node</a>
 */
public record DataNode(String dataSource, String table) {

    @Override
    public String toString() {
        return dataSource + "." + table;
    }
}
