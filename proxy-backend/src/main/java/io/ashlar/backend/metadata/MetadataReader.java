package io.ashlar.backend.metadata;

import io.ashlar.parser.SqlText;
import io.ashlar.backend.datasource.BackendConnection;
import io.ashlar.backend.execute.TextRows;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads table definitions from one backend database's catalog: columns, constraints, indexes, owned sequences and
 * comments, for every table of the user's schemas or for the tables named. Five queries in one transaction whose
 * {@code search_path} is {@code pg_catalog} alone, so that every relation the catalog functions print is
 * schema-qualified and the text is the same whatever the connection's settings.
 *
 * @see <a href="https://www.postgresql.org/docs/current/functions-info.html#FUNCTIONS-INFO-CATALOG">System Catalog Information Functions</a>
 */
final class MetadataReader {

    private static final String USER_SCHEMAS = "n.nspname NOT IN ('pg_catalog', 'information_schema')"
            + " AND n.nspname NOT LIKE 'pg\\_%'";

    private MetadataReader() {
    }

    /**
     * The tables of a database, by {@code schema.name}.
     *
     * @param names the {@code schema.name}s to read; null for every table of the user's schemas
     */
    static Map<String, PhysicalTable> read(BackendConnection connection, Collection<String> names) throws SQLException {
        return qualified(connection, () -> read(connection, names, version(connection)));
    }

    /**
     * The tables of a database as a connection in a transaction sees them (the tables its transaction made, uncommitted,
     * too): read in a savepoint, rolled back after, so that the transaction is as it was.
     */
    static Map<String, PhysicalTable> readInTransaction(BackendConnection connection, Collection<String> names) throws SQLException {
        TextRows.run(connection, "SAVEPOINT ashlar_metadata; SET LOCAL search_path TO pg_catalog");
        try {
            return read(connection, names, version(connection));
        } finally {
            // Rolled back, not released: SET LOCAL would last to the end of the transaction.
            TextRows.run(connection, "ROLLBACK TO SAVEPOINT ashlar_metadata; RELEASE SAVEPOINT ashlar_metadata");
        }
    }

    /** What reads the catalogs. */
    interface Reading<T> {
        T read() throws SQLException;
    }

    /**
     * Reads in a read-only transaction whose {@code search_path} is {@code pg_catalog} alone, so that every name the
     * catalog functions print ({@code format_type}, {@code pg_get_constraintdef}, ...) is written with its schema.
     */
    static <T> T qualified(BackendConnection connection, Reading<T> reading) throws SQLException {
        TextRows.run(connection, "BEGIN READ ONLY; SET LOCAL search_path TO pg_catalog");
        try {
            T result = reading.read();
            TextRows.run(connection, "COMMIT");
            return result;
        } catch (SQLException | RuntimeException e) {
            TextRows.run(connection, "ROLLBACK");
            throw e;
        }
    }

    private static int version(BackendConnection connection) throws SQLException {
        return Integer.parseInt(TextRows.query(connection, "SELECT current_setting('server_version_num')").get(0)[0]);
    }

