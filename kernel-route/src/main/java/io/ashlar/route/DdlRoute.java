package io.ashlar.route;

import io.ashlar.parser.statement.AnalyzedStatement;
import io.ashlar.parser.statement.DdlKind;
import io.ashlar.parser.statement.DdlStatement;
import io.ashlar.parser.statement.ForeignKey;
import io.ashlar.parser.statement.IndexReference;
import io.ashlar.parser.statement.TableReference;
import io.ashlar.parser.statement.TableRole;
import io.ashlar.route.rule.BroadcastTable;
import io.ashlar.route.rule.RuleTable;
import io.ashlar.route.rule.ShardingRules;
import io.ashlar.route.rule.ShardingTable;
import io.ashlar.route.rule.SingleTable;

import java.util.List;
import java.util.Set;
import java.util.Locale;

/**
 * Routes DDL (and the maintenance commands that name tables: LOCK, VACUUM, ANALYZE, ...): a sharded table's DDL runs
 * on every one of its data nodes, with table names (and index and constraint names, which the rewriter suffixes) per
 * node; a broadcast table's on every data source; a single table's on its data source; a new table's on the default
 * data source. Schema-wide objects that queries on every shard may use (schemas, functions, types, extensions) are
 * created on every data source.
 *
 * @see <a href="https://www.postgresql.org/docs/current/ddl.html">Data Definition</a>
 */
final class DdlRoute {

    private static final Set<String> EVERY_DATA_SOURCE = Set.of("schema", "function", "procedure", "type", "domain", "extension", "collation", "aggregate",
            "operator", "cast", "text search configuration", "text search dictionary", "sequence");

    private DdlRoute() {
    }

    static RouteResult route(AnalyzedStatement statement, DdlStatement ddl, RouteParameters parameters, ShardingRules rules) {
        return switch (ddl.kind()) {
            case CREATE_OTHER, ALTER_OTHER, DROP_OTHER -> routeOtherObject(statement, ddl, parameters, rules);
            case ALTER_INDEX, DROP_INDEX -> routeIndex(statement, ddl, parameters, rules);
            case DROP_TABLE, TRUNCATE_TABLE -> routeTables(statement, parameters, rules, "DDL", ddl.foreignKeys(), true);
            default -> routeTables(statement, parameters, rules, "DDL", ddl.foreignKeys(), false);
        };
    }

    /** LOCK, VACUUM, ANALYZE, CLUSTER, REINDEX ... with table names: like DDL on them; without: the default data source. */
    static RouteResult routeMaintenance(AnalyzedStatement statement, RouteParameters parameters, ShardingRules rules) {
        boolean any = false;
        for (TableReference each : statement.tables()) {
            any |= each.isAccess();
        }
        return any ? routeTables(statement, parameters, rules, statement.command().toUpperCase(Locale.ROOT), List.of(), true) : rules.defaultResult();
    }

    private static RouteResult routeOtherObject(AnalyzedStatement statement, DdlStatement ddl, RouteParameters parameters, ShardingRules rules) {
        StatementTables tables = new StatementTables(statement, rules, parameters, -1);
        if (tables.hasSharded()) {
            throw ShardedConstructs.refuse(ddl.kind().name().substring(0, ddl.kind().name().indexOf('_')) + " " + ddl.objectType().toUpperCase(Locale.ROOT)
                    + " over sharded table " + tables.shardedNames());
        }
        if (EVERY_DATA_SOURCE.contains(ddl.objectType())) {
            return rules.broadcastWrite();
        }
        return RouteEngine.unshardedRead(tables);
    }

