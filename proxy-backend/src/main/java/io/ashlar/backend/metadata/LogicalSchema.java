package io.ashlar.backend.metadata;

import io.ashlar.backend.execute.ColumnDescription;
import io.ashlar.backend.execute.ErrorFields;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The logical tables of a logical database at one moment: an immutable snapshot, swapped whole when a table's
 * definition changes (DDL through the proxy, a table found on first use, REFRESH TABLE METADATA). Statements read
 * it without a lock.
 *
 * <p>Besides the definitions it holds what the statement path asks per execution, in arrays rather than maps: for
 * each data source, the actual tables' OIDs in order, with the logical table's OID (its shell in the catalog
 * database) and column numbers, so that a RowDescription names the logical table.
 */
public final class LogicalSchema {

    static final LogicalSchema EMPTY = new LogicalSchema(0, Map.of(), Map.of(), Set.of(), Map.of(), 0);

    private final long version;
    private final Map<String, LogicalTable> tables;
    private final Map<String, Integer> shellOids;
    private final Set<String> absent;
    private final Map<String, String> ruleNames;
    private final int dataSources;
    private final Map<String, String> logicalNames;
    /** Per data source: actual table OIDs, ascending. */
    private final int[][] actualOids;
    /** Per data source, parallel to {@link #actualOids}: the logical table's OID. */
    private final int[][] logicalOids;
    /** Per data source, parallel to {@link #actualOids}: logical column number by actual column number. */
    private final short[][][] logicalColumns;
    /** The foreign keys the proxy enforces, by referencing table ({@code schema.name}). */
    private final Map<String, List<ProxyForeignKey>> referencing;
    /** The foreign keys the proxy enforces, by referenced table ({@code schema.name}). */
    private final Map<String, List<ProxyForeignKey>> referenced;

    /**
     * @param shellOids the OIDs of the logical tables' shells in the catalog database, by {@code schema.name}
     * @param absent    public table names looked for on every data source and found nowhere
     * @param ruleNames the logical table of each actual table the rules name, where the names differ (also of tables
     *                  that do not exist yet: DROP TABLE IF EXISTS of one tells of each actual table)
     * @param dataSources how many data sources the logical database has
     */
    LogicalSchema(long version, Map<String, LogicalTable> tables, Map<String, Integer> shellOids, Set<String> absent,
                  Map<String, String> ruleNames, int dataSources) {
        this.version = version;
        this.tables = Map.copyOf(tables);
        this.shellOids = Map.copyOf(shellOids);
        this.absent = Set.copyOf(absent);
        this.ruleNames = Map.copyOf(ruleNames);
        this.dataSources = dataSources;
        Map<String, String> names = new HashMap<>(ruleNames);
        List<List<int[]>> perDataSource = new ArrayList<>(dataSources);
        List<List<short[]>> columnsPerDataSource = new ArrayList<>(dataSources);
        for (int d = 0; d < dataSources; d++) {
            perDataSource.add(new ArrayList<>());
            columnsPerDataSource.add(new ArrayList<>());
        }
        for (LogicalTable table : this.tables.values()) {
            Integer shell = this.shellOids.get(table.qualifiedName());
            for (ActualTable actual : table.actualTables()) {
                if (!actual.table().equals(table.metadata().name())) {
                    names.put(actual.table(), table.metadata().name());
                }
                if (shell != null && actual.dataSource() < dataSources) {
                    perDataSource.get(actual.dataSource()).add(new int[] {actual.oid(), shell,
                            columnsPerDataSource.get(actual.dataSource()).size()});
                    columnsPerDataSource.get(actual.dataSource()).add(actual.logicalColumns());
                }
            }
        }
        this.logicalNames = Map.copyOf(names);
        Map<String, List<ProxyForeignKey>> byChild = new HashMap<>();
        Map<String, List<ProxyForeignKey>> byParent = new HashMap<>();
        for (LogicalTable table : this.tables.values()) {
            for (ConstraintMetadata each : table.metadata().constraints()) {
                ProxyForeignKey key = each.enforcedByProxy() ? ProxyForeignKey.parse(each.name(), table.qualifiedName(), each.definition()) : null;
                if (key != null) {
                    byChild.computeIfAbsent(key.table(), k -> new ArrayList<>()).add(key);
                    byParent.computeIfAbsent(key.parent(), k -> new ArrayList<>()).add(key);
                }
            }
        }
        this.referencing = Map.copyOf(byChild);
        this.referenced = Map.copyOf(byParent);
        this.actualOids = new int[dataSources][];
        this.logicalOids = new int[dataSources][];
        this.logicalColumns = new short[dataSources][][];
        for (int d = 0; d < dataSources; d++) {
            List<int[]> entries = perDataSource.get(d);
            entries.sort((a, b) -> Integer.compareUnsigned(a[0], b[0]));
            actualOids[d] = new int[entries.size()];
            logicalOids[d] = new int[entries.size()];
            logicalColumns[d] = new short[entries.size()][];
            for (int i = 0; i < entries.size(); i++) {
                actualOids[d][i] = entries.get(i)[0];
                logicalOids[d][i] = entries.get(i)[1];
                logicalColumns[d][i] = columnsPerDataSource.get(d).get(entries.get(i)[2]);
            }
        }
    }