    private static Map<String, PhysicalTable> read(BackendConnection connection, Collection<String> names, int version)
            throws SQLException {
        String filter = "";
        if (names != null) {
            if (names.isEmpty()) {
                return Map.of();
            }
            StringBuilder list = new StringBuilder();
            for (String each : names) {
                list.append(list.isEmpty() ? "" : ", ").append(SqlText.literal(each));
            }
            filter = " AND n.nspname || '.' || c.relname IN (" + list + ")";
        }
        List<String[]> tables = TextRows.query(connection, "SELECT c.oid, n.nspname, c.relname, c.relpersistence,"
                + " coalesce(obj_description(c.oid, 'pg_class'), '') FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
                + " WHERE c.relkind IN ('r', 'p') AND " + USER_SCHEMAS + filter + " ORDER BY 2, 3");
        if (tables.isEmpty()) {
            return Map.of();
        }
        StringBuilder oids = new StringBuilder("'{");
        for (int i = 0; i < tables.size(); i++) {
            oids.append(i == 0 ? "" : ",").append(tables.get(i)[0]);
        }
        String oidArray = oids.append("}'::oid[]").toString();
        Map<String, Builder> byOid = new LinkedHashMap<>();
        for (String[] row : tables) {
            byOid.put(row[0], new Builder(Integer.parseInt(row[0]), row[1], row[2], row[3].equals("u"), row[4]));
        }
        String identity = version >= 100000 ? "a.attidentity::text" : "''";
        String generated = version >= 120000 ? "CASE WHEN a.attgenerated = 's' THEN 's' ELSE '' END" : "''";
        for (String[] row : TextRows.query(connection, "SELECT a.attrelid, a.attnum, a.attname,"
                + " format_type(a.atttypid, a.atttypmod), a.attnotnull, coalesce(pg_get_expr(d.adbin, d.adrelid), ''),"
                + " " + identity + ", " + generated + ","
                + " CASE WHEN a.attcollation <> t.typcollation AND a.attcollation <> 0 THEN quote_ident(co.collname) ELSE '' END,"
                + " coalesce(col_description(a.attrelid, a.attnum), '')"
                + " FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid"
                + " LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum"
                + " LEFT JOIN pg_collation co ON co.oid = a.attcollation"
                + " WHERE a.attrelid = ANY (" + oidArray + ") AND a.attnum > 0 AND NOT a.attisdropped ORDER BY 1, 2")) {
            Builder table = byOid.get(row[0]);
            boolean isGenerated = !row[7].isEmpty();
            table.attnums.add(Short.parseShort(row[1]));
            table.columns.add(new ColumnMetadata(row[2], row[3], row[4].equals("t"), isGenerated ? "" : row[5],
                    row[6], isGenerated ? row[5] : "", row[8], row[9]));
        }
        for (String[] row : TextRows.query(connection, "SELECT conrelid, conname, contype, pg_get_constraintdef(oid, true)"
                + " FROM pg_constraint WHERE conrelid = ANY (" + oidArray + ") AND contype IN ('p', 'u', 'c', 'x', 'f')"
                + " ORDER BY 1, 2")) {
            String enforced = row[2].equals("c") ? ProxyForeignKey.fromPlaceholder(row[3]) : "";
            byOid.get(row[0]).constraints.add(enforced.isEmpty() ? new ConstraintMetadata(row[1], row[2].charAt(0), row[3])
                    : new ConstraintMetadata(row[1], 'f', enforced, true));
        }
        for (String[] row : TextRows.query(connection, "SELECT i.indrelid, ic.relname, pg_get_indexdef(i.indexrelid),"
                + " coalesce(obj_description(i.indexrelid, 'pg_class'), '')"
                + " FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid WHERE i.indrelid = ANY (" + oidArray + ")"
                + " AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid AND k.conrelid = i.indrelid"
                + " AND k.contype IN ('p', 'u', 'x')) ORDER BY 1, 2")) {
            byOid.get(row[0]).indexes.add(new IndexMetadata(row[1], row[2], row[3]));
        }
        String options = version >= 100000
                ? "'AS ' || format_type(q.seqtypid, NULL) || ' INCREMENT BY ' || q.seqincrement || ' MINVALUE ' || q.seqmin"
                        + " || ' MAXVALUE ' || q.seqmax || ' START WITH ' || q.seqstart || ' CACHE ' || q.seqcache"
                        + " || CASE WHEN q.seqcycle THEN ' CYCLE' ELSE ' NO CYCLE' END"
                : "''";
        String sequenceJoin = version >= 100000 ? " JOIN pg_sequence q ON q.seqrelid = s.oid" : "";
        for (String[] row : TextRows.query(connection, "SELECT d.refobjid, s.relname, a.attname, " + options
                + " FROM pg_depend d JOIN pg_class s ON s.oid = d.objid AND s.relkind = 'S'" + sequenceJoin
                + " JOIN pg_attribute a ON a.attrelid = d.refobjid AND a.attnum = d.refobjsubid"
                + " WHERE d.classid = 'pg_class'::regclass AND d.refclassid = 'pg_class'::regclass AND d.deptype = 'a'"
                + " AND d.refobjid = ANY (" + oidArray + ") ORDER BY 1, 2")) {
            byOid.get(row[0]).sequences.add(new SequenceMetadata(row[1], row[2], row[3]));
        }
        Map<String, PhysicalTable> result = new LinkedHashMap<>();
        for (Builder each : byOid.values()) {
            PhysicalTable table = each.build();
            result.put(table.metadata().qualifiedName(), table);
        }
        return result;
    }

    /** The user's schemas of a database ({@code public} and those made since), by name. */
    static List<String> schemas(BackendConnection connection) throws SQLException {
        List<String> result = new ArrayList<>();
        for (String[] row : TextRows.query(connection, "SELECT n.nspname FROM pg_catalog.pg_namespace n WHERE "
                + USER_SCHEMAS + " ORDER BY 1")) {
            result.add(row[0]);
        }
        return result;
    }

    private static final class Builder {
        final int oid;
        final String schema;
        final String name;
        final boolean unlogged;
        final String comment;
        final List<ColumnMetadata> columns = new ArrayList<>();
        final List<Short> attnums = new ArrayList<>();
        final List<ConstraintMetadata> constraints = new ArrayList<>();
        final List<IndexMetadata> indexes = new ArrayList<>();
        final List<SequenceMetadata> sequences = new ArrayList<>();

        Builder(int oid, String schema, String name, boolean unlogged, String comment) {
            this.oid = oid;
            this.schema = schema;
            this.name = name;
            this.unlogged = unlogged;
            this.comment = comment;
        }

        PhysicalTable build() {
            short[] numbers = new short[attnums.size()];
            for (int i = 0; i < numbers.length; i++) {
                numbers[i] = attnums.get(i);
            }
            return new PhysicalTable(oid, new TableMetadata(schema, name, unlogged, columns, constraints, indexes,
                    sequences, comment), numbers);
        }
    }
}
