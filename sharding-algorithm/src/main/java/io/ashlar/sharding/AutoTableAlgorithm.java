package io.ashlar.sharding;

/**
 * An algorithm that decides how many actual tables an {@code autoTables} entry has
 * (ShardingSphere's {@code ShardingAutoTableAlgorithm}): MOD, HASH_MOD, VOLUME_RANGE,
 * BOUNDARY_RANGE and AUTO_INTERVAL. The rule compiler names them {@code <logic>_0 ..
 * <logic>_<n-1>} and spreads them over the data sources, see
 * <a href="https://shardingsphere.apache.org/document/current/en/user-manual/shardingsphere-jdbc/yaml-config/rules/sharding/">autoTables</a>.
 */
public interface AutoTableAlgorithm {

    /** How many actual tables the algorithm routes to (at least 1). */
    int autoTablesAmount();
}
