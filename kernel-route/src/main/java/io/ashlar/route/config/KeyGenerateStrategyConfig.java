package io.ashlar.route.config;

/**
 * {@code keyGenerateStrategy: {column, keyGeneratorName}}: the column the proxy fills with a generated key on
 * INSERT when the statement leaves it out.
 *
 * @param column the generated column
 * @param keyGeneratorName name of an entry of {@code keyGenerators} ({@code SNOWFLAKE}, {@code UUID})
 * @see <a href="https://shardingsphere.apache.org/document/5.4.1/en/user-manual/common-config/builtin-algorithm/keygen/">ShardingSphere key generators</a>
 */
public record KeyGenerateStrategyConfig(String column, String keyGeneratorName) {

    public KeyGenerateStrategyConfig {
        ConfigCollections.requireText(column, "column");
        ConfigCollections.requireText(keyGeneratorName, "keyGeneratorName");
    }
}
