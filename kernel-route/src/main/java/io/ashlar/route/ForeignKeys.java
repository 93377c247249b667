package io.ashlar.route;

import io.ashlar.parser.statement.DdlKind;
import io.ashlar.parser.statement.DdlStatement;
import io.ashlar.parser.statement.ForeignKey;
import io.ashlar.route.rule.ShardingTable;

import java.util.List;

/**
 * Decides where the foreign keys of CREATE TABLE and ALTER TABLE can be created, and refuses those that per-shard
 * constraints cannot enforce. PostgreSQL checks a foreign key inside one database, so a key over sharded tables holds
 * only where every row and the row it references are on the same data source:
 * <ul>
 * <li>between sharded tables that are <em>co-located</em>: both place rows alike ({@link ShardingTable#placesLike}:
 * the same data nodes layout and equal sharding values at the same node index; binding tables are vouched for by their
 * declaration) and the key maps the referencing table's sharding columns to the referenced table's, strategy by
 * strategy and position by position. Actual table N of the referencing table then references actual table N of the
 * referenced one, on its data source: the two tables join one partition, node to node;</li>
 * <li>to a broadcast table, which every data source holds: each actual table references the copy on its own data
 * source.</li>
 * </ul>
 * Any other key over a sharded table (one that does not carry the sharding columns, tables sharded differently, a
 * sharded table referencing a single table or referenced by one, a broadcast table referencing a sharded one) is
 * refused with 0A000 and the reason. Between two sharded tables, when the key names the columns it references, the
 * refusal carries the key ({@link RouteException#crossShardKey()}): the proxy enforces such a key itself when it is
 * the only action of an ALTER TABLE.
 *
 * @see <a href="https://www.postgresql.org/docs/current/ddl-constraints.html#DDL-CONSTRAINTS-FK">Foreign Keys</a>
 */
final class ForeignKeys {

    private static final String HINT = " (PostgreSQL checks a foreign key inside one database, and the rows may be on different data sources)";

    private ForeignKeys() {
    }

    /**
     * Checks each foreign key of the statement and joins the partitions of co-located tables.
     *
     * @throws RouteException 0A000 for a key that per-shard constraints cannot enforce
     */
    static void align(StatementTables tables, List<ForeignKey> keys) {
        for (int k = 0, n = keys.size(); k < n; k++) {
            ForeignKey key = keys.get(k);
            int child = key.table();
            int parent = key.referencedTable();
            int childKind = tables.kinds[child];
            int parentKind = tables.kinds[parent];
            if (childKind == StatementTables.SHARDED) {
                switch (parentKind) {
                    case StatementTables.SHARDED -> {
                        String reason = notColocated(tables.shardingTable(child), key, tables.shardingTable(parent));
                        if (!reason.isEmpty()) {
                            if (key.referencedColumns().isEmpty()) {
                                throw refuse(tables, key, reason, "write out the referenced columns");
                            }
                            boolean alter = tables.statement.body() instanceof DdlStatement ddl && ddl.kind() == DdlKind.ALTER_TABLE;
                            RouteException refusal = refuse(tables, key, reason, "add the sharding column to the key, or make " + name(tables, parent)
                                    + " a broadcast table" + (alter ? "" : ", or add the key with ALTER TABLE ... ADD FOREIGN KEY of its own, which Ashlar enforces across data sources"));
                            throw alter ? new RouteException(refusal.getMessage(), key) : refusal;
                        }
                        tables.mergePartition(tables.partitionOf[parent], tables.partitionOf[child]);
                    }
                    case StatementTables.SINGLE, StatementTables.UNKNOWN -> throw refuse(tables, key, name(tables, child) + " is sharded over several data nodes but "
                            + tables.describe(parent) + " is a single table on one data source", "make " + name(tables, parent) + " a broadcast table");
                    default -> {
                        // a broadcast table is on every data source; a catalog table is refused by PostgreSQL itself
                    }
                }
            } else if (parentKind == StatementTables.SHARDED && (childKind != StatementTables.SINGLE && childKind != StatementTables.UNKNOWN
                    || !onlyOn(tables.shardingTable(parent), childKind == StatementTables.SINGLE ? tables.singleDataSource : tables.rules.defaultDataSourceIndex()))) {
                String what = childKind == StatementTables.BROADCAST ? "a broadcast table, on every data source," : "a single table on one data source";
                throw refuse(tables, key, name(tables, child) + " is " + what + " but " + name(tables, parent) + " is sharded over several data nodes",
                        "shard " + name(tables, child) + " like " + name(tables, parent) + " and carry its sharding column in the key");
            }
        }
    }