    private static RouteResult routeIndex(AnalyzedStatement statement, DdlStatement ddl, RouteParameters parameters, ShardingRules rules) {
        List<IndexReference> indexes = statement.indexes();
        String table = null;
        int last = ddl.kind() == DdlKind.ALTER_INDEX ? Math.min(1, indexes.size()) : indexes.size();
        for (int i = 0; i < last; i++) {
            String found = rules.indexTable(indexes.get(i).name().name()).orElse(null);
            if (table == null && i == 0) {
                table = found;
            } else if (found == null ? table != null : !found.equals(table)) {
                throw ShardedConstructs.refuse("DROP INDEX of indexes on different tables in one statement", "drop them one at a time");
            }
        }
        RuleTable rule = table == null ? null : rules.find(table).orElse(null);
        return switch (rule) {
            case null -> rules.broadcastWrite();
            case ShardingTable sharded -> {
                if (sharded.nodeCount() == 1) {
                    yield sharded.singleResult(0);
                }
                yield new RouteResult(RouteKind.MULTI_WRITE, sharded.allNodesQuery().units());
            }
            case BroadcastTable broadcast -> rules.broadcastWrite();
            case SingleTable single -> single.dataSourceIndex() == rules.defaultDataSourceIndex() ? rules.defaultResult()
                    : rules.singleResult(single.dataSourceIndex());
        };
    }

    /**
     * @param foreignKeys the foreign keys the statement defines (co-located tables are joined node to node)
     * @param separate    whether each named table is acted on by itself (DROP TABLE a, b; TRUNCATE a, b; LOCK, VACUUM,
     *                    ANALYZE of several tables), so that sharded tables with the same data nodes layout can share
     *                    units node by node
     */
    private static RouteResult routeTables(AnalyzedStatement statement, RouteParameters parameters, ShardingRules rules, String command,
                                           List<ForeignKey> foreignKeys, boolean separate) {
        StatementTables tables = new StatementTables(statement, rules, parameters, -1);
        List<TableReference> references = tables.references;
        boolean broadcastTarget = false;
        for (int i = 0; i < references.size(); i++) {
            TableReference reference = references.get(i);
            int kind = tables.kinds[i];
            if (kind == StatementTables.NONE) {
                continue;
            }
            boolean isTarget = reference.role() == TableRole.DDL_TARGET || reference.role() == TableRole.FROM && !command.equals("DDL")
                    || reference.role() == TableRole.DML_TARGET;
            if (kind == StatementTables.SHARDED && reference.role() == TableRole.FROM && !isTarget) {
                throw ShardedConstructs.refuse(command + " reading sharded table " + reference.name(), "create the table, then fill it with INSERT ... SELECT");
            }
            broadcastTarget |= isTarget && kind == StatementTables.BROADCAST;
        }
        if (!foreignKeys.isEmpty()) {
            ForeignKeys.align(tables, foreignKeys);
        }
        if (!tables.hasSharded()) {
            if (broadcastTarget) {
                checkBroadcastReferences(tables, command);
                return rules.broadcastWrite();
            }
            return RouteEngine.unshardedRead(tables);
        }
        if (tables.newTable >= 0) {
            throw ShardedConstructs.refuse(command + " of table " + references.get(tables.newTable).name() + ", which no rule names, with sharded table "
                    + tables.shardedNames(), "an unsharded table lives on one data source and cannot refer to a table spread over several");
        }
        if (tables.partitionCount() > 1 && separate) {
            alignSeparateTables(tables, command);
        }
        if (tables.partitionCount() > 1) {
            throw ShardedConstructs.refuse(command + " on sharded tables " + tables.shardedNames() + " that are not binding tables in one statement", "run it for each table");
        }
        for (int i = 0; i < references.size(); i++) {
            if (tables.kinds[i] == StatementTables.UNKNOWN && references.get(i).role() == TableRole.DDL_REFERENCE
                    || tables.kinds[i] == StatementTables.SINGLE && references.get(i).role() == TableRole.DDL_REFERENCE) {
                throw ShardedConstructs.refuse(command + " on sharded table " + tables.shardedNames() + " naming table " + references.get(i).name(),
                        references.get(i).name() + " is not sharded like " + tables.shardedNames()
                        + " (renaming a sharded table, or attaching other tables to it, needs its rule changed)");
            }
        }
        tables.place();
        tables.positions[0].addAll();
        List<RouteUnit> units = tables.shardedUnits();
        if (separate) {
            checkSeparateSingles(statement, tables, units);
        }
        tables.checkSinglesWith(units);
        if (broadcastTarget && coveredDataSources(units, tables) < rules.dataSources().size()) {
            throw ShardedConstructs.refuse(command + " on broadcast and sharded tables together when sharded table " + tables.shardedNames()
                    + " is not on every data source", "run it for each table");
        }
        if (units.size() == 1) {
            return new RouteResult(RouteKind.SINGLE, units);
        }
        ShardedConstructs.checkComplete(tables);
        return new RouteResult(RouteKind.MULTI_WRITE, units);
    }