    /** Counts the snapshots: a plan worked out against one is worked out again against the next. */
    public long version() {
        return version;
    }

    /** Whether the proxy enforces any foreign key here: if not, no write needs looking at. */
    public boolean hasProxyForeignKeys() {
        return !referencing.isEmpty();
    }

    /** The foreign keys the proxy enforces whose referencing table is {@code qualifiedName}. */
    public List<ProxyForeignKey> referencing(String qualifiedName) {
        return referencing.getOrDefault(qualifiedName, List.of());
    }

    /** The foreign keys the proxy enforces whose referenced table is {@code qualifiedName}. */
    public List<ProxyForeignKey> referencedBy(String qualifiedName) {
        return referenced.getOrDefault(qualifiedName, List.of());
    }

    /** The logical tables, by {@code schema.name}. */
    public Map<String, LogicalTable> tables() {
        return tables;
    }

    /** A logical table by {@code schema.name}, or null. */
    public LogicalTable table(String qualifiedName) {
        return tables.get(qualifiedName);
    }

    /** The OIDs of the shells in the catalog database, by {@code schema.name}; empty without a catalog database. */
    Map<String, Integer> shellOids() {
        return shellOids;
    }

    Set<String> absent() {
        return absent;
    }

    /** Whether the public table {@code name} was looked for everywhere and is nowhere. */
    boolean isAbsent(String name) {
        return absent.contains(name);
    }

    /** Every disagreement among actual tables, naming data source and table. */
    public List<String> problems() {
        List<String> result = new ArrayList<>();
        for (LogicalTable each : tables.values()) {
            result.addAll(each.problems());
        }
        return result;
    }

    /** These tables with some read again: {@code read} replaces the tables of {@code scope} (null: all of them). */
    Map<String, LogicalTable> tablesWith(Map<String, LogicalTable> read, java.util.Collection<String> scope) {
        Map<String, LogicalTable> result = new LinkedHashMap<>();
        if (scope != null) {
            for (Map.Entry<String, LogicalTable> each : tables.entrySet()) {
                if (!scope.contains(each.getKey())) {
                    result.put(each.getKey(), each.getValue());
                }
            }
        }
        result.putAll(read);
        return result;
    }

    /** This snapshot, also knowing that public table {@code name} is nowhere (all names forgotten past {@code most}). */
    LogicalSchema withAbsent(String name, int most) {
        Set<String> names = new HashSet<>();
        if (absent.size() < most) {
            names.addAll(absent);
        }
        names.add(name);
        return new LogicalSchema(version, tables, shellOids, names, ruleNames, dataSources);
    }

    /** This snapshot with no name known to be absent: a later snapshot, so that plans look their tables up again. */
    LogicalSchema withoutAbsent() {
        return new LogicalSchema(version + 1, tables, shellOids, Set.of(), ruleNames, dataSources);
    }

    // ------------------------------------------------------------------ the statement path

    /**
     * The columns of a result a data source described, with each column of an actual table described as the logical
     * table's (its shell's OID, its logical column number); the same array when no column comes from one.
     */
    public ColumnDescription[] logicalColumns(int dataSource, ColumnDescription[] columns) {
        if (dataSource < 0 || dataSource >= actualOids.length || actualOids[dataSource].length == 0) {
            return columns;
        }
        int[] oids = actualOids[dataSource];
        ColumnDescription[] result = columns;
        for (int i = 0; i < columns.length; i++) {
            ColumnDescription column = columns[i];
            if (column.tableOid() == 0) {
                continue;
            }
            int at = search(oids, column.tableOid());
            if (at < 0) {
                continue;
            }
            short[] numbers = logicalColumns[dataSource][at];
            short number = column.columnNumber() > 0 && column.columnNumber() < numbers.length ? numbers[column.columnNumber()] : 0;
            if (result == columns) {
                result = columns.clone();
            }
            result[i] = new ColumnDescription(column.name(), logicalOids[dataSource][at], number, column.typeOid(),
                    column.typeSize(), column.typeModifier());
        }
        return result;
    }

