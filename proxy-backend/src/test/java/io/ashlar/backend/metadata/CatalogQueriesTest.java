package io.ashlar.backend.metadata;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ashlar.parser.StatementAnalyzer;
import org.junit.jupiter.api.Test;

class CatalogQueriesTest {

    private static boolean answers(String sql) {
        return CatalogQueries.answers(StatementAnalyzer.analyze(sql));
    }

    @Test
    void queriesAboutRelationsGoToTheCatalogDatabase() {
        assertTrue(answers("SELECT c.oid, n.nspname, c.relname FROM pg_catalog.pg_class c LEFT JOIN pg_catalog.pg_namespace n"
                + " ON n.oid = c.relnamespace WHERE c.relname OPERATOR(pg_catalog.~) '^(t_order)$' COLLATE pg_catalog.default"
                + " AND pg_catalog.pg_table_is_visible(c.oid) ORDER BY 2, 3"), "psql's \\d");
        assertTrue(answers("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'"));
        assertTrue(answers("select relname from pg_class where relkind = 'r'"), "unqualified");
        assertTrue(answers("SELECT 't_order'::regclass::oid"), "a relation looked up by name");
        assertTrue(answers("SELECT nspname FROM pg_catalog.pg_namespace WHERE nspname !~ '^pg_' ORDER BY 1"), "schemas alone");
        assertTrue(answers("SELECT * FROM (SELECT a.attname FROM pg_attribute a WHERE a.attrelid = $1) x"), "in a derived table");
    }

    /** The OIDs clients are told of user types are the catalog database's copies'; they are looked up there. */
    @Test
    void queriesAboutTypesGoToTheCatalogDatabase() {
        assertTrue(answers("SELECT t.oid, t.typname FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace"), "types");
        assertTrue(answers("SELECT t.typname, t.typtype, t.typelem, r.rngsubtype, t.typbasetype, n.nspname, t.typrelid"
                + " FROM pg_catalog.pg_type t LEFT OUTER JOIN pg_catalog.pg_range r ON r.rngtypid = t.oid"
                + " INNER JOIN pg_catalog.pg_namespace n ON t.typnamespace = n.oid WHERE t.oid = $1"), "tokio-postgres");
        assertTrue(answers("SELECT enumlabel FROM pg_catalog.pg_enum WHERE enumtypid = $1 ORDER BY enumsortorder"), "enum labels");
        assertFalse(answers("SELECT p.proname, t.typname FROM pg_catalog.pg_proc p, pg_catalog.pg_type t WHERE p.prorettype = t.oid"),
                "functions' types are the default data source's OIDs");
    }

    @Test
    void otherQueriesDoNot() {
        assertFalse(answers("SELECT p.proname FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace"),
                "functions");
        assertFalse(answers("SELECT proname, oidvectortypes(proargtypes) AS args, pg_get_userbyid(proowner) FROM pg_proc"
                + " INNER JOIN pg_namespace ns ON (pg_proc.pronamespace = ns.oid) LEFT JOIN pg_depend dep ON dep.objid = pg_proc.oid"
                + " AND dep.deptype = 'e' WHERE ns.nspname = $1 AND dep.objid IS NULL AND pg_proc.prokind = 'f'"),
                "functions with their dependencies (Flyway's clean): the catalog database holds no functions");
        assertFalse(answers("SELECT p.proname, d.description FROM pg_proc p LEFT JOIN pg_description d ON d.objoid = p.oid"),
                "functions with their comments");
        assertTrue(answers("SELECT c.relname, p.proname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid"
                + " JOIN pg_proc p ON p.oid = t.tgfoid"), "triggers of tables, with their functions: about tables");
        assertFalse(answers("SELECT name, setting FROM pg_settings"));
        assertFalse(answers("SELECT c.relname, o.order_id FROM pg_class c, t_order o"), "with a user table");
        assertFalse(answers("SELECT 1"));
        assertFalse(answers("SELECT * FROM t_order"));
        assertFalse(answers("DELETE FROM pg_class WHERE false"), "not a query");
    }
}