    /** Whether every node of a sharded table is on data source {@code dataSource}, in one actual table. */
    private static boolean onlyOn(ShardingTable table, int dataSource) {
        return dataSource >= 0 && table.nodeCount() == 1 && table.nodeDataSource(0) == dataSource;
    }

    /**
     * Why rows of {@code child} and the rows they reference in {@code parent} may lie on different data nodes, or
     * the empty string when the key keeps them on the same node index (always so for two tables of one actual table
     * each on one data source: a one-shard configuration).
     */
    static String notColocated(ShardingTable child, ForeignKey key, ShardingTable parent) {
        if (child.nodeCount() == 1 && parent.nodeCount() == 1 && child.nodeDataSource(0) == parent.nodeDataSource(0)) {
            return "";
        }
        boolean bound = child.bindingGroup() >= 0 && child.bindingGroup() == parent.bindingGroup();
        if (key.referencedColumns().isEmpty()) {
            return bound ? "" : "the key does not name the columns it references in " + parent.logicTable()
                    + " (its primary key), so Ashlar cannot check that it carries the sharding columns";
        }
        if (bound) {
            return unmapped(child, child.bindingKey(), key, parent, parent.bindingKey());
        }
        if (!child.placesLike(parent)) {
            return child.logicTable() + " (" + child.describe() + ", actual tables " + child.dataNodes() + ") and " + parent.logicTable() + " ("
                    + parent.describe() + ", actual tables " + parent.dataNodes() + ") do not place equal sharding values on the same data node";
        }
        String result = unmapped(child, child.databaseColumns(), key, parent, parent.databaseColumns());
        return result.isEmpty() ? unmapped(child, child.tableColumns(), key, parent, parent.tableColumns()) : result;
    }

    /** Why the key does not map {@code childColumns} to {@code parentColumns} position by position, or "". */
    private static String unmapped(ShardingTable child, List<String> childColumns, ForeignKey key, ShardingTable parent, List<String> parentColumns) {
        for (int i = 0, n = childColumns.size(); i < n; i++) {
            String column = childColumns.get(i);
            String expected = i < parentColumns.size() ? parentColumns.get(i) : "";
            int position = indexOf(key.columns(), column);
            if (position < 0 || position >= key.referencedColumns().size()) {
                return child.logicTable() + " is sharded by " + column + ", which the key does not carry to " + parent.logicTable() + "'s sharding column "
                        + expected;
            }
            String referenced = key.referencedColumns().get(position);
            if (!referenced.equalsIgnoreCase(expected)) {
                return "the key maps " + child.logicTable() + "'s sharding column " + column + " to " + parent.logicTable() + "." + referenced
                        + ", not to its sharding column " + expected;
            }
        }
        return "";
    }

    private static int indexOf(List<String> columns, String column) {
        for (int i = 0, n = columns.size(); i < n; i++) {
            if (columns.get(i).equalsIgnoreCase(column)) {
                return i;
            }
        }
        return -1;
    }

    private static String name(StatementTables tables, int occurrence) {
        return tables.references.get(occurrence).name().toString();
    }

    private static RouteException refuse(StatementTables tables, ForeignKey key, String reason, String hint) {
        StringBuilder message = new StringBuilder("foreign key ").append(name(tables, key.table())).append(" (");
        columns(message, key.columns()).append(") referencing ").append(name(tables, key.referencedTable()));
        if (!key.referencedColumns().isEmpty()) {
            columns(message.append(" ("), key.referencedColumns()).append(')');
        }
        message.append(" cannot be enforced across shards: ").append(reason).append(HINT).append("; ").append(hint)
                .append(", or leave the constraint out");
        return new RouteException("0A000", message.toString());
    }

    private static StringBuilder columns(StringBuilder out, List<String> columns) {
        for (int i = 0; i < columns.size(); i++) {
            out.append(i == 0 ? "" : ", ").append(columns.get(i));
        }
        return out;
    }
}