    /**
     * A result column that comes from column {@code column} of a copy of public logical table {@code table} (an
     * intermediate result of a read finished by PostgreSQL) described as the logical table's: its shell's OID and its
     * logical column number; the same column when the catalog has no shell of it.
     */
    public ColumnDescription logicalColumn(ColumnDescription described, String table, String column) {
        LogicalTable logical = tables.get(SchemaLoader.PUBLIC + "." + table);
        Integer shell = logical == null ? null : shellOids.get(logical.qualifiedName());
        if (shell == null) {
            return described;
        }
        List<ColumnMetadata> columns = logical.metadata().columns();
        short number = 0;
        for (int i = 0; i < columns.size(); i++) {
            if (columns.get(i).name().equals(column)) {
                number = (short) (i + 1);
            }
        }
        return new ColumnDescription(described.name(), shell, number, described.typeOid(), described.typeSize(), described.typeModifier());
    }

    /** Binary search of unsigned OIDs. */
    private static int search(int[] oids, int oid) {
        int low = 0;
        int high = oids.length - 1;
        while (low <= high) {
            int middle = (low + high) >>> 1;
            int compared = Integer.compareUnsigned(oids[middle], oid);
            if (compared < 0) {
                low = middle + 1;
            } else if (compared > 0) {
                high = middle - 1;
            } else {
                return middle;
            }
        }
        return -1;
    }

    /** Whether error and notice texts may name actual tables that have another logical name. */
    boolean renamesTables() {
        return !logicalNames.isEmpty();
    }

    /**
     * An error or notice of a backend with the actual tables it names, and the objects named after them, called by
     * their logical names ({@code relation "t_order_1"} is {@code relation "t_order"}, {@code t_order_1_pkey} is
     * {@code t_order_pkey}); the same fields when it names none.
     */
    public ErrorFields logical(ErrorFields fields) {
        if (logicalNames.isEmpty()) {
            return fields;
        }
        String[] values = null;
        for (int i = 0; i < fields.codes().length; i++) {
            byte code = fields.codes()[i];
            if (code == 'M' || code == 'D' || code == 'H' || code == 'W' || code == 't' || code == 'n' || code == 'q') {
                String renamed = renameWords(fields.values()[i]);
                if (!renamed.equals(fields.values()[i])) {
                    if (values == null) {
                        values = fields.values().clone();
                    }
                    values[i] = renamed;
                }
            }
        }
        return values == null ? fields : new ErrorFields(fields.codes(), values);
    }

    private String renameWords(String text) {
        StringBuilder result = null;
        int copied = 0;
        int i = 0;
        int n = text.length();
        while (i < n) {
            if (!isWordChar(text.charAt(i))) {
                i++;
                continue;
            }
            int start = i;
            while (i < n && isWordChar(text.charAt(i))) {
                i++;
            }
            String word = text.substring(start, i);
            String renamed = renameWord(word);
            if (renamed != null) {
                if (result == null) {
                    result = new StringBuilder(n + 8);
                }
                result.append(text, copied, start).append(renamed);
                copied = i;
            }
        }
        return result == null ? text : result.append(text, copied, n).toString();
    }

    /** The logical name of a word that is, or is named after, an actual table; null for another word. */
    private String renameWord(String word) {
        String exact = logicalNames.get(word);
        if (exact != null) {
            return exact;
        }
        for (int at = word.lastIndexOf('_'); at > 0; at = word.lastIndexOf('_', at - 1)) {
            String logical = logicalNames.get(word.substring(0, at));
            if (logical != null) {
                return logical + word.substring(at);
            }
        }
        for (int at = word.indexOf('_'); at >= 0 && at < word.length() - 1; at = word.indexOf('_', at + 1)) {
            if (logicalNames.containsKey(word.substring(at + 1))) {
                return word.substring(0, at);
            }
        }
        return null;
    }

    private static boolean isWordChar(char c) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '$' || c > 127;
    }

    @Override
    public String toString() {
        return "LogicalSchema v" + version + " " + tables.keySet() + (absent.isEmpty() ? "" : " absent " + absent)
                + " " + Arrays.deepToString(actualOids);
    }
}
