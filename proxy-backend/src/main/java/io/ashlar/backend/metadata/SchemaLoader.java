package io.ashlar.backend.metadata;

import io.ashlar.backend.datasource.BackendConnection;
import io.ashlar.backend.datasource.BackendDataSource;
import io.ashlar.route.rule.BroadcastTable;
import io.ashlar.route.rule.DataNode;
import io.ashlar.route.rule.RuleTable;
import io.ashlar.route.rule.ShardingRules;
import io.ashlar.route.rule.ShardingTable;
import io.ashlar.route.rule.SingleTable;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the logical tables of a logical database from its data sources: each sharded table from its actual tables,
 * each broadcast table from every data source, each single table from the data source that has it, and the tables
 * of other schemas from the default data source (where statements naming them go). The actual tables of a logical
 * table are checked against the first: a difference, or a missing one, is a problem that names the data source and
 * the table. Off the statement path (at start, after DDL, on REFRESH TABLE METADATA): it blocks on the backends.
 */
final class SchemaLoader {

    static final String PUBLIC = "public";

    /**
     * What was read.
     *
     * @param tables     the logical tables found, by {@code schema.name}
     * @param newSingles public tables no rule names, found on a data source: table name to data source name
     * @param unreadable the data sources that could not be read, with why
     * @param schemas    the user's schemas of the default data source, where tables of other schemas are (when all
     *                   tables were read and it could be read; else null)
     * @param notRead    the names of the data sources not read (down, or unreadable)
     */
    record Loaded(Map<String, LogicalTable> tables, Map<String, String> newSingles, List<String> unreadable,
                  List<String> schemas, Set<String> notRead) {
    }

    private SchemaLoader() {
    }

    /**
     * @param only the logical {@code schema.name}s to read, null for all
     */
    static Loaded load(List<BackendDataSource> dataSources, ShardingRules rules, int defaultDataSource, Collection<String> only) {
        return load(dataSources, rules, defaultDataSource, only, (d, names) -> {
            BackendConnection connection = dataSources.get(d).borrow();
            try {
                return MetadataReader.read(connection, names);
            } finally {
                connection.release();
            }
        });
    }

    /** What reads the tables of one data source. */
    interface PhysicalReader {

        /** The tables {@code names} (null for all) of data source {@code dataSource}. */
        Map<String, PhysicalTable> read(int dataSource, Collection<String> names) throws SQLException;
    }

