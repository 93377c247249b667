package io.ashlar.backend.metadata;

import io.ashlar.parser.SqlText;
import io.ashlar.backend.config.DataSourceConfig;
import io.ashlar.backend.datasource.BackendConnection;
import io.ashlar.backend.datasource.BackendDataSource;
import io.ashlar.backend.execute.TextRows;
import io.ashlar.rewrite.template.Identifiers;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The catalog database of a logical database: a database of its own on the default data source's server, named
 * as the logical database, holding one empty table per logical table (its <em>shell</em>) with the logical table's
 * columns, constraints, indexes, sequences and comments, and each stand-alone sequence of the logical database with
 * the definition its client declared ({@link StandaloneSequences}), kept in step with the logical schema. Catalog queries go
 * there, and PostgreSQL answers them with its own semantics: psql's {@code \d}, pgjdbc's DatabaseMetaData,
 * information_schema and SQLAlchemy's inspector see each logical table once, under its name, as on one database
 * (Citus keeps shell tables on its coordinator for the same reason).
 *
 * <p>Ashlar makes the database when it is missing ({@code CREATE DATABASE}, which needs the CREATEDB privilege) and
 * marks it with a comment; a database of that name without the mark is left alone, and
 * {@code ashlar_catalog_<name>} is used instead. Shells are compared with the definitions they should have and
 * remade when they differ; nothing else in the database is touched but tables and sequences Ashlar made.
 */
