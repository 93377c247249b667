package io.ashlar.bootstrap.config;

import io.ashlar.backend.config.ProxyUser;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Which logical databases the users may use: all of them ({@code ALL_PERMITTED}, 5.1's
 * {@code ALL_PRIVILEGES_PERMITTED}), or those {@code DATABASE_PERMITTED} maps to each
 * ({@code user-database-mappings}; 5.1's {@code SCHEMA_PRIVILEGES_PERMITTED} with
 * {@code user-schema-mappings}).
 *
 * @param allPermitted whether every user may use every logical database
 * @param grants with {@code DATABASE_PERMITTED}, the mappings in file order
 * @see <a href="https://shardingsphere.apache.org/document/5.4.1/en/user-manual/shardingsphere-proxy/yaml-config/authority/">ShardingSphere-Proxy authority</a>
 */
public record PrivilegeConfig(boolean allPermitted, List<DatabaseGrant> grants) {

    public static final PrivilegeConfig ALL_PERMITTED = new PrivilegeConfig(true, List.of());

    /**
     * One {@code <user>@<host>=<database>} of {@code user-database-mappings}.
     *
     * @param user the user's name
     * @param host its host pattern, {@code %} for any (an empty one in the file)
     * @param database a logical database name
     */
    public record DatabaseGrant(String user, String host, String database) {

        public DatabaseGrant {
            Objects.requireNonNull(user, "user");
            host = host == null || host.isEmpty() ? "%" : host;
            Objects.requireNonNull(database, "database");
        }

        /**
         * Whether it grants to this user: the same name, and a host of {@code %} or the user's own, as
         * ShardingSphere matches them (without case).
         */
        public boolean grantsTo(ProxyUser each) {
            return user.equalsIgnoreCase(each.name()) && (host.equals("%") || host.equalsIgnoreCase(each.host()));
        }

        @Override
        public String toString() {
            return user + "@" + (host.equals("%") ? "" : host) + "=" + database;
        }
    }

    public PrivilegeConfig {
        grants = List.copyOf(grants);
        if (allPermitted && !grants.isEmpty()) {
            throw new IllegalArgumentException("ALL_PERMITTED takes no grants");
        }
    }

    public static PrivilegeConfig databasePermitted(List<DatabaseGrant> grants) {
        return new PrivilegeConfig(false, grants);
    }

    /** The databases granted to a user (with {@code DATABASE_PERMITTED}); empty when none. */
    public Set<String> databasesOf(ProxyUser user) {
        Set<String> result = new LinkedHashSet<>();
        for (DatabaseGrant each : grants) {
            if (each.grantsTo(user)) {
                result.add(each.database());
            }
        }
        return result;
    }

    /** The {@code user-database-mappings} text of the grants. */
    public String mappings() {
        StringBuilder result = new StringBuilder();
        for (DatabaseGrant each : grants) {
            if (!result.isEmpty()) {
                result.append(", ");
            }
            result.append(each);
        }
        return result.toString();
    }

    @Override
    public String toString() {
        return allPermitted ? "ALL_PERMITTED" : "DATABASE_PERMITTED " + mappings();
    }
}