    /**
     * @param only   the logical {@code schema.name}s to read, null for all
     * @param reader reads each data source's tables
     */
    static Loaded load(List<BackendDataSource> dataSources, ShardingRules rules, int defaultDataSource, Collection<String> only,
                       PhysicalReader reader) {
        int count = dataSources.size();
        Set<String> hidden = new HashSet<>();
        Set<String> sharded = new HashSet<>();
        for (ShardingTable table : rules.shardingTables()) {
            sharded.add(table.logicTable());
            for (DataNode node : table.dataNodes()) {
                if (!node.table().equals(table.logicTable())) {
                    hidden.add(node.table());
                }
            }
        }
        List<Map<String, PhysicalTable>> physical = new ArrayList<>(count);
        List<String> unreadable = new ArrayList<>();
        List<String> schemas = null;
        boolean[] readable = new boolean[count];
        for (int d = 0; d < count; d++) {
            BackendDataSource dataSource = dataSources.get(d);
            Collection<String> names = only == null ? null : physicalNames(only, rules, dataSource.name(), d == defaultDataSource);
            if (dataSource.health().isDown()) {
                // Said once, with the reason, by the data source's health: not again for each table read.
                physical.add(Map.of());
                continue;
            }
            try {
                if (only == null && d == defaultDataSource) {
                    BackendConnection connection = dataSource.borrow();
                    try {
                        physical.add(MetadataReader.read(connection, names));
                        schemas = MetadataReader.schemas(connection);
                    } finally {
                        connection.release();
                    }
                } else {
                    physical.add(reader.read(d, names));
                }
                readable[d] = true;
            } catch (SQLException | RuntimeException e) {
                physical.add(Map.of());
                unreadable.add("data source " + dataSource.name() + " could not be read: " + e.getMessage());
            }
        }
        List<LogicalNames> names = new ArrayList<>(count);
        for (int d = 0; d < count; d++) {
            Map<String, String> renamed = new HashMap<>();
            for (ShardingTable table : rules.shardingTables()) {
                for (DataNode node : table.dataNodes()) {
                    if (node.dataSource().equals(dataSources.get(d).name()) && !node.table().equals(table.logicTable())) {
                        renamed.put(PUBLIC + "." + node.table(), PUBLIC + "." + table.logicTable());
                    }
                }
            }
            names.add(new LogicalNames(renamed));
        }
        Map<String, LogicalTable> tables = new LinkedHashMap<>();
        for (ShardingTable table : rules.shardingTables()) {
            String key = PUBLIC + "." + table.logicTable();
            if (only != null && !only.contains(key)) {
                continue;
            }
            List<Located> located = new ArrayList<>();
            for (DataNode node : table.dataNodes()) {
                located.add(new Located(index(dataSources, node.dataSource()), node.table()));
            }
            logical(LogicalTable.Kind.SHARDED, table.logicTable(), located, dataSources, physical, readable, names, tables);
        }
        Map<String, String> newSingles = new LinkedHashMap<>();
        for (RuleTable rule : rules.tables()) {
            String key;
            switch (rule) {
                case BroadcastTable broadcast -> {
                    key = PUBLIC + "." + broadcast.logicTable();
                    if (only == null || only.contains(key)) {
                        List<Located> located = new ArrayList<>();
                        for (String each : rules.dataSources()) {
                            located.add(new Located(index(dataSources, each), broadcast.logicTable()));
                        }
                        logical(LogicalTable.Kind.BROADCAST, broadcast.logicTable(), located, dataSources, physical, readable,
                                names, tables);
                    }
                }
                case SingleTable single -> {
                    key = PUBLIC + "." + single.logicTable();
                    if ((only == null || only.contains(key)) && !hidden.contains(single.logicTable())
                            && !sharded.contains(single.logicTable())) {
                        logical(LogicalTable.Kind.SINGLE, single.logicTable(),
                                List.of(new Located(index(dataSources, single.dataSource()), single.logicTable())),
                                dataSources, physical, readable, names, tables);
                    }
                }
                case ShardingTable ignored -> {
                    // read above, in configuration order
                }
            }
        }
        for (int d = 0; d < count; d++) {
            for (Map.Entry<String, PhysicalTable> each : physical.get(d).entrySet()) {
                TableMetadata metadata = each.getValue().metadata();
                String key = each.getKey();
                boolean isPublic = metadata.schema().equals(PUBLIC);
                if (tables.containsKey(key) || (only != null && !only.contains(key))
                        || (isPublic && (hidden.contains(metadata.name()) || rules.find(metadata.name()).isPresent()))
                        || (!isPublic && d != defaultDataSource)) {
                    continue;
                }
                if (isPublic) {
                    newSingles.put(metadata.name(), dataSources.get(d).name());
                }
                tables.put(key, new LogicalTable(LogicalTable.Kind.SINGLE, metadata,
                        List.of(actual(d, dataSources.get(d).name(), each.getValue(), metadata)), List.of(), false));
            }
        }
        Set<String> notRead = new HashSet<>();
        for (int d = 0; d < count; d++) {
            if (!readable[d]) {
                notRead.add(dataSources.get(d).name());
            }
        }
        return new Loaded(tables, newSingles, unreadable, schemas, Set.copyOf(notRead));
    }

    /** An actual table: the index of its data source (-1 for one the logical database lacks) and its name. */
    private record Located(int dataSource, String table) {
    }

    private static void logical(LogicalTable.Kind kind, String logicalName, List<Located> located,
                                List<BackendDataSource> dataSources, List<Map<String, PhysicalTable>> physical,
                                boolean[] readable, List<LogicalNames> names, Map<String, LogicalTable> tables) {
        TableMetadata canonical = null;
        String first = null;
        List<ActualTable> actuals = new ArrayList<>(located.size());
        List<String> problems = new ArrayList<>();
        List<String> missing = new ArrayList<>();
        boolean columnsDiffer = false;
        int firstNode = -1;
        for (int node = 0; node < located.size(); node++) {
            Located each = located.get(node);
            if (each.dataSource() < 0 || !readable[each.dataSource()]) {
                continue;
            }
            String where = dataSources.get(each.dataSource()).name() + "." + each.table();
            PhysicalTable table = physical.get(each.dataSource()).get(PUBLIC + "." + each.table());
            if (table == null) {
                missing.add(where);
                continue;
            }
            TableMetadata metadata = names.get(each.dataSource()).logical(table.metadata(), logicalName);
            if (canonical == null) {
                canonical = metadata;
                first = where;
                firstNode = node;
            } else {
                if (kind == LogicalTable.Kind.SHARDED) {
                    metadata = unstaggered(canonical, metadata, node - firstNode, located.size());
                }
                columnsDiffer |= !canonical.columnNames().equals(metadata.columnNames());
                String difference = canonical.difference(metadata);
                if (!difference.isEmpty()) {
                    problems.add("logical table " + logicalName + ": data source " + dataSources.get(each.dataSource()).name()
                            + ", table " + each.table() + " differs from " + first + ": " + difference);
                }
            }
            actuals.add(actual(each.dataSource(), dataSources.get(each.dataSource()).name(), table, canonical));
        }
        if (canonical == null) {
            return; // no actual table exists: neither does the logical one
        }
        for (String each : missing) {
            int dot = each.indexOf('.');
            problems.add("logical table " + logicalName + ": data source " + each.substring(0, dot) + " has no table "
                    + each.substring(dot + 1) + " (" + first + " exists)");
        }
        tables.put(canonical.qualifiedName(), new LogicalTable(kind, canonical, actuals, problems, columnsDiffer));
    }

