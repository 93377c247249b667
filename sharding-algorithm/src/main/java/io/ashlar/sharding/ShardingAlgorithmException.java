package io.ashlar.sharding;

/**
 * A sharding algorithm, key generator or inline expression could not be built from its
 * configuration, or could not use a sharding value it was given.
 *
 * <p>The message always names the algorithm type and, for configuration errors, the property and
 * what was expected, so that it can be shown to the operator unchanged (ShardingSphere users know
 * these properties from
 * <a href="https://shardingsphere.apache.org/document/current/en/user-manual/common-config/builtin-algorithm/sharding/">Sharding Algorithm</a>).
 */
public class ShardingAlgorithmException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public ShardingAlgorithmException(String message) {
        super(message);
    }

    public ShardingAlgorithmException(String message, Throwable cause) {
        super(message, cause);
    }
}
