package io.ashlar.sharding.keygen;

/**
 * Generates values for a key column the client leaves out of an {@code INSERT}: one
 * {@code keyGenerators} entry of {@code config-sharding.yaml}, built by
 * {@link KeyGenerators#create}
 * (<a href="https://shardingsphere.apache.org/document/current/en/user-manual/common-config/builtin-algorithm/keygen/">Distributed Sequence Algorithm</a>).
 * Implementations are thread-safe and lock-free.
 */
public interface KeyGenerator {

    /** The ShardingSphere type name, e.g. {@code SNOWFLAKE}. */
    String type();

    /** A new key: a {@code Long} for SNOWFLAKE, a {@code String} for UUID. */
    Comparable<?> generateKey();
}