    /**
     * Puts the sharded tables of DROP TABLE a, b (and TRUNCATE, LOCK, VACUUM, ANALYZE of several tables) into one
     * partition when they have the same data nodes layout: each unit then names actual table N of every table, so each
     * actual table is named exactly once, and the tables of one data source are dropped or truncated together, as
     * PostgreSQL does (TRUNCATE of tables that reference each other needs them in one statement).
     *
     * @throws RouteException 0A000 when the layouts differ: no set of units names every actual table once
     */
    private static void alignSeparateTables(StatementTables tables, String command) {
        ShardingTable first = tables.partitionTable(0);
        for (int p = 1; p < tables.partitionCount(); p++) {
            ShardingTable table = tables.partitionTable(p);
            if (!table.sameLayout(first)) {
                throw ShardedConstructs.refuse(command + " on sharded tables " + first.logicTable() + " and " + table.logicTable()
                        + " in one statement when their actual tables are laid out differently (" + first.dataNodes() + ", " + table.dataNodes() + ")",
                        "run it for each table");
            }
        }
        while (tables.partitionCount() > 1) {
            tables.mergePartition(1, 0);
        }
    }

    /**
     * DROP TABLE, TRUNCATE, LOCK, VACUUM or ANALYZE of a sharded table with an unsharded one: one statement per data
     * source can name both only where the sharded table has no actual table on another data source.
     *
     * @throws RouteException 0A000 naming the tables and where each lives
     */
    private static void checkSeparateSingles(AnalyzedStatement statement, StatementTables tables, List<RouteUnit> units) {
        if (tables.singleDataSource < 0) {
            return;
        }
        for (RouteUnit each : units) {
            if (tables.dataSourceOf(each) != tables.singleDataSource) {
                throw ShardedConstructs.refuse(statement.command().toUpperCase(Locale.ROOT) + " of sharded table " + tables.shardedNames()
                        + " together with table " + tables.describe(tables.singleOccurrence) + " in one statement",
                        tables.shardedNames() + " has actual tables on data source " + each.dataSource() + ", where "
                        + tables.references.get(tables.singleOccurrence).name() + " is not; run the statement for each table");
            }
        }
    }

    private static void checkBroadcastReferences(StatementTables tables, String command) {
        if (tables.singleDataSource >= 0 && tables.rules.dataSources().size() > 1) {
            throw ShardedConstructs.refuse(command + " on broadcast table naming table " + tables.describe(tables.singleOccurrence)
                    + ", which is not on every data source");
        }
        for (int i = 0; i < tables.kinds.length; i++) {
            if (tables.kinds[i] == StatementTables.UNKNOWN && tables.references.get(i).role() == TableRole.DDL_REFERENCE && tables.rules.dataSources().size() > 1) {
                throw ShardedConstructs.refuse(command + " on broadcast table naming table " + tables.references.get(i).name()
                        + ", which is not a broadcast table");
            }
        }
    }

    private static int coveredDataSources(List<RouteUnit> units, StatementTables tables) {
        boolean[] covered = new boolean[tables.rules.dataSources().size()];
        int result = 0;
        for (RouteUnit each : units) {
            int index = tables.dataSourceOf(each);
            if (!covered[index]) {
                covered[index] = true;
                result++;
            }
        }
        return result;
    }
}
