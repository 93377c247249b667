package io.ashlar.bootstrap.config;

import java.util.Objects;
import java.util.Optional;

/**
 * {@code mode:} of server.yaml: where the proxy keeps its rules.
 *
 * <p>{@code Standalone} (also ShardingSphere 5.1's {@code Memory}, and no {@code mode:} at all) reads conf/ at
 * start; a {@code repository:} given for it is accepted and unused. {@code Cluster} keeps the rules in ZooKeeper
 * ({@code repository: {type: ZooKeeper, props: {namespace, server-lists, ...}}}) so that several proxies share them.
 *
 * @param type standalone or cluster
 * @param repository the {@code repository:} block, if any (always present for cluster mode)
 * @param overwrite 5.1-5.2 {@code overwrite:}: whether local conf/ replaces what the registry holds at start
 * @see <a href="https://shardingsphere.apache.org/document/5.4.1/en/user-manual/shardingsphere-jdbc/yaml-config/mode/">ShardingSphere mode configuration</a>
 */
public record ModeConfig(Type type, Optional<RepositoryConfig> repository, boolean overwrite) {

    /** The mode of a server.yaml with no {@code mode:}. */
    public static final ModeConfig STANDALONE = new ModeConfig(Type.STANDALONE, Optional.empty(), false);

    public ModeConfig {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(repository, "repository");
        if (type == Type.CLUSTER && repository.isEmpty()) {
            throw new IllegalArgumentException("cluster mode needs a repository");
        }
    }

    /** Where rules live. */
    public enum Type {
        /** conf/ only. */
        STANDALONE,
        /** A shared registry (ZooKeeper). */
        CLUSTER
    }
}
