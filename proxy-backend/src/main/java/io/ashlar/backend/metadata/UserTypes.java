package io.ashlar.backend.metadata;

import io.ashlar.backend.datasource.BackendConnection;
import io.ashlar.backend.execute.TextRows;
import io.ashlar.parser.SqlText;
import io.ashlar.rewrite.template.Identifiers;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The user's own types of a data source (enums, domains, range types, composite types) and its extensions, made again
 * in the catalog database, before the shells that use them. Clients look types up there: results are described in the
 * catalog database's OIDs ({@link io.ashlar.backend.datasource.TypeOidMap}) and the queries that read
 * {@code pg_type} go there ({@link CatalogQueries}). Without them a logical table with a column of such a type had no
 * shell, so it was missing from {@code pg_class}, {@code information_schema} and psql's {@code \d}, and
 * {@code 't_order'::regclass} failed. A type the catalog database has already is kept as it is, but for the labels
 * an enum gained since ({@code ALTER TYPE ... ADD VALUE}), which are added in their places.
 */
final class UserTypes {

    /**
     * A type or an extension of the data source.
     *
     * @param qualifiedName {@code schema.name} of a type; {@code extension name} of an extension
     * @param create the statement that makes it
     * @param labels an enum's labels in their order; empty for the rest
     */
    record Definition(String qualifiedName, String create, List<String> labels) {
    }

    private static final String EXTENSION = "extension ";

