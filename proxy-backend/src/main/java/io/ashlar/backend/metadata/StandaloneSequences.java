package io.ashlar.backend.metadata;

import io.ashlar.backend.datasource.BackendConnection;
import io.ashlar.backend.datasource.BackendDataSource;
import io.ashlar.backend.execute.TextRows;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The stand-alone sequences of a logical database: those no column owns (neither serial nor identity, nor {@code OWNED
 * BY}) and no extension made, in the user's schemas. Every data source has a copy of each, interleaved when made or
 * altered through the proxy ({@code io.ashlar.backend.session.ShardedSequences}): copy {@code i} of {@code n} of a
 * sequence of start {@code s} and increment {@code k} starts at {@code s + i*k} and goes by {@code n*k}. The catalog
 * database holds each once with the definition the client declared, derived back from the copies, so that
 * {@code information_schema.sequences}, {@code pg_sequences}, psql's {@code \ds} and pgjdbc's
 * {@code getTables(..., {"SEQUENCE"})} show it as PostgreSQL would (Hibernate's schema validation compares the
 * increment with its allocation size; Flyway's clean drops the sequences it lists).
 *
 * @see <a href="https://www.postgresql.org/docs/current/catalog-pg-sequence.html">pg_sequence</a>
 */
final class StandaloneSequences {

    /**
     * A sequence's definition: what {@code CREATE SEQUENCE} takes.
     *
     * @param type the data type as {@code format_type} prints it ({@code bigint}, {@code integer}, {@code smallint})
     */
    record Sequence(String schema, String name, String type, long start, long increment, long min, long max, long cache,
                    boolean cycle) {

        String qualifiedName() {
            return schema + "." + name;
        }

        /** The options of CREATE or ALTER SEQUENCE that give this definition, every one written out. */
        String options() {
            return "AS " + type + " INCREMENT BY " + increment + " MINVALUE " + min + " MAXVALUE " + max + " START WITH " + start
                    + " CACHE " + cache + (cycle ? " CYCLE" : " NO CYCLE");
        }

        private Sequence withStartAndIncrement(long newStart, long newIncrement) {
            return new Sequence(schema, name, type, newStart, newIncrement, min, max, cache, cycle);
        }
    }

    /**
     * A database's sequences in the user's schemas, whether a column or an extension owns each; read with only
     * pg_catalog on the search path. {@code pg_sequence} is PostgreSQL 10's.
     */
    private static final String SEQUENCES = "SELECT n.nspname, c.relname, format_type(q.seqtypid, NULL), q.seqstart,"
            + " q.seqincrement, q.seqmin, q.seqmax, q.seqcache, q.seqcycle, EXISTS (SELECT 1 FROM pg_depend d"
            + " WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype IN ('a', 'i', 'e'))"
            + " FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace JOIN pg_sequence q ON q.seqrelid = c.oid"
            + " WHERE c.relkind = 'S' AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_%'"
            + " ORDER BY 1, 2";

    /** A sequence as one database has it, and whether a column or an extension owns it there. */
    record Copy(Sequence definition, boolean owned) {
    }

    private StandaloneSequences() {
    }

    /**
     * The logical definitions of the stand-alone sequences of the data sources (in the logical database's order, which
     * numbers the copies).
     *
     * @throws SQLException when one of them cannot be read (down, or older than PostgreSQL 10): no copy could be told
     *         missing there from one not read
     */
    static List<Sequence> read(List<BackendDataSource> dataSources) throws SQLException {
        List<Map<String, Copy>> copies = new ArrayList<>(dataSources.size());
        for (BackendDataSource each : dataSources) {
            if (each.health().isDown()) {
                throw new SQLException("data source " + each.name() + " is down");
            }
            BackendConnection connection = each.borrow();
            try {
                copies.add(MetadataReader.qualified(connection, () -> copies(connection)));
            } finally {
                connection.release();
            }
        }
        return logical(copies);
    }

    /** A database's sequences of the user's schemas, by {@code schema.name}; none before PostgreSQL 10. */
    static Map<String, Copy> copies(BackendConnection connection) throws SQLException {
        Map<String, Copy> result = new LinkedHashMap<>();
        if (Integer.parseInt(TextRows.query(connection, "SELECT current_setting('server_version_num')").get(0)[0]) < 100000) {
            throw new SQLException("pg_sequence is PostgreSQL 10's");
        }
        for (String[] row : TextRows.query(connection, SEQUENCES)) {
            Sequence sequence = new Sequence(row[0], row[1], row[2], Long.parseLong(row[3]), Long.parseLong(row[4]),
                    Long.parseLong(row[5]), Long.parseLong(row[6]), Long.parseLong(row[7]), row[8].equals("t"));
            result.put(sequence.qualifiedName(), new Copy(sequence, row[9].equals("t")));
        }
        return result;
    }

    /**
     * The logical sequences of the copies each data source has: a sequence owned on any data source is its table's (a
     * sequence OWNED BY a sharded table's column is owned by NONE where no actual table is) and is left out. Copies
     * interleaved over every data source give the first copy's start and their increment divided by their number;
     * otherwise (alike, made behind the proxy's back, or one data source) the first copy is the definition.
     */
    static List<Sequence> logical(List<Map<String, Copy>> copies) {
        Set<String> owned = new HashSet<>();
        Map<String, List<Sequence>> byName = new LinkedHashMap<>();
        for (Map<String, Copy> dataSource : copies) {
            for (Map.Entry<String, Copy> each : dataSource.entrySet()) {
                if (each.getValue().owned()) {
                    owned.add(each.getKey());
                }
                byName.computeIfAbsent(each.getKey(), key -> new ArrayList<>(copies.size())).add(each.getValue().definition());
            }
        }
        List<Sequence> result = new ArrayList<>(byName.size());
        for (Map.Entry<String, List<Sequence>> each : byName.entrySet()) {
            if (owned.contains(each.getKey())) {
                continue;
            }
            List<Sequence> found = each.getValue();
            Sequence first = found.get(0);
            result.add(found.size() == copies.size() && interleaved(found)
                    ? first.withStartAndIncrement(first.start(), first.increment() / found.size()) : first);
        }
        return result;
    }

    /** Whether copies {@code 0..n-1} are interleaved: one increment {@code n*k}, copy {@code i} starting at the first's {@code + i*k}. */
    private static boolean interleaved(List<Sequence> copies) {
        int count = copies.size();
        Sequence first = copies.get(0);
        if (count < 2 || first.increment() % count != 0) {
            return false;
        }
        long k = first.increment() / count;
        for (int i = 1; i < count; i++) {
            Sequence copy = copies.get(i);
            if (copy.increment() != first.increment() || copy.start() != first.start() + i * k) {
                return false;
            }
        }
        return true;
    }
}
