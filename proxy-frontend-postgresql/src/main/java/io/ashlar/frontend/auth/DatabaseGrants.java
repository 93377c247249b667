package io.ashlar.frontend.auth;

import java.util.Set;

/**
 * The logical databases a user may connect to: every one (ShardingSphere's {@code ALL_PERMITTED}),
 * or those granted to it ({@code DATABASE_PERMITTED} with {@code user-database-mappings}). Names
 * are compared as PostgreSQL compares database names: exactly.
 *
 * @see <a href="https://shardingsphere.apache.org/document/5.4.1/en/user-manual/shardingsphere-proxy/yaml-config/authority/">ShardingSphere-Proxy authority</a>
 */
public final class DatabaseGrants {

    /** Every logical database, present and future. */
    public static final DatabaseGrants ALL = new DatabaseGrants(true, Set.of());

    private final boolean all;
    private final Set<String> databases;

    private DatabaseGrants(boolean all, Set<String> databases) {
        this.all = all;
        this.databases = Set.copyOf(databases);
    }

    /** These databases only (none when empty). */
    public static DatabaseGrants only(Set<String> databases) {
        return new DatabaseGrants(false, databases);
    }

    /** Whether the user may connect to the database, whether it exists or not. */
    public boolean allows(String database) {
        return all || databases.contains(database);
    }

    @Override
    public String toString() {
        return all ? "all databases" : "databases " + databases;
    }
}
