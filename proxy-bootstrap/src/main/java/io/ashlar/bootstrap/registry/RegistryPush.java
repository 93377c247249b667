package io.ashlar.bootstrap.registry;

import io.ashlar.backend.config.LogicalDatabaseConfig;
import io.ashlar.bootstrap.config.ConfigurationException;
import io.ashlar.bootstrap.config.ConfigurationSwapper;
import io.ashlar.bootstrap.config.ProxyConfiguration;
import io.ashlar.route.rule.ShardingRules;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * {@code ashlar registry push --conf DIR [--overwrite]}: writes the logical databases of a conf/ directory to the
 * registry, where every proxy of the cluster picks them up. Each is compiled first, as a proxy compiles it at start
 * (with no single tables, which only the backends know); if any fails, nothing is written and the message is the
 * one a proxy would print at start. Only databases whose YAML differs from the registry's are written; with
 * {@code overwrite}, databases the registry holds and DIR does not are removed too, so that the registry is DIR.
 */
public final class RegistryPush {

    private RegistryPush() {
    }

    /**
     * Compiles every logical database of the configuration.
     *
     * @throws ConfigurationException naming the logical database and the problem, for the first that does not compile
     */
    public static void validate(ProxyConfiguration configuration) {
        for (LogicalDatabaseConfig each : configuration.databases()) {
            if (each.rules().isEmpty()) {
                continue;
            }
            try {
                ShardingRules.compile(each.rules(), List.copyOf(each.dataSources().keySet()), Map.of());
            } catch (RuntimeException e) {
                throw new ConfigurationException("logical database " + each.name() + ": " + e.getMessage(), e);
            }
        }
    }

    /**
     * Validates, then writes what changed.
     *
     * @return one line per change made (empty when the registry already held this configuration)
     * @throws ConfigurationException if a logical database does not compile; the registry is untouched then
     */
    public static List<String> push(ProxyConfiguration configuration, ZooKeeperRegistry registry, boolean overwrite) throws Exception {
        validate(configuration);
        List<String> result = new ArrayList<>();
        Set<String> pushed = new HashSet<>();
        for (LogicalDatabaseConfig each : configuration.databases()) {
            String yaml = ConfigurationSwapper.toYaml(each);
            pushed.add(each.name());
            Optional<String> held = registry.database(each.name());
            if (held.isPresent() && held.get().equals(yaml)) {
                continue;
            }
            registry.putDatabase(each.name(), yaml);
            result.add((held.isPresent() ? "changed " : "added ") + each.name());
        }
        if (overwrite) {
            for (String each : registry.databases().keySet()) {
                if (!pushed.contains(each)) {
                    registry.removeDatabase(each);
                    result.add("removed " + each);
                }
            }
        }
        return result;
    }
}