    /** Enums first, then domains (over enums), range types, then composite types (over all), each kind by name. */
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
                WHEN 'r' THEN (SELECT 'SUBTYPE = ' || pg_catalog.format_type(r.rngsubtype, NULL)
                                      || CASE WHEN r.rngsubdiff <> 0 AND p.pronamespace = (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = 'pg_catalog')
                                              THEN ', SUBTYPE_DIFF = ' || r.rngsubdiff::pg_catalog.regproc ELSE '' END
                               FROM pg_catalog.pg_range r LEFT JOIN pg_catalog.pg_proc p ON p.oid = r.rngsubdiff
                               WHERE r.rngtypid = t.oid)
                ELSE (SELECT string_agg(quote_ident(a.attname) || ' ' || pg_catalog.format_type(a.atttypid, a.atttypmod),
                                        ', ' ORDER BY a.attnum)
                      FROM pg_catalog.pg_attribute a WHERE a.attrelid = t.typrelid AND a.attnum > 0 AND NOT a.attisdropped)
              END
            FROM pg_catalog.pg_type t JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace
            WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_toast%'
              AND n.nspname NOT LIKE 'pg\\_temp%'
              AND (t.typtype IN ('e', 'd', 'r')
                   OR (t.typtype = 'c' AND (SELECT c.relkind FROM pg_catalog.pg_class c WHERE c.oid = t.typrelid) = 'c'))
              AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_depend d WHERE d.classid = 'pg_catalog.pg_type'::pg_catalog.regclass
                              AND d.objid = t.oid AND d.deptype = 'e')
            ORDER BY CASE t.typtype WHEN 'e' THEN 0 WHEN 'd' THEN 1 WHEN 'r' THEN 2 ELSE 3 END, n.nspname, t.typname""";

    /** Every enum label, one row each, in each enum's order. */
    private static final String LABELS = """
            SELECT n.nspname, t.typname, e.enumlabel FROM pg_catalog.pg_enum e
              JOIN pg_catalog.pg_type t ON t.oid = e.enumtypid JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace
            ORDER BY 1, 2, e.enumsortorder""";

    /** The extensions (but PL/pgSQL, which every database has), with the schema of their objects. */
    private static final String EXTENSIONS = """
            SELECT e.extname, n.nspname FROM pg_catalog.pg_extension e JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace
            WHERE e.extname <> 'plpgsql' ORDER BY e.extname""";

    private static final String PRESENT = """
            SELECT n.nspname, t.typname FROM pg_catalog.pg_type t JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace
            WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') AND t.typtype IN ('e', 'd', 'r', 'c')
            UNION ALL SELECT 'extension', extname FROM pg_catalog.pg_extension""";

    private UserTypes() {
    }

    /**
     * The extensions and user's types of a data source, in an order that makes each after those it uses (extensions
     * first; but composites of composites).
     */
    static List<Definition> read(BackendConnection source) throws SQLException {
        List<Definition> result = new ArrayList<>();
        Map<String, List<String>> labels = new HashMap<>();
        List<String[]> types = MetadataReader.qualified(source, () -> {
            for (String[] row : TextRows.query(source, EXTENSIONS)) {
                String schema = Identifiers.write(row[1], false);
                result.add(new Definition(EXTENSION + row[0], "CREATE SCHEMA IF NOT EXISTS " + schema
                        + "; CREATE EXTENSION IF NOT EXISTS " + Identifiers.write(row[0], false) + " WITH SCHEMA " + schema + " CASCADE",
                        List.of()));
            }
            for (String[] row : TextRows.query(source, LABELS)) {
                labels.computeIfAbsent(row[0] + "." + row[1], k -> new ArrayList<>()).add(row[2]);
            }
            return TextRows.query(source, READ);
        });
        for (String[] row : types) {
            if (row[3] == null) {
                continue;
            }
            String name = Identifiers.write(row[0], false) + "." + Identifiers.write(row[1], false);
            String qualifiedName = row[0] + "." + row[1];
            String create = switch (row[2]) {
                case "e" -> "CREATE TYPE " + name + " AS ENUM (" + row[3] + ")";
                case "d" -> "CREATE DOMAIN " + name + " AS " + row[3];
                case "r" -> "CREATE TYPE " + name + " AS RANGE (" + row[3] + ")";
                default -> "CREATE TYPE " + name + " AS (" + row[3] + ")";
            };
            result.add(new Definition(qualifiedName, create, row[2].equals("e")
                    ? List.copyOf(labels.getOrDefault(qualifiedName, List.of())) : List.of()));
        }
        return result;
    }

    /**
     * The statements that make in the catalog database those of {@code types} it does not have, and add to its enums
     * the labels they gained since they were made there (in their places; an enum whose labels were renamed or
     * reordered is left as it is, and logged by the statement that fails).
     */
    static List<String> missing(BackendConnection catalog, List<Definition> types) throws SQLException {
        if (types.isEmpty()) {
            return List.of();
        }
        Set<String> present = new HashSet<>();
        for (String[] row : TextRows.query(catalog, PRESENT)) {
            present.add(row[0] + (row[0].equals("extension") ? " " : ".") + row[1]);
        }
        Map<String, List<String>> labels = new HashMap<>();
        for (String[] row : TextRows.query(catalog, LABELS)) {
            labels.computeIfAbsent(row[0] + "." + row[1], k -> new ArrayList<>()).add(row[2]);
        }
        List<String> result = new ArrayList<>();
        for (Definition each : types) {
            if (!present.contains(each.qualifiedName())) {
                result.add(each.create());
            } else if (!each.labels().isEmpty()) {
                addedLabels(each, labels.getOrDefault(each.qualifiedName(), List.of()), result);
            }
        }
        return result;
    }

    /** {@code ALTER TYPE ... ADD VALUE} for each label of {@code type} the catalog's copy lacks, next to its neighbour. */
    private static void addedLabels(Definition type, List<String> copied, List<String> statements) {
        List<String> wanted = type.labels();
        if (copied.size() >= wanted.size()) {
            return;
        }
        String name = type.create().substring("CREATE TYPE ".length(), type.create().indexOf(" AS ENUM ("));
        String previous = null;
        for (int i = 0; i < wanted.size(); i++) {
            String label = wanted.get(i);
            if (!copied.contains(label)) {
                String place = "";
                if (previous != null) {
                    place = " AFTER " + SqlText.literal(previous);
                } else {
                    for (int j = i + 1; j < wanted.size() && place.isEmpty(); j++) {
                        if (copied.contains(wanted.get(j))) {
                            place = " BEFORE " + SqlText.literal(wanted.get(j));
                        }
                    }
                }
                statements.add("ALTER TYPE " + name + " ADD VALUE IF NOT EXISTS " + SqlText.literal(label) + place);
            }
            previous = label;
        }
    }
}
