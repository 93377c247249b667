package io.ashlar.route.config;

import java.util.Map;

/**
 * A named algorithm as {@code shardingAlgorithms}, {@code keyGenerators} or {@code auditors} declare it:
 * its SPI type ({@code MOD}, {@code INLINE}, {@code SNOWFLAKE}, ...) and its properties.
 *
 * <p>Property values are kept as the text the YAML file holds ({@code sharding-count: 4} is {@code "4"}, not
 * {@code "4.0"}); the algorithm parses them once when the rule is compiled.
 *
 * @param type algorithm type, as ShardingSphere names it
 * @param props algorithm properties in file order, never null
 * @see <a href="https://shardingsphere.apache.org/document/5.4.1/en/user-manual/common-config/builtin-algorithm/sharding/">ShardingSphere built-in sharding algorithms</a>
 */
public record AlgorithmConfig(String type, Map<String, String> props) {

    public AlgorithmConfig {
        ConfigCollections.requireText(type, "type");
        props = ConfigCollections.orderedCopy(props, "props");
    }

    /** An algorithm with no properties. */
    public static AlgorithmConfig of(String type) {
        return new AlgorithmConfig(type, Map.of());
    }
}
