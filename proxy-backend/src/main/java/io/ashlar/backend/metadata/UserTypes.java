package io.ashlar.backend.metadata;

import io.ashlar.backend.datasource.BackendConnection;
import io.ashlar.backend.execute.TextRows;
import io.ashlar.rewrite.template.Identifiers;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The user's own types (enums, domains, composite types) of a data source, made again in the catalog database before
 * the shells that use them: without them a logical table with a column of such a type had no shell, so it was missing
 * from {@code pg_class}, {@code information_schema} and psql's {@code \d}, and {@code 't_order'::regclass} failed.
 * Types an extension owns are left to the extension. A type the catalog database has already is kept as it is.
 */
final class UserTypes {

    /** A type's qualified name and the statement that makes it. */
    record Definition(String qualifiedName, String create) {
    }

    /** Enums first, then domains (over enums), then composite types (over both), each kind by name. */
    private static final String READ = """
            SELECT n.nspname, t.typname, t.typtype,
              CASE t.typtype
                WHEN 'e' THEN (SELECT string_agg(quote_literal(e.enumlabel), ', ' ORDER BY e.enumsortorder)
                               FROM pg_catalog.pg_enum e WHERE e.enumtypid = t.oid)
                WHEN 'd' THEN pg_catalog.format_type(t.typbasetype, t.typtypmod)
                              || CASE WHEN t.typnotnull THEN ' NOT NULL' ELSE '' END
                              || coalesce(' DEFAULT ' || t.typdefault, '')
                              || coalesce((SELECT string_agg(' CONSTRAINT ' || quote_ident(c.conname) || ' '
                                                             || pg_catalog.pg_get_constraintdef(c.oid), '' ORDER BY c.conname)
                                           FROM pg_catalog.pg_constraint c WHERE c.contypid = t.oid), '')
                ELSE (SELECT string_agg(quote_ident(a.attname) || ' ' || pg_catalog.format_type(a.atttypid, a.atttypmod),
                                        ', ' ORDER BY a.attnum)
                      FROM pg_catalog.pg_attribute a WHERE a.attrelid = t.typrelid AND a.attnum > 0 AND NOT a.attisdropped)
              END
            FROM pg_catalog.pg_type t JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace
            WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_toast%'
              AND n.nspname NOT LIKE 'pg\\_temp%'
              AND (t.typtype IN ('e', 'd')
                   OR (t.typtype = 'c' AND (SELECT c.relkind FROM pg_catalog.pg_class c WHERE c.oid = t.typrelid) = 'c'))
              AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_depend d WHERE d.classid = 'pg_catalog.pg_type'::pg_catalog.regclass
                              AND d.objid = t.oid AND d.deptype = 'e')
            ORDER BY CASE t.typtype WHEN 'e' THEN 0 WHEN 'd' THEN 1 ELSE 2 END, n.nspname, t.typname""";

    private static final String PRESENT = """
            SELECT n.nspname, t.typname FROM pg_catalog.pg_type t JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace
            WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') AND t.typtype IN ('e', 'd', 'c')""";

    private UserTypes() {
    }

    /** The user's types of a data source, in an order that makes each after those it uses (but composites of composites). */
    static List<Definition> read(BackendConnection source) throws SQLException {
        List<String[]> rows = MetadataReader.qualified(source, () -> TextRows.query(source, READ));
        List<Definition> result = new ArrayList<>();
        for (String[] row : rows) {
            if (row[3] == null) {
                continue;
            }
            String name = Identifiers.write(row[0], false) + "." + Identifiers.write(row[1], false);
            String create = switch (row[2]) {
                case "e" -> "CREATE TYPE " + name + " AS ENUM (" + row[3] + ")";
                case "d" -> "CREATE DOMAIN " + name + " AS " + row[3];
                default -> "CREATE TYPE " + name + " AS (" + row[3] + ")";
            };
            result.add(new Definition(row[0] + "." + row[1], create));
        }
        return result;
    }

    /** The statements that make in the catalog database those of {@code types} it does not have. */
    static List<String> missing(BackendConnection catalog, List<Definition> types) throws SQLException {
        if (types.isEmpty()) {
            return List.of();
        }
        Set<String> present = new HashSet<>();
        for (String[] row : TextRows.query(catalog, PRESENT)) {
            present.add(row[0] + "." + row[1]);
        }
        List<String> result = new ArrayList<>();
        for (Definition each : types) {
            if (!present.contains(each.qualifiedName())) {
                result.add(each.create());
            }
        }
        return result;
    }
}
