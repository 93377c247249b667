package io.ashlar.bootstrap.config;

import java.nio.file.Path;
import java.util.Objects;

/**
 * How transactions that wrote to several data sources commit: ShardingSphere's transaction rule ({@code transaction:
 * defaultType:} in 5.4+, the {@code !TRANSACTION} global rule before), whose {@code XA} Ashlar runs as PostgreSQL's
 * two-phase commit (PREPARE TRANSACTION, a durable decision, COMMIT PREPARED) and whose {@code LOCAL} commits one data
 * source after another, not atomically. Ashlar's default is XA, where ShardingSphere's is LOCAL: a configuration that
 * names no type gets the commit that keeps data whole.
 *
 * @param twoPhase whether {@code defaultType} is XA (the default)
 * @param logDirectory where the commit decisions are kept (server.yaml's {@code transaction-log-directory}, Ashlar's
 *                     own prop; {@code transaction-log} in the proxy's working directory by default)
 * @see <a href="https://shardingsphere.apache.org/document/5.4.1/en/user-manual/shardingsphere-proxy/yaml-config/rules/transaction/">ShardingSphere transaction rule</a>
 */
public record TransactionConfig(boolean twoPhase, Path logDirectory) {

    /** XA, decisions in {@code transaction-log} under the working directory. */
    public static final TransactionConfig DEFAULTS = new TransactionConfig(true, Path.of("transaction-log"));

    public TransactionConfig {
        Objects.requireNonNull(logDirectory, "logDirectory");
    }
}