final class CatalogDatabase implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(CatalogDatabase.class);
    private static final String MARK = "Ashlar catalog of logical database ";

    private final String name;
    private final BackendDataSource dataSource;

    private CatalogDatabase(String name, BackendDataSource dataSource) {
        this.name = name;
        this.dataSource = dataSource;
    }

    /**
     * The catalog database of {@code logicalDatabase} on {@code server}'s server, made when missing; null when there
     * can be none (no privilege to make it, names taken), with the reason logged.
     */
    static CatalogDatabase open(String logicalDatabase, BackendDataSource server) {
        String mark = MARK + logicalDatabase;
        try {
            BackendConnection connection = server.borrow();
            try {
                for (String candidate : List.of(logicalDatabase, "ashlar_catalog_" + logicalDatabase)) {
                    List<String[]> found = TextRows.query(connection, "SELECT coalesce(shobj_description(oid, 'pg_database'), '')"
                            + " FROM pg_catalog.pg_database WHERE datname = " + SqlText.literal(candidate));
                    if (found.isEmpty()) {
                        String[] locale = TextRows.query(connection, "SELECT datcollate, datctype FROM pg_catalog.pg_database"
                                + " WHERE datname = current_database()").get(0);
                        String quoted = Identifiers.write(candidate, false);
                        TextRows.run(connection, "CREATE DATABASE " + quoted + " TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE "
                                + SqlText.literal(locale[0]) + " LC_CTYPE " + SqlText.literal(locale[1]));
                        TextRows.run(connection, "COMMENT ON DATABASE " + quoted + " IS " + SqlText.literal(mark));
                        LOG.info("logical database {}: made its catalog database {} on data source {}", logicalDatabase,
                                candidate, server.name());
                    } else if (!found.get(0)[0].equals(mark)) {
                        LOG.info("logical database {}: database {} exists on data source {} and is not Ashlar's catalog",
                                logicalDatabase, candidate, server.name());
                        continue;
                    }
                    DataSourceConfig config = server.config();
                    DataSourceConfig catalog = new DataSourceConfig(server.name() + "/" + candidate, url(config.url(), candidate),
                            config.username(), config.password(), config.connectionTimeoutMilliseconds(),
                            config.idleTimeoutMilliseconds(), config.maxLifetimeMilliseconds(), config.maxPoolSize(),
                            Math.min(1, config.minPoolSize()), config.driverProperties(), config.healthCheckIntervalMilliseconds(),
                            config.healthCheckTimeoutMilliseconds(), config.tcpKeepaliveSeconds());
                    return new CatalogDatabase(candidate, BackendDataSource.open(catalog));
                }
                LOG.warn("logical database {}: no catalog database (the names are taken); catalog queries go to data source {}",
                        logicalDatabase, server.name());
                return null;
            } finally {
                connection.release();
            }
        } catch (SQLException | RuntimeException e) {
            LOG.warn("logical database {}: no catalog database ({}); catalog queries go to data source {}",
                    logicalDatabase, e.getMessage(), server.name());
            return null;
        }
    }

    /** A JDBC URL with another database. */
    static String url(String url, String database) {
        int scheme = url.indexOf("://");
        int query = url.indexOf('?', scheme + 3);
        String head = query < 0 ? url : url.substring(0, query);
        int slash = head.indexOf('/', scheme + 3);
        String hosts = slash < 0 ? head : head.substring(0, slash);
        return hosts + "/" + URLEncoder.encode(database, StandardCharsets.UTF_8).replace("+", "%20")
                + (query < 0 ? "" : url.substring(query));
    }

    String name() {
        return name;
    }

    BackendDataSource dataSource() {
        return dataSource;
    }

    /**
     * Makes the shells agree with the logical tables: shells of {@code scope} (null: all) that differ or are not
     * wanted are dropped, missing ones made; then every wanted foreign key between shells is put back (dropping a
     * shell drops those that reference it).
     *
     * @param wanted every logical table, by {@code schema.name}
     * @param schemas the user's schemas the catalog is to have (tables' schemas are made with them), or null to
     *        leave its schemas as they are; the others are dropped when empty
     * @param types the user's types and extensions the shells may use: those the catalog lacks are made ({@link UserTypes})
     * @return the OID of every shell, by {@code schema.name}
     */
    Map<String, Integer> sync(Map<String, LogicalTable> wanted, Collection<String> scope, List<String> schemas,
                              List<UserTypes.Definition> types) throws SQLException {
        BackendConnection connection = dataSource.borrow();
        try {
            Map<String, PhysicalTable> shells = MetadataReader.read(connection, scope);
            List<String> statements = new ArrayList<>();
            List<String> made = new ArrayList<>();
            boolean dropsShells = false;
            if (schemas != null) {
                List<String> present = MetadataReader.schemas(connection);
                for (String each : schemas) {
                    if (!present.contains(each)) {
                        statements.add("CREATE SCHEMA " + Identifiers.write(each, false));
                    }
                }
            }
            statements.addAll(UserTypes.missing(connection, types));
            for (Map.Entry<String, PhysicalTable> each : shells.entrySet()) {
                LogicalTable table = wanted.get(each.getKey());
                if (table == null || !ShellStatements.withoutForeignKeys(table.metadata())
                        .equals(ShellStatements.withoutForeignKeys(each.getValue().metadata()))) {
                    statements.add("DROP TABLE " + ShellStatements.qualified(each.getValue().metadata().schema(),
                            each.getValue().metadata().name()) + " CASCADE");
                    dropsShells = true;
                }
            }
            if (schemas != null) {
                for (String each : MetadataReader.schemas(connection)) {
                    if (!schemas.contains(each) && !each.equals(SchemaLoader.PUBLIC)) {
                        statements.add("DROP SCHEMA " + Identifiers.write(each, false)); // fails, and stays, when not empty
                    }
                }
            }
            for (LogicalTable each : wanted.values()) {
                if (scope != null && !scope.contains(each.qualifiedName())) {
                    continue;
                }
                PhysicalTable shell = shells.get(each.qualifiedName());
                if (shell == null || !ShellStatements.withoutForeignKeys(each.metadata())
                        .equals(ShellStatements.withoutForeignKeys(shell.metadata()))) {
                    made.add(each.qualifiedName());
                }
            }
            run(connection, statements, wanted, made, dropsShells);
            Map<String, PhysicalTable> now = MetadataReader.read(connection, null);
            List<String> keys = new ArrayList<>();
            for (LogicalTable each : wanted.values()) {
                PhysicalTable shell = now.get(each.qualifiedName());
                if (shell == null) {
                    continue;
                }
                for (ConstraintMetadata key : each.metadata().constraints()) {
                    if (key.isForeignKey() && !hasKey(shell.metadata(), key)) {
                        keys.add(ShellStatements.addConstraint(each.metadata(), key));
                    }
                }
                for (ConstraintMetadata key : shell.metadata().constraints()) {
                    if (key.isForeignKey() && !hasKey(each.metadata(), key)) {
                        keys.add("ALTER TABLE " + ShellStatements.qualified(each.metadata().schema(), each.metadata().name())
                                + " DROP CONSTRAINT IF EXISTS " + Identifiers.write(key.name(), false));
                    }
                }
            }
            if (!keys.isEmpty()) {
                run(connection, keys, wanted, List.of(), false);
            }
            Map<String, Integer> result = new HashMap<>();
            for (Map.Entry<String, PhysicalTable> each : now.entrySet()) {
                result.put(each.getKey(), each.getValue().oid());
            }
            return result;
        } finally {
            connection.release();
        }
    }

    /** Makes the types and extensions of {@code types} the catalog lacks, and adds the labels its enums lack. */
    void syncTypes(List<UserTypes.Definition> types) throws SQLException {
        BackendConnection connection = dataSource.borrow();
        try {
            List<String> statements = UserTypes.missing(connection, types);
            if (!statements.isEmpty()) {
                run(connection, statements, Map.of(), List.of(), false);
            }
        } finally {
            connection.release();
        }
    }

    /** Whether the table has the foreign key (one the proxy enforces is a plain foreign key on its shell). */
    private static boolean hasKey(TableMetadata table, ConstraintMetadata key) {
        for (ConstraintMetadata each : table.constraints()) {
            if (each.kind() == key.kind() && each.name().equals(key.name()) && each.definition().equals(key.definition())) {
                return true;
            }
        }
        return false;
    }

    /** Runs statements, then makes the shells {@code made}, in one transaction; a statement that fails is logged and skipped. */
    /**
     * Runs the statements, then makes the shells {@code made}, in one transaction of the catalog database; with
     * {@code keepViews} (shells are dropped, and their views with them), the views the catalog had are made again
     * after. Only then: reading a view's definition waits for its lock, which a session's transaction holds while
     * its DDL of the view is not committed, and such a session may be the one that asked for the refresh.
     */
    private void run(BackendConnection connection, List<String> statements, Map<String, LogicalTable> wanted, List<String> made,
                     boolean keepViews) throws SQLException {
        inTransaction(connection, "10s", () -> {
            List<View> views = keepViews ? readViews(connection) : null;
            if (keepViews || !made.isEmpty()) {
                leftOutViews = List.of(); // a view left out for want of a shell may be made now
            }
            for (String each : statements) {
                runOne(connection, each);
            }
            for (String each : made) {
                List<String> shell = ShellStatements.create(wanted.get(each).metadata());
                if (!runOne(connection, shell.get(0))) {
                    continue; // without its table, its sequences made first go with the transaction's savepoint
                }
                for (String statement : shell.subList(1, shell.size())) {
                    runOne(connection, statement);
                }
            }
            dropUnusedSequences(connection);
            if (views != null) {
                syncViews(connection, views);
            }
            return null;
        });
    }

    /** Work on a database that must not half happen. */
    private interface Work<T> {
        T run() throws SQLException;
    }

    /**
     * Runs {@code work} in one transaction of {@code connection}, with only pg_catalog on the search path (every name
     * the work reads or writes is qualified) and waiting at most {@code lockTimeout} for a lock; committed when it
     * returns, rolled back when it throws.
     */
    private static <T> T inTransaction(BackendConnection connection, String lockTimeout, Work<T> work) throws SQLException {
        TextRows.run(connection, "BEGIN; SET LOCAL search_path TO pg_catalog; SET LOCAL lock_timeout TO '" + lockTimeout + "'");
        boolean committed = false;
        try {
            T result = work.run();
            TextRows.run(connection, "COMMIT");
            committed = true;
            return result;
        } finally {
            if (!committed && connection.status() != 'I') {
                TextRows.run(connection, "ROLLBACK");
            }
        }
    }

    /**
     * Drops the sequences neither a shell uses nor the logical database has stand-alone ({@link #standalone}): one
     * a column's default called nextval of ({@link ShellStatements#referencedSequences}) stayed when its table was
     * dropped, and one dropped through the proxy or behind its back stayed too; tools then found the schema not
     * empty (Flyway's migrate after its clean) and listed a sequence the data sources no longer have. While the
     * stand-alone sequences are not known (a data source could not be read), every sequence no shell uses goes: they
     * are made again once they are read.
     */
    private void dropUnusedSequences(BackendConnection connection) throws SQLException {
        Set<String> kept = standalone == null ? Set.of() : standalone;
        List<String[]> unused = TextRows.query(connection, "SELECT c.oid::pg_catalog.regclass::pg_catalog.text,"
                + " n.nspname || '.' || c.relname FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace"
                + " WHERE c.relkind = 'S' AND c.relpersistence <> 't' AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_depend d WHERE d.classid ="
                + " 'pg_catalog.pg_class'::pg_catalog.regclass AND d.objid = c.oid AND d.deptype IN ('a', 'i', 'e'))"
                + " AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_depend d WHERE d.refclassid = 'pg_catalog.pg_class'::pg_catalog.regclass"
                + " AND d.refobjid = c.oid AND d.classid = 'pg_catalog.pg_attrdef'::pg_catalog.regclass)");
        for (String[] each : unused) {
            if (!kept.contains(each[1])) {
                runOne(connection, "DROP SEQUENCE " + each[0]);
            }
        }
    }

    /**
     * The stand-alone sequences of the logical database ({@code schema.name}) as last read from the data sources, or
     * null before they could be read.
     */
    private volatile Set<String> standalone;

    /**
     * Makes the catalog's sequences agree with the logical database's stand-alone sequences ({@link StandaloneSequences}):
     * missing ones are made, those whose definition differs altered to it (one a shell's default uses may have been
     * made with the defaults), and those the logical database no longer has dropped when no shell uses them.
     */
    void syncSequences(List<StandaloneSequences.Sequence> wanted) throws SQLException {
        BackendConnection connection = dataSource.borrow();
        try {
            inTransaction(connection, "10s", () -> {
                Map<String, StandaloneSequences.Copy> present = StandaloneSequences.copies(connection);
                Set<String> names = new HashSet<>();
                for (StandaloneSequences.Sequence each : wanted) {
                    names.add(each.qualifiedName());
                    StandaloneSequences.Copy copy = present.get(each.qualifiedName());
                    String name = ShellStatements.qualified(each.schema(), each.name());
                    if (copy == null) {
                        String schema = each.schema().equals(SchemaLoader.PUBLIC) ? ""
                                : "CREATE SCHEMA IF NOT EXISTS " + Identifiers.write(each.schema(), false) + "; ";
                        runOne(connection, schema + "CREATE SEQUENCE " + name + " " + each.options());
                    } else if (!copy.definition().equals(each)) {
                        runOne(connection, "ALTER SEQUENCE " + name + " " + each.options());
                    }
                }
                standalone = Set.copyOf(names);
                dropUnusedSequences(connection);
                return null;
            });
        } finally {
            connection.release();
        }
    }

    /** A view: its schema, name and definition as {@code pg_get_viewdef} prints it with only pg_catalog on the search path. */
    record View(String schema, String name, String definition) {

        String qualified() {
            return ShellStatements.qualified(schema, name);
        }
    }

    /**
     * The views of the user's schemas, in the order they were made (a view's own views come after it), their
     * definitions with every name qualified, as read with only pg_catalog on the search path.
     */
    private static final String VIEWS = "SELECT n.nspname, c.relname, pg_get_viewdef(c.oid) FROM pg_class c"
            + " JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind = 'v' AND n.nspname <> 'information_schema'"
            + " AND n.nspname NOT LIKE 'pg\\_%' ORDER BY c.oid";

    /**
     * The views of a database's user schemas ({@link #VIEWS}), read in a transaction of their own that waits at most
     * a second for a view's lock (an open transaction's DDL of it holds one).
     */
    static List<View> views(BackendConnection connection) throws SQLException {
        return inTransaction(connection, "1s", () -> readViews(connection));
    }

    private static List<View> readViews(BackendConnection connection) throws SQLException {
        List<View> result = new ArrayList<>();
        for (String[] row : TextRows.query(connection, VIEWS)) {
            result.add(new View(row[0], row[1], row[2]));
        }
        return result;
    }

    /**
     * Gives the catalog the default data source's views, so that {@code \dv}, {@code pg_views},
     * {@code information_schema.views} and the tools that read them (Flyway's clean drops them by it) see them. Where
     * the catalog's views differ from those wanted, all of them are made again in the order the data source made
     * them (a view's dependants go with it). A view that cannot be made here (it reads an actual table, or a function
     * the catalog database lacks) is left out: it still answers on the data source.
     */
    void syncViews(List<View> wanted) throws SQLException {
        BackendConnection connection = dataSource.borrow();
        try {
            inTransaction(connection, "2s", () -> {
                syncViews(connection, wanted);
                return null;
            });
        } finally {
            connection.release();
        }
    }

    private void syncViews(BackendConnection connection, List<View> wanted) throws SQLException {
        List<View> present = readViews(connection);
        List<View> makeable = new ArrayList<>(wanted);
        makeable.removeAll(leftOutViews);
        if (present.equals(makeable)) {
            return;
        }
        for (View each : present) {
            TextRows.run(connection, "SAVEPOINT view; DROP VIEW IF EXISTS " + each.qualified() + " CASCADE; RELEASE SAVEPOINT view");
        }
        // In the order the data source made them; a view that reads one made after it (CREATE OR REPLACE can do that)
        // is tried again after the others, as long as a pass makes one more.
        List<View> pending = new ArrayList<>(wanted);
        Map<View, String> failures = new HashMap<>();
        boolean progress = true;
        while (!pending.isEmpty() && progress) {
            progress = false;
            for (java.util.Iterator<View> it = pending.iterator(); it.hasNext(); ) {
                View each = it.next();
                String create = "CREATE VIEW " + each.qualified() + " AS " + each.definition();
                try {
                    TextRows.run(connection, "SAVEPOINT view; " + create + "; RELEASE SAVEPOINT view");
                    it.remove();
                    failures.remove(each);
                    progress = true;
                } catch (SQLException e) {
                    if (connection.isBroken()) {
                        throw e;
                    }
                    TextRows.run(connection, "ROLLBACK TO SAVEPOINT view; RELEASE SAVEPOINT view");
                    failures.put(each, e.getMessage());
                }
            }
        }
        for (Map.Entry<View, String> each : failures.entrySet()) {
            LOG.debug("catalog database {}: view {} left out: {}", name, each.getKey().qualified(), each.getValue());
        }
        // Not tried again at every bringing in step while the data source's definition stays the same.
        leftOutViews = List.copyOf(pending);
    }

    /** The wanted views the catalog could not make at the last try ({@link #syncViews}). */
    private volatile List<View> leftOutViews = List.of();

    private boolean runOne(BackendConnection connection, String statement) throws SQLException {
        try {
            TextRows.run(connection, "SAVEPOINT shell; " + statement + "; RELEASE SAVEPOINT shell");
            return true;
        } catch (SQLException e) {
            if (connection.isBroken()) {
                throw e;
            }
            TextRows.run(connection, "ROLLBACK TO SAVEPOINT shell; RELEASE SAVEPOINT shell");
            LOG.warn("catalog database {}: {} failed: {}", name, statement, e.getMessage());
            return false;
        }
    }

    @Override
    public void close() {
        dataSource.close();
    }
}
