package io.ashlar.backend.metadata;

import io.ashlar.parser.SqlText;
import io.ashlar.backend.datasource.BackendConnection;
import io.ashlar.backend.datasource.BackendDataSource;
import io.ashlar.backend.execute.TextRows;
import io.ashlar.backend.session.LogicalDatabase;
import io.ashlar.route.rule.DataNode;
import io.ashlar.route.rule.ShardingRules;
import io.ashlar.route.rule.ShardingTable;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The logical schema of a sharded logical database and its catalog database: the tables as clients see them, read
 * from the data sources at start, after every DDL that passes through the proxy, when a statement names a table no
 * rule knows, and on {@code REFRESH TABLE METADATA}; the shells of the catalog database follow each change.
 *
 * <p>Readers take {@link #schema()}, an immutable snapshot, without a lock. Changes (never on the statement path of
 * plain statements) are made one at a time under a lock, each ending with a new snapshot swapped in whole.
 */
public final class LogicalCatalog implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(LogicalCatalog.class);

    /** Most names remembered as absent; past it they are forgotten and looked for again. */
    private static final int MAX_ABSENT = 10_000;

    private static final String EXISTS_SQL = "SELECT 1 FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n"
            + " ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'v', 'm', 'f') AND c.relname = ";

    private final LogicalDatabase database;
    private final ReentrantLock changes = new ReentrantLock();
    private volatile LogicalSchema schema = LogicalSchema.EMPTY;
    private volatile CatalogDatabase catalogDatabase;
    /** Whether {@link #start} was asked for a catalog database (it may not have been made: its data source was down). */
    private volatile boolean withCatalogDatabase;
    /** The data sources the last reading of every table could not read (down at start): read again when they are back. */
    private volatile Set<String> notRead = Set.of();
    private volatile boolean closed;

    public LogicalCatalog(LogicalDatabase database) {
        this.database = database;
    }

    /**
     * Reads the logical schema and, with {@code withCatalogDatabase}, makes the catalog database and its shells:
     * at start, before clients come. Disagreements among actual tables are logged, naming data source and table.
     */
    public void start(boolean withCatalogDatabase) {
        boolean first = !this.withCatalogDatabase && schema == LogicalSchema.EMPTY;
        this.withCatalogDatabase |= withCatalogDatabase;
        if (withCatalogDatabase && catalogDatabase == null) {
            catalogDatabase = CatalogDatabase.open(database.name(), database.defaultDataSource());
        }
        refresh(null);
        refreshViews(); // and the views of the default data source, before clients come
        if (first) {
            for (BackendDataSource each : database.dataSources()) {
                each.health().onUp(() -> dataSourceUp(each));
            }
            for (BackendDataSource each : database.dataSources()) {
                if (!each.health().isDown()) {
                    dataSourceUp(each); // back while its tables were being read, before it was listened to
                }
            }
        }
    }

    /**
     * A data source is back: if the last reading of every table missed it (it was down when the proxy started), its
     * tables are read now, in the background, so that the tables only it has are routed to it and listed by the
     * catalog without a restart; so is the catalog database, when its data source was the one down.
     */
    private void dataSourceUp(BackendDataSource dataSource) {
        if (closed || !notRead.contains(dataSource.name())) {
            return;
        }
        Thread.ofVirtual().name("ashlar-reread-" + database.name()).start(() -> {
            try {
                if (closed) {
                    return;
                }
                if (withCatalogDatabase && catalogDatabase == null && dataSource == database.defaultDataSource()) {
                    changes.lock();
                    try {
                        if (catalogDatabase == null) {
                            catalogDatabase = CatalogDatabase.open(database.name(), dataSource);
                        }
                    } finally {
                        changes.unlock();
                    }
                }
                List<String> problems = refresh(null);
                refreshViews();
                LOG.info("logical database {}: read the tables of data source {}, which was down when they were read{}",
                        database.name(), dataSource.name(), problems.isEmpty() ? "" : " (" + problems.size() + " problems, said above)");
            } catch (RuntimeException e) {
                LOG.warn("logical database {}: reading the tables of data source {} again failed: {}", database.name(),
                        dataSource.name(), e.toString());
            }
        });
    }

    /** The enums clients are told of (to themselves) and their array types (to their enum, negated), by OID. */
    private volatile Map<Integer, Integer> enums = Map.of();

    /** The logical tables now. */
    public LogicalSchema schema() {
        return schema;
    }

    /** The catalog database's data source, or null when there is none (catalog queries then go to the default data source). */
    public BackendDataSource catalogDataSource() {
        CatalogDatabase current = catalogDatabase;
        return current == null ? null : current.dataSource();
    }

    /** A session's connection to a data source, in its transaction. */
    public interface TransactionConnections {

        /** The session's connection to data source {@code dataSource}, in the session's transaction there. */
        BackendConnection inTransaction(int dataSource) throws SQLException;
    }

    /**
     * Logical tables as a session's transaction sees them, read through its own connections (in a savepoint each): the
     * tables it made or changed and has not committed are what they are in it. The schema is left as it is.
     *
     * @param tables the {@code schema.name}s to read
     * @return those found, by {@code schema.name}
     */
    public Map<String, LogicalTable> readInTransaction(Collection<String> tables, TransactionConnections connections) {
        ShardingRules rules = database.rules();
        int defaultIndex = database.dataSourceIndex(database.defaultDataSource().name());
        return SchemaLoader.load(database.dataSources(), rules, defaultIndex, tables,
                (d, names) -> names != null && names.isEmpty() ? Map.of() : MetadataReader.readInTransaction(connections.inTransaction(d), names)).tables();
    }

    /**
     * Reads the logical tables {@code names} ({@code schema.name}; null for all) again from the data sources and
     * brings their shells in step. Public tables found on a data source that no rule knows become single tables
     * there.
     *
     * @return what disagrees among the actual tables read, and data sources that could not be read
     */
    public List<String> refresh(Collection<String> names) {
        changes.lock();
        try {
            ShardingRules rules = database.rules();
            int defaultIndex = database.dataSourceIndex(database.defaultDataSource().name());
            SchemaLoader.Loaded loaded = SchemaLoader.load(database.dataSources(), rules, defaultIndex, names);
            for (Map.Entry<String, String> each : loaded.newSingles().entrySet()) {
                database.updateRules(current -> current.withSingleTable(each.getKey(), each.getValue()));
            }
            LogicalSchema current = schema;
            Map<String, LogicalTable> tables = current.tablesWith(loaded.tables(), names);
            Map<String, Integer> shells = current.shellOids();
            CatalogDatabase catalog = catalogDatabase;
            if (catalog != null && names == null) {
                // Before the shells: a sequence a shell's default calls nextval of is then made with its definition.
                syncSequences(catalog);
            }
            if (catalog != null) {
                try {
                    shells = catalog.sync(tables, names, loaded.schemas(), userTypes());
                } catch (SQLException | RuntimeException e) {
                    LOG.warn("logical database {}: the catalog database could not be brought in step: {}", database.name(),
                            e.getMessage());
                }
            }
            mapTypeOids();
            schema = new LogicalSchema(current.version() + 1, tables, shells, Set.of(), actualNames(database.rules()),
                    database.dataSources().size());
            List<String> result = new ArrayList<>(loaded.unreadable());
            for (LogicalTable each : loaded.tables().values()) {
                result.addAll(each.problems());
            }
            for (String each : result) {
                LOG.warn("logical database {}: {}", database.name(), each);
            }
            if (names == null) {
                notRead = loaded.notRead();
            }
            return result;
        } finally {
            changes.unlock();
        }
    }

    /**
     * The stand-alone sequences of the data sources are read again and the catalog database's brought in step with
     * them (a {@code CREATE}, {@code ALTER} or {@code DROP SEQUENCE} passed through the proxy). Tables are not read.
     */
    public void refreshSequences() {
        changes.lock();
        try {
            CatalogDatabase catalog = catalogDatabase;
            if (catalog != null) {
                syncSequences(catalog);
            }
        } finally {
            changes.unlock();
        }
    }

    /** Brings the catalog's stand-alone sequences in step with the data sources' ({@link StandaloneSequences}). */
    private void syncSequences(CatalogDatabase catalog) {
        try {
            catalog.syncSequences(StandaloneSequences.read(database.dataSources()));
        } catch (SQLException | RuntimeException e) {
            LOG.warn("logical database {}: the catalog database's sequences could not be brought in step: {}", database.name(),
                    e.getMessage());
        }
    }

    /**
     * The types and extensions of the default data source are made again in the catalog database (they changed: a
     * {@code CREATE TYPE}, {@code ALTER TYPE}, {@code CREATE DOMAIN} or {@code CREATE EXTENSION} passed through the
     * proxy) and every data source is told its OIDs of them again. Tables are not read.
     */
    public void refreshTypes() {
        changes.lock();
        try {
            CatalogDatabase catalog = catalogDatabase;
            if (catalog != null) {
                try {
                    catalog.syncTypes(userTypes());
                } catch (SQLException | RuntimeException e) {
                    LOG.warn("logical database {}: the catalog database's types could not be brought in step: {}",
                            database.name(), e.getMessage());
                }
            }
            mapTypeOids();
        } finally {
            changes.unlock();
        }
    }

    /**
     * Tells each data source its OIDs of the types made after initdb against those clients are told
     * ({@link io.ashlar.backend.datasource.TypeOidMap}): the catalog database's, where type queries go, for the types
     * it has; the default data source's for the others (and for all when there is no catalog database). Takes the
     * enums in. A data source that cannot be read keeps what it had.
     */
    private void mapTypeOids() {
        List<BackendDataSource> sources = database.dataSources();
        int defaultIndex = database.dataSourceIndex(database.defaultDataSource().name());
        CatalogDatabase catalog = catalogDatabase;
        if (catalog == null && sources.size() < 2) {
            return;
        }
        List<String[]> defaultRows = types(sources.get(defaultIndex));
        List<String[]> catalogRows = catalog == null ? List.of() : types(catalog.dataSource());
        if (defaultRows == null || catalogRows == null) {
            return;
        }
        Map<String, Integer> canonical = new HashMap<>();
        Map<Integer, Integer> userEnums = new HashMap<>();
        Set<Integer> taken = new java.util.HashSet<>();
        for (String[] row : catalogRows) {
            canonical.put(row[1] + "." + row[2], Integer.parseUnsignedInt(row[0]));
            taken.add(Integer.parseUnsignedInt(row[0]));
        }
        for (String[] row : defaultRows) {
            int oid = Integer.parseUnsignedInt(row[0]);
            if (!taken.contains(oid)) {
                canonical.putIfAbsent(row[1] + "." + row[2], oid); // a type the catalog lacks: the default's OID, if free
            }
        }
        for (List<String[]> rows : List.of(catalogRows, defaultRows)) {
            for (String[] row : rows) {
                int oid = Integer.parseUnsignedInt(row[0]);
                Integer told = canonical.get(row[1] + "." + row[2]);
                if (row[3].equals("e") && told != null && told == oid) {
                    userEnums.put(oid, oid);
                    int array = Integer.parseUnsignedInt(row[4]);
                    if (array != 0) {
                        userEnums.put(array, -oid);
                    }
                }
            }
        }
        enums = Map.copyOf(userEnums);
        readComposites(catalog == null ? sources.get(defaultIndex) : catalog.dataSource());
        for (int i = 0; i < sources.size(); i++) {
            List<String[]> local = i == defaultIndex ? defaultRows : types(sources.get(i));
            if (local == null) {
                continue;
            }
            int[] pairs = new int[2 * local.size()];
            int[] composites = new int[local.size()];
            int[] arrays = new int[local.size()];
            int n = 0;
            int c = 0;
            int a = 0;
            for (String[] row : local) {
                int oid = Integer.parseUnsignedInt(row[0]);
                Integer same = canonical.get(row[1] + "." + row[2]);
                if (same != null && same != oid) {
                    pairs[n++] = oid;
                    pairs[n++] = same;
                }
                if (row[3].equals("c")) {
                    composites[c++] = oid;
                }
                int array = Integer.parseUnsignedInt(row[4]);
                if (array != 0) {
                    arrays[a++] = array;
                }
            }
            sources.get(i).types(io.ashlar.backend.datasource.TypeOidMap.of(java.util.Arrays.copyOf(pairs, n),
                    java.util.Arrays.copyOf(composites, c), java.util.Arrays.copyOf(arrays, a)));
        }
    }

    /** The field types of the composite types clients are told of (made after initdb), by OID; their array types. */
    private volatile Map<Integer, int[]> compositeFields = Map.of();
    private volatile Map<Integer, Integer> compositeArrays = Map.of();

    /** Reads the composite types of the database whose OIDs clients are told (keeps what it had when it cannot). */
    private void readComposites(BackendDataSource source) {
        List<String[]> rows = query(source, "the composite types", "SELECT t.oid, t.typarray,"
                + " string_agg(a.atttypid::text, ',' ORDER BY a.attnum) FROM pg_catalog.pg_type t JOIN pg_catalog.pg_attribute a"
                + " ON a.attrelid = t.typrelid AND a.attnum > 0 AND NOT a.attisdropped WHERE t.typtype = 'c' AND t.oid >= 16384"
                + " GROUP BY t.oid, t.typarray");
        if (rows == null) {
            return;
        }
        Map<Integer, int[]> fields = new HashMap<>();
        Map<Integer, Integer> arrays = new HashMap<>();
        for (String[] row : rows) {
            int oid = Integer.parseUnsignedInt(row[0]);
            String[] types = row[2].split(",");
            int[] parsed = new int[types.length];
            for (int i = 0; i < types.length; i++) {
                parsed[i] = Integer.parseUnsignedInt(types[i]);
            }
            fields.put(oid, parsed);
            int array = Integer.parseUnsignedInt(row[1]);
            if (array != 0) {
                arrays.put(array, oid);
            }
        }
        compositeFields = Map.copyOf(fields);
        compositeArrays = Map.copyOf(arrays);
    }

    /** See {@code BackendSession.compositeFields}: the field types of a composite type clients are told of, or null. */
    public int[] compositeFields(int typeOid) {
        int[] result = compositeFields.get(typeOid);
        return result == null ? null : result.clone();
    }

    /** See {@code BackendSession.compositeOfArray}: the composite type an array type holds, or 0. */
    public int compositeOfArray(int typeOid) {
        Integer result = compositeArrays.get(typeOid);
        return result == null ? 0 : result;
    }

    /** See {@code BackendSession.userEnum}: the enum a type is, or holds as an array (negated), else 0. */
    public int userEnum(int typeOid) {
        Integer result = enums.get(typeOid);
        return result == null ? 0 : result;
    }

    /** A data source's types made after initdb (OID, schema, name, typtype, typarray); null when it cannot be read. */
    private List<String[]> types(BackendDataSource source) {
        return query(source, "the types", "SELECT t.oid, n.nspname, t.typname, t.typtype, t.typarray FROM pg_catalog.pg_type t"
                + " JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace WHERE t.oid >= 16384");
    }

    /** The rows of one of the proxy's catalog queries on a data source; null, logged as {@code what}, when it cannot be read. */
    private List<String[]> query(BackendDataSource source, String what, String sql) {
        try {
            BackendConnection connection = source.borrow();
            try {
                return TextRows.query(connection, sql);
            } finally {
                connection.release();
            }
        } catch (SQLException | RuntimeException e) {
            LOG.warn("logical database {}: {} of data source {} could not be read: {}", database.name(), what, source.name(),
                    e.getMessage());
            return null;
        }
    }

    /**
     * The views of the default data source are made again in the catalog database where they differ: at start, and
     * when a {@code CREATE VIEW}, {@code ALTER VIEW} or {@code DROP VIEW} passed through the proxy, once the session is
     * out of its transaction. Tables are not read. Reading a view's definition takes a lock on the view, which an open
     * transaction's DDL of it holds: a session's transaction never waits for it (the tables' refresh keeps the views
     * the catalog has), and a read that waits longer than a moment leaves the catalog's views as they are.
     */
    public void refreshViews() {
        changes.lock();
        try {
            CatalogDatabase catalog = catalogDatabase;
            List<CatalogDatabase.View> views = catalog == null ? null : views();
            if (views != null) {
                try {
                    catalog.syncViews(views);
                } catch (SQLException | RuntimeException e) {
                    LOG.warn("logical database {}: the catalog database's views could not be brought in step: {}",
                            database.name(), e.getMessage());
                }
            }
        } finally {
            changes.unlock();
        }
    }

    /** The views of the default data source, for the catalog database; null (leave the catalog's) when they cannot be read. */
    private List<CatalogDatabase.View> views() {
        return fromDefaultDataSource("views", CatalogDatabase::views, null);
    }

    /** The user's types on the default data source, for the shells that use them; none when it cannot be read. */
    private List<UserTypes.Definition> userTypes() {
        return fromDefaultDataSource("user's types", UserTypes::read, List.of());
    }

    /** Reads something off the default data source. */
    private interface Reader<T> {
        T read(BackendConnection connection) throws SQLException;
    }

    /** What {@code reader} reads on a connection of the default data source; {@code otherwise}, logged, when it fails. */
    private <T> T fromDefaultDataSource(String what, Reader<T> reader, T otherwise) {
        try {
            BackendConnection connection = database.defaultDataSource().borrow();
            try {
                return reader.read(connection);
            } finally {
                connection.release();
            }
        } catch (SQLException | RuntimeException e) {
            LOG.warn("logical database {}: the {} could not be read for the catalog database: {}", database.name(), what,
                    e.getMessage());
            return otherwise;
        }
    }

    /**
     * A public table no rule knows, which a statement names: looked for on every data source, in order; found, it
     * becomes a single table of the first that has it and its definition is read. Not found, it is remembered as
     * absent until the next change.
     *
     * @return whether it was found
     */
    boolean lookUp(String name) {
        changes.lock();
        try {
            if (schema.isAbsent(name) || database.rules().find(name).isPresent()) {
                return false;
            }
            for (BackendDataSource each : database.dataSources()) {
                if (exists(each, name)) {
                    database.updateRules(current -> current.withSingleTable(name, each.name()));
                    LOG.info("logical database {}: table {} found on data source {}", database.name(), name, each.name());
                    refresh(List.of(SchemaLoader.PUBLIC + "." + name));
                    return true;
                }
            }
            schema = schema.withAbsent(name, MAX_ABSENT);
            return false;
        } finally {
            changes.unlock();
        }
    }

    /** Forgets which names were absent: a statement just failed for want of a table that may exist by now. */
    void forgetAbsent() {
        if (schema.absent().isEmpty()) {
            return;
        }
        changes.lock();
        try {
            schema = schema.withoutAbsent();
        } finally {
            changes.unlock();
        }
    }

    /** The logical table of each actual table of the rules whose name differs from it. */
    private static Map<String, String> actualNames(ShardingRules rules) {
        Map<String, String> result = new HashMap<>();
        for (ShardingTable table : rules.shardingTables()) {
            for (DataNode node : table.dataNodes()) {
                if (!node.table().equals(table.logicTable())) {
                    result.put(node.table(), table.logicTable());
                }
            }
        }
        return result;
    }

    private static boolean exists(BackendDataSource dataSource, String name) {
        try {
            BackendConnection connection = dataSource.borrow();
            try {
                return !TextRows.query(connection, EXISTS_SQL + SqlText.literal(name)).isEmpty();
            } finally {
                connection.release();
            }
        } catch (SQLException e) {
            return false;
        }
    }

    @Override
    public void close() {
        closed = true;
        CatalogDatabase current = catalogDatabase;
        if (current != null) {
            current.close();
        }
    }
}