    private static final Pattern SEQUENCE_STEPS = Pattern.compile("^(.*INCREMENT BY )(-?\\d+)(.* START WITH )(-?\\d+)( .*)$");

    /**
     * {@code metadata} with the sequences that are {@code canonical}'s interleaved as Ashlar interleaves a sharded table's
     * serial sequences (node {@code offset} past the first of {@code count}: the same increment {@code count * k}, a start
     * {@code offset * k} past the first's) given the first's options, so that copies staggered by design are no difference.
     */
    static TableMetadata unstaggered(TableMetadata canonical, TableMetadata metadata, int offset, int count) {
        List<SequenceMetadata> sequences = null;
        for (int i = 0; i < metadata.sequences().size(); i++) {
            SequenceMetadata mine = metadata.sequences().get(i);
            for (SequenceMetadata theirs : canonical.sequences()) {
                if (theirs.name().equals(mine.name()) && theirs.column().equals(mine.column()) && !theirs.options().equals(mine.options())
                        && staggered(theirs.options(), mine.options(), offset, count)) {
                    if (sequences == null) {
                        sequences = new ArrayList<>(metadata.sequences());
                    }
                    sequences.set(i, theirs);
                }
            }
        }
        return sequences == null ? metadata : new TableMetadata(metadata.schema(), metadata.name(), metadata.unlogged(), metadata.columns(),
                metadata.constraints(), metadata.indexes(), sequences, metadata.comment());
    }

    private static boolean staggered(String first, String copy, int offset, int count) {
        Matcher a = SEQUENCE_STEPS.matcher(first);
        Matcher b = SEQUENCE_STEPS.matcher(copy);
        if (!a.matches() || !b.matches() || !a.group(1).equals(b.group(1)) || !a.group(2).equals(b.group(2))
                || !a.group(3).equals(b.group(3)) || !a.group(5).equals(b.group(5))) {
            return false;
        }
        try {
            long increment = Long.parseLong(a.group(2));
            if (increment % count != 0) {
                return false;
            }
            return Long.parseLong(b.group(4)) == Math.addExact(Long.parseLong(a.group(4)), Math.multiplyExact(offset, increment / count));
        } catch (NumberFormatException | ArithmeticException e) {
            return false;
        }
    }

    /** An actual table, its columns numbered as the logical table's (matched by name). */
    private static ActualTable actual(int dataSource, String dataSourceName, PhysicalTable table, TableMetadata logical) {
        short[] attnums = table.attnums();
        int highest = 0;
        for (short each : attnums) {
            highest = Math.max(highest, each);
        }
        short[] logicalColumns = new short[highest + 1];
        List<String> logicalNames = logical.columnNames();
        List<ColumnMetadata> columns = table.metadata().columns();
        for (int i = 0; i < attnums.length; i++) {
            logicalColumns[attnums[i]] = (short) (logicalNames.indexOf(columns.get(i).name()) + 1);
        }
        return new ActualTable(dataSource, dataSourceName, table.metadata().name(), table.oid(), logicalColumns);
    }

    /** The actual {@code schema.table}s of data source {@code dataSource} that hold the logical tables {@code only}. */
    private static Collection<String> physicalNames(Collection<String> only, ShardingRules rules, String dataSource,
                                                    boolean isDefault) {
        Set<String> result = new LinkedHashSet<>();
        for (String each : only) {
            int dot = each.indexOf('.');
            String schema = each.substring(0, dot);
            String name = each.substring(dot + 1);
            if (!schema.equals(PUBLIC)) {
                if (isDefault) {
                    result.add(each);
                }
                continue;
            }
            if (rules.find(name).orElse(null) instanceof ShardingTable table) {
                for (DataNode node : table.dataNodes()) {
                    if (node.dataSource().equals(dataSource)) {
                        result.add(PUBLIC + "." + node.table());
                    }
                }
            } else {
                result.add(each);
            }
        }
        return result;
    }

    private static int index(List<BackendDataSource> dataSources, String name) {
        for (int i = 0; i < dataSources.size(); i++) {
            if (dataSources.get(i).name().equals(name)) {
                return i;
            }
        }
        return -1;
    }
}
