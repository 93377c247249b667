package io.ashlar.sharding.keygen;

import io.ashlar.sharding.AlgorithmProperties;
import io.ashlar.sharding.ShardingAlgorithmException;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Builds the key generator of one {@code keyGenerators} entry from its {@code type} and
 * {@code props}, with ShardingSphere's names
 * (<a href="https://shardingsphere.apache.org/document/current/en/user-manual/common-config/builtin-algorithm/keygen/">Distributed Sequence Algorithm</a>).
 */
public final class KeyGenerators {

    /** The supported type names. */
    public static final List<String> TYPES = List.of("SNOWFLAKE", "UUID");

    private KeyGenerators() {
    }

    /**
     * Creates a key generator.
     *
     * @throws ShardingAlgorithmException for an unknown type or a bad property
     */
    public static KeyGenerator create(String type, Map<String, String> props) {
        return switch (type.trim().toUpperCase(Locale.ROOT)) {
            case "SNOWFLAKE" -> snowflake(props);
            case "UUID" -> new UuidKeyGenerator();
            default -> throw new ShardingAlgorithmException("unknown key generator type '" + type + "'; supported types are " + String.join(", ", TYPES));
        };
    }

    private static SnowflakeKeyGenerator snowflake(Map<String, String> props) {
        AlgorithmProperties properties = AlgorithmProperties.of("SNOWFLAKE key generator", props);
        int workerId = properties.intOrDefault("worker-id", 0, 0, SnowflakeKeyGenerator.MAX_WORKER_ID, "an integer within 0.." + SnowflakeKeyGenerator.MAX_WORKER_ID);
        int maxVibrationOffset = properties.intOrDefault("max-vibration-offset", 1, 0, (int) SnowflakeKeyGenerator.SEQUENCE_MASK,
                "an integer within 0.." + SnowflakeKeyGenerator.SEQUENCE_MASK);
        int maxTolerate = properties.intOrDefault("max-tolerate-time-difference-milliseconds", 10, 0, Integer.MAX_VALUE, "an integer >= 0");
        return new SnowflakeKeyGenerator(workerId, maxVibrationOffset, maxTolerate, System::currentTimeMillis);
    }
}
