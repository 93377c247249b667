package io.ashlar.bootstrap.registry;

import java.util.Map;

/**
 * {@code ashlar registry show}: what the registry holds (each logical database as the YAML proxies load) and which
 * proxies are live (their ephemeral instance nodes), as text for an operator.
 */
public final class RegistryShow {

    private RegistryShow() {
    }

    /** The report: every logical database's YAML, then the live proxies. */
    public static String show(ZooKeeperRegistry registry) throws Exception {
        StringBuilder result = new StringBuilder();
        result.append("# registry ").append(registry.describe()).append('\n');
        Map<String, String> databases = registry.databases();
        result.append("# logical databases: ").append(databases.size()).append('\n');
        for (Map.Entry<String, String> each : databases.entrySet()) {
            result.append("--- # ").append(each.getKey()).append('\n').append(each.getValue());
            if (!each.getValue().endsWith("\n")) {
                result.append('\n');
            }
        }
        Map<String, String> instances = registry.instances();
        result.append("# live proxies: ").append(instances.size()).append('\n');
        for (Map.Entry<String, String> each : instances.entrySet()) {
            result.append("#   ").append(each.getKey()).append(": ")
                    .append(each.getValue().strip().replace("\n", ", ")).append('\n');
        }
        return result.toString();
    }
}
