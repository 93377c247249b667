package io.ashlar.backend.metadata;

import io.ashlar.parser.statement.AnalyzedStatement;
import io.ashlar.parser.statement.StatementKind;
import io.ashlar.parser.statement.TableReference;
import java.util.Set;

/**
 * Which statements the catalog database answers: queries about the relations and types of the logical database.
 * Those read catalog relations only, at least one of them about tables, or about types without functions, or the
 * schemas alone, or look relations up by name or OID without naming a table. Types are looked up where the OIDs
 * clients are told come from: the catalog database's copies of the user's types and extensions ({@link UserTypes}),
 * whose OIDs its {@code pg_class} and {@code pg_attribute} refer to too. Queries of functions, operators and casts,
 * settings, databases and roles are the default data source's, which has what the data sources really have.
 */
final class CatalogQueries {

    /** The relation catalogs: a query that reads one is about tables and goes to the catalog database. */
    private static final Set<String> RELATION_CATALOGS = Set.of("pg_class", "pg_attribute", "pg_attrdef", "pg_index",
            "pg_constraint", "pg_description", "pg_depend", "pg_sequence", "pg_inherits", "pg_partitioned_table",
            "pg_statistic", "pg_statistic_ext", "pg_trigger", "pg_rewrite", "pg_policy", "pg_tables", "pg_indexes",
            "pg_views", "pg_matviews", "pg_sequences", "pg_stats", "pg_stat_user_tables", "pg_stat_all_tables",
            "pg_statio_user_tables", "pg_statio_all_tables", "pg_stat_user_indexes", "pg_stat_all_indexes",
            "pg_publication_tables");

    /**
     * Relation catalogs that describe any object, functions too ({@code pg_depend}: which functions belong to an
     * extension, {@code pg_description}: their comments): a query of functions that reads them is still about functions.
     */
    private static final Set<String> ANY_OBJECT_CATALOGS = Set.of("pg_depend", "pg_description");

    /** The type catalogs: a query of them goes to the catalog database unless it reads a function catalog too. */
    private static final Set<String> TYPE_CATALOGS = Set.of("pg_type", "pg_enum", "pg_range");

    /** Catalogs of what the catalog database does not copy, whose type OIDs are the default data source's. */
    private static final Set<String> FUNCTION_CATALOGS = Set.of("pg_proc", "pg_aggregate", "pg_operator", "pg_cast",
            "pg_opclass", "pg_opfamily", "pg_amop", "pg_amproc", "pg_language", "pg_transform", "pg_conversion");

    /** The namespace catalog: a query of it alone goes to the catalog database too, whose OIDs pg_class holds. */
    private static final String NAMESPACES = "pg_namespace";

    private CatalogQueries() {
    }

    /** Whether the catalog database answers the statement. */
    static boolean answers(AnalyzedStatement statement) {
        if (statement.kind() != StatementKind.SELECT) {
            return false;
        }
        boolean relations = statement.catalogFunctions();
        boolean tableCatalogs = false;
        boolean namespacesOnly = true;
        boolean types = false;
        boolean functions = false;
        int catalogs = 0;
        for (TableReference each : statement.tables()) {
            if (!each.isAccess()) {
                continue;
            }
            String schema = each.name().schema().orElse("");
            String name = each.name().name();
            if (schema.equals("information_schema")) {
                relations = true;
            } else if (schema.equals("pg_catalog") || schema.isEmpty() && name.startsWith("pg_")) {
                relations |= RELATION_CATALOGS.contains(name);
                tableCatalogs |= RELATION_CATALOGS.contains(name) && !ANY_OBJECT_CATALOGS.contains(name);
                types |= TYPE_CATALOGS.contains(name);
                functions |= FUNCTION_CATALOGS.contains(name);
                namespacesOnly &= name.equals(NAMESPACES);
                catalogs++;
            } else {
                return false; // a table of the user's: the statement is not about the catalog alone
            }
        }
        // Functions are the default data source's (the catalog database copies none): Flyway's clean lists them from
        // pg_proc left-joined to pg_depend (to leave extensions' out), and found none there.
        if (functions && !tableCatalogs) {
            return false;
        }
        // Schemas listed on their own (pgjdbc's getSchemas, DBeaver's navigator) carry the OIDs that the catalog
        // database's pg_class refers to; with functions they are the default data source's.
        return relations || types && !functions || catalogs > 0 && namespacesOnly;
    }
}
