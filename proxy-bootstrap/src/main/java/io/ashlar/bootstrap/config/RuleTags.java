package io.ashlar.bootstrap.config;

import java.util.List;
import java.util.Set;

/**
 * The rule tags of ShardingSphere 5.1-5.5 YAML and what Ashlar does with each: the database rules it loads, the
 * database rules it refuses by name, and the global rules of server.yaml (of which only {@code !AUTHORITY} matters).
 *
 * @see <a href="https://shardingsphere.apache.org/document/5.4.1/en/user-manual/shardingsphere-jdbc/yaml-config/rules/">ShardingSphere YAML rules</a>
 */
final class RuleTags {

    static final String SHARDING = "!SHARDING";

    static final String BROADCAST = "!BROADCAST";

    static final String SINGLE = "!SINGLE";

    static final String AUTHORITY = "!AUTHORITY";

    static final String TRANSACTION = "!TRANSACTION";

    /** Database rules Ashlar loads, for messages. */
    static final List<String> SUPPORTED_DATABASE_RULES = List.of(SHARDING, BROADCAST, SINGLE);

    /** ShardingSphere database rules Ashlar does not implement. */
    static final Set<String> UNSUPPORTED_DATABASE_RULES = Set.of("!READWRITE_SPLITTING", "!DB_DISCOVERY", "!DATABASE_DISCOVERY",
            "!ENCRYPT", "!COMPATIBLE_ENCRYPT", "!SHADOW", "!MASK", "!SHARDING_SCALING", "!SCALING");

    /** ShardingSphere global rules (server.yaml {@code rules:}, 5.1-5.3) that Ashlar accepts and ignores. */
    static final Set<String> IGNORED_GLOBAL_RULES = Set.of(TRANSACTION, "!SQL_PARSER", "!TRAFFIC", "!SQL_TRANSLATOR",
            "!SQL_FEDERATION", "!LOGGING", "!GLOBAL_CLOCK", "!CDC");

    private RuleTags() {
    }

    static boolean isGlobal(String tag) {
        return AUTHORITY.equals(tag) || IGNORED_GLOBAL_RULES.contains(tag);
    }

    static boolean isDatabaseRule(String tag) {
        return SUPPORTED_DATABASE_RULES.contains(tag) || UNSUPPORTED_DATABASE_RULES.contains(tag);
    }
}
