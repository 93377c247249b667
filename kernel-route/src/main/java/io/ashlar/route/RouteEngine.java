package io.ashlar.route;

import io.ashlar.parser.GuardedDoBlock;
import io.ashlar.parser.StatementAnalyzer;
import io.ashlar.parser.lexer.Lexer;
import io.ashlar.parser.lexer.SqlSyntaxException;
import io.ashlar.parser.lexer.TokenKind;
import io.ashlar.parser.lexer.TokenList;
import io.ashlar.parser.statement.AnalyzedStatement;
import io.ashlar.parser.statement.Assignment;
import io.ashlar.parser.statement.Conjunction;
import io.ashlar.parser.statement.ConditionOperator;
import io.ashlar.parser.statement.CopyStatement;
import io.ashlar.parser.statement.DdlStatement;
import io.ashlar.parser.statement.DeleteStatement;
import io.ashlar.parser.statement.InsertStatement;
import io.ashlar.parser.statement.MergeStatement;
import io.ashlar.parser.statement.QueryBlock;
import io.ashlar.parser.statement.SelectStatement;
import io.ashlar.parser.statement.ShardingCondition;
import io.ashlar.parser.statement.StatementKind;
import io.ashlar.parser.statement.TableReference;
import io.ashlar.parser.statement.TableRole;
import io.ashlar.parser.statement.UpdateStatement;
import io.ashlar.route.rule.BroadcastTable;
import io.ashlar.route.rule.NodeSet;
import io.ashlar.route.rule.RuleTable;
import io.ashlar.route.rule.ShardingRules;
import io.ashlar.route.rule.ShardingTable;
import io.ashlar.route.rule.ShardingValues;

import java.util.List;
import io.ashlar.route.rule.ValueComparison;

/**
 * Decides where a statement runs: which data sources, with which actual table standing for each logic table, and
 * how the executor must run and merge it ({@link RouteKind}). Statements that cannot be answered across shards
 * exactly as one PostgreSQL database would answer them are refused here, before anything runs, with SQLSTATE 0A000
 * and a message naming the construct and the table. The session then plans a SELECT refused so
 * ({@link RouteException#plannable()}) recursively instead ({@link RecursivePlan}): only after the refusal, so that
 * statements routed here pay nothing for it.
 *
 * <p>What goes where:
 * <ul>
 * <li>SET, RESET, SHOW, transaction control, PREPARE, EXECUTE, DEALLOCATE, DISCARD, LISTEN, UNLISTEN: the session
 * ({@link RouteKind#SESSION}).</li>
 * <li>A statement touching no sharded or broadcast table, whose unsharded tables live on the default data source
 * (also {@code SELECT 1}, function calls and catalog queries): {@link RouteKind#DEFAULT}, unchanged.</li>
 * <li>Sharded tables: the nodes their {@code =}, {@code IN}, {@code BETWEEN}, {@code <}, {@code <=}, {@code >},
 * {@code >=} conditions (OR of ANDs, literals, casts and parameters) allow. Binding tables joined on the sharding
 * columns that pick their actual tables run node by node, a condition on any of them narrowing all of them. Other sharded tables together run only where all of them lie on one data
 * source, as the cartesian product of their nodes there (a read; a write refuses it); across data sources their
 * rows would never meet, so the statement is refused rather than answered with the rows of each data source
 * alone.</li>
 * <li>Outer joins whose kept side has no sharded table are refused over several units ({@link OuterJoins}).</li>
 * <li>Broadcast tables: a read on one data source (where the statement's other tables are), a write or DDL on all.</li>
 * <li>Single tables: on their data source; mixed with tables of another data source, refused.</li>
 * </ul>
 * Stateless and thread-safe; a call allocates little beyond its result, and the common case (one sharded table,
 * {@code =} on its sharding column) returns a result built when the rules were compiled.
 *
 * @see <a href="https://shardingsphere.apache.org/document/5.4.1/en/features/sharding/">ShardingSphere sharding</a>
 */
public final class RouteEngine {

    /**
     * Routes one statement.
     *
     * @param statement the analysed statement
     * @param parameters the values bound to its parameters
     * @param rules the logical database's compiled rules
     * @throws RouteException with SQLSTATE 0A000 for a construct that cannot be answered across shards, 22023 for a
     *         sharding value no algorithm accepts, 08P01 for a missing parameter value, and the value's own SQLSTATE
     *         for an INSERT row whose sharding value the proxy could not read ({@link UnreadableValue}): no row is
     *         ever placed on a default node
     */
    public RouteResult route(AnalyzedStatement statement, RouteParameters parameters, ShardingRules rules) {
        switch (statement.kind()) {
            case SET, RESET, SHOW, TRANSACTION, PREPARE, EXECUTE, DEALLOCATE, DISCARD -> {
                return rules.sessionResult();
            }
            case EMPTY -> {
                return rules.defaultResult();
            }
            case OTHER -> {
                if (isSessionCommand(statement.command())) {
                    return rules.sessionResult();
                }
            }
            default -> {
                // routed below
            }
        }
        if (!rules.isEmpty() && statement.kind() == StatementKind.OTHER && statement.command().equals("do")) {
            if (GuardedDoBlock.createsObjectsOnly(statement.sql())) {
                return rules.broadcastWrite(); // made on every data source, as CREATE TYPE is
            }
            checkDoBlock(statement, rules);
        }
        if (rules.isEmpty() || statement.tables().isEmpty() && statement.kind() != StatementKind.DDL) {
            if (!rules.isEmpty() && (statement.command().equals("vacuum") || statement.command().equals("analyze"))) {
                return rules.broadcastWrite(); // a bare VACUUM or ANALYZE is about every table: every data source
            }
            return rules.defaultResult();
        }
        RouteResult fast = FastRoute.route(statement, parameters, rules);
        if (fast != null) {
            return fast;
        }
        return switch (statement.body()) {
            case SelectStatement select -> routeQuery(statement, select, parameters, rules);
            case InsertStatement insert -> InsertRoute.route(statement, insert, parameters, rules);
            case UpdateStatement update -> checkCurrentOf(update.currentOf(), routeUpdate(statement, update, parameters, rules), statement);
            case DeleteStatement delete -> checkCurrentOf(delete.currentOf(), routeWrite(new StatementTables(statement, rules, parameters, -1),
                    delete.target(), "DELETE"), statement);
            case MergeStatement merge -> routeMerge(statement, merge, parameters, rules);
            case DdlStatement ddl -> DdlRoute.route(statement, ddl, parameters, rules);
            case CopyStatement copy -> routeCopy(statement, copy, parameters, rules);
            default -> routeOther(statement, parameters, rules);
        };
    }

    /**
     * A {@code DO} block runs on the default data source as it is: a sharded table it names is not there under that
     * name (PostgreSQL's 42P01 said so, as if the table did not exist), and a broadcast table's other copies would not
     * see its writes. Such a block is refused by name instead. A sharded table whose one actual table is the default
     * data source's table of the same name is there, and runs.
     */
    private static void checkDoBlock(AnalyzedStatement statement, ShardingRules rules) {
        TokenList tokens;
        try {
            tokens = Lexer.tokenize(statement.sql());
        } catch (SqlSyntaxException e) {
            return;
        }
        for (int i = 0, n = tokens.size(); i < n; i++) {
            if (tokens.kind(i) != TokenKind.DOLLAR_STRING && tokens.kind(i) != TokenKind.STRING) {
                continue;
            }
            String quoted = tokens.text(i);
            int open = tokens.kind(i) == TokenKind.STRING ? 1 : quoted.indexOf('$', 1) + 1;
            int close = tokens.kind(i) == TokenKind.STRING ? quoted.length() - 1 : quoted.length() - open;
            if (open <= 0 || close < open) {
                continue;
            }
            TokenList body;
            try {
                body = Lexer.tokenize(quoted.substring(open, close));
            } catch (SqlSyntaxException e) {
                continue;
            }
            for (int k = 0, m = body.size(); k < m; k++) {
                if (body.kind(k) != TokenKind.IDENTIFIER && body.kind(k) != TokenKind.QUOTED_IDENTIFIER) {
                    continue;
                }
                RuleTable rule = rules.find(body.identifier(k)).orElse(null);
                if (rule instanceof ShardingTable table && !onDefaultAsItself(table, rules)
                        || rule instanceof BroadcastTable && rules.dataSources().size() > 1) {
                    throw ShardedConstructs.refuse("a DO block naming " + (rule instanceof ShardingTable ? "sharded" : "broadcast")
                            + " table " + body.identifier(k), "a DO block runs on one data source as it is; run its statements one by one");
                }
            }
        }
    }

    private static boolean onDefaultAsItself(ShardingTable table, ShardingRules rules) {
        return table.nodeCount() == 1 && table.node(0).table().equals(table.logicTable())
                && table.node(0).dataSource().equals(rules.defaultDataSource());
    }

    /** {@code WHERE CURRENT OF cursor} names a cursor of one backend connection: it cannot span shards. */
    private static RouteResult checkCurrentOf(boolean currentOf, RouteResult result, AnalyzedStatement statement) {
        if (currentOf && result.units().size() > 1) {
            throw ShardedConstructs.refuse("WHERE CURRENT OF over sharded table " + statement.tables().get(0).name() + " across several shards");
        }
        return result;
    }

    private static boolean isSessionCommand(String command) {
        return command.equals("listen") || command.equals("unlisten");
    }

    /** A query: merged from every unit its conditions need. */
    static RouteResult routeQuery(AnalyzedStatement statement, SelectStatement select, RouteParameters parameters, ShardingRules rules) {
        StatementTables tables = new StatementTables(statement, rules, parameters, -1);
        if (!tables.hasSharded()) {
            return unshardedRead(tables);
        }
        tables.place();
        List<RouteUnit> units = tables.shardedUnits();
        tables.checkSinglesWith(units);
        if (units.size() == 1) {
            return new RouteResult(RouteKind.SINGLE, units);
        }
        ShardedConstructs.checkComplete(tables);
        if (tables.newTable >= 0) {
            throw ShardedConstructs.refuse("SELECT INTO table " + tables.references.get(tables.newTable).name() + " from sharded table " + tables.shardedNames()
                    + " across several shards", "create the table, then fill it with INSERT ... SELECT");
        }
        if (select != null) {
            ShardedConstructs.checkQuery(select, tables);
        }
        ShardedConstructs.checkBlocks(tables, rootBlock(statement));
        ShardedConstructs.checkJoins(tables);
        OuterJoins.check(tables);
        if (tables.partitionCount() == 1 && tables.partitions.get(0).size() == 1 && units.size() == tables.partitionTable(0).nodeCount()) {
            return tables.partitionTable(0).allNodesQuery();
        }
        return new RouteResult(RouteKind.MULTI_QUERY, units);
    }

    private static boolean[] rootBlock(AnalyzedStatement statement) {
        boolean[] result = new boolean[statement.blocks().size()];
        result[0] = true;
        return result;
    }

    /** A read of broadcast, single and unknown tables only: one data source. */
    static RouteResult unshardedRead(StatementTables tables) {
        ShardingRules rules = tables.rules;
        if (tables.singleDataSource >= 0) {
            return tables.singleDataSource == rules.defaultDataSourceIndex() && !tables.hasBroadcast ? rules.defaultResult()
                    : rules.singleResult(tables.singleDataSource);
        }
        return tables.hasBroadcast ? rules.singleResult(0) : rules.defaultResult();
    }

    /** UPDATE, DELETE (and the shared part of INSERT and MERGE): by what the written table is. */
    static RouteResult routeWrite(StatementTables tables, int target, String command) {
        return switch (tables.kinds[target]) {
            case StatementTables.SHARDED -> shardedWrite(tables, target, command);
            case StatementTables.BROADCAST -> broadcastWrite(tables, target);
            default -> unshardedWrite(tables, target);
        };
    }

    private static RouteResult shardedWrite(StatementTables tables, int target, String command) {
        tables.place();
        List<RouteUnit> units = tables.shardedUnits();
        tables.checkSinglesWith(units);
        if (units.size() == 1) {
            return new RouteResult(RouteKind.SINGLE, units);
        }
        if (tables.partitionCount() > 1) {
            throw ShardedConstructs.refuse(command + " of sharded table " + tables.references.get(target).name() + " with sharded table "
                    + otherPartitions(tables, tables.partitionOf[target]) + ", which is not a binding table joined to it on the sharding columns that pick its actual tables, "
                    + "across several shards");
        }
        ShardedConstructs.checkComplete(tables);
        ShardedConstructs.checkBlocks(tables, rootBlock(tables.statement));
        ShardedConstructs.checkJoins(tables);
        OuterJoins.check(tables);
        return new RouteResult(RouteKind.MULTI_WRITE, units);
    }

    private static String otherPartitions(StatementTables tables, int partition) {
        StringBuilder result = new StringBuilder();
        for (int p = 0; p < tables.partitionCount(); p++) {
            if (p != partition) {
                result.append(result.isEmpty() ? "" : ", ").append(tables.partitionNames(p));
            }
        }
        return result.toString();
    }

    /** A write to a broadcast table: the same statement on every data source, which therefore must hold every table it reads. */
    static RouteResult broadcastWrite(StatementTables tables, int target) {
        ShardingRules rules = tables.rules;
        if (tables.hasSharded()) {
            throw ShardedConstructs.refuse("writing broadcast table " + tables.references.get(target).name() + " from sharded table " + tables.shardedNames());
        }
        if (tables.singleDataSource >= 0 && rules.dataSources().size() > 1) {
            throw ShardedConstructs.refuse("writing broadcast table " + tables.references.get(target).name() + " from table " + tables.describe(tables.singleOccurrence)
                    + ", which is not on every data source");
        }
        return rules.broadcastWrite();
    }

    /** A write to a single or unknown table: on its data source; sharded tables it reads must be there, on one node. */
    static RouteResult unshardedWrite(StatementTables tables, int target) {
        if (tables.hasSharded()) {
            tables.place();
            List<RouteUnit> units = tables.shardedUnits();
            if (units.size() > 1) {
                throw ShardedConstructs.refuse("writing table " + tables.describe(target) + " from sharded table " + tables.shardedNames()
                        + " across several shards");
            }
            tables.checkSinglesWith(units);
            return new RouteResult(RouteKind.SINGLE, units);
        }
        return unshardedRead(tables);
    }

    private static RouteResult routeUpdate(AnalyzedStatement statement, UpdateStatement update, RouteParameters parameters, ShardingRules rules) {
        StatementTables tables = new StatementTables(statement, rules, parameters, -1);
        int target = update.target();
        NodeSet stayOn = tables.kinds[target] == StatementTables.SHARDED ? checkAssignments(tables, update) : null;
        RouteResult result = routeWrite(tables, target, "UPDATE");
        return stayOn == null ? result : rowsStay(result, tables.shardingTable(target), stayOn, update);
    }

    /** The units of {@code result} on nodes outside {@code stayOn}, each of which must change no row. */
    private static RouteResult rowsStay(RouteResult result, ShardingTable table, NodeSet stayOn, UpdateStatement update) {
        List<RouteUnit> units = result.units();
        int[] guarded = new int[units.size()];
        int count = 0;
        for (int i = 0; i < guarded.length; i++) {
            int node = table.nodeOf(units.get(i));
            if (node < 0 || !stayOn.contains(node)) {
                guarded[count++] = i;
            }
        }
        if (count == 0) {
            return result;
        }
        StringBuilder columns = new StringBuilder();
        for (Assignment assignment : update.assignments()) {
            for (String column : assignment.columns()) {
                if (table.columnId(column) >= 0) {
                    columns.append(columns.isEmpty() ? "" : ", ").append(column);
                }
            }
        }
        String message = "UPDATE of sharding column " + columns + " of " + table.logicTable()
                + " would move a row to another shard, which is not supported: delete the row and insert it again";
        return new RouteResult(result.kind(), units, result.generatedKeys(),
                new RouteResult.RowsStay(java.util.Arrays.copyOf(guarded, count), message));
    }

    /**
     * SET of a sharding column could move the row to another node, which one UPDATE on that node cannot do. Allowed
     * when the new value is provably the one every WHERE disjunct already fixes, and when it is a value (a literal or
     * a parameter) whose nodes the rules tell: the UPDATE then runs where its WHERE leads, and the units on other nodes
     * must change no row ({@link RouteResult.RowsStay}).
     *
     * @return the nodes rows may stay on, or null when no assignment can move a row
     */
    private static NodeSet checkAssignments(StatementTables tables, UpdateStatement update) {
        int target = update.target();
        ShardingTable table = tables.shardingTable(target);
        Object[] set = null;
        for (Assignment assignment : update.assignments()) {
            for (String column : assignment.columns()) {
                int id = table.columnId(column);
                if (id < 0) {
                    continue;
                }
                Object value = assignment.columns().size() == 1 && assignment.value().isPresent()
                        ? SqlValues.value(assignment.value().get(), tables.parameters) : null;
                if (value != null && fixedByWhere(tables, target, table, id, value)) {
                    continue;
                }
                Object stored = value == null || value instanceof UnreadableValue ? null
                        : SqlValues.isKnownText(assignment.value().get(), tables.parameters) ? value : ShardingValues.normaliseStored(value);
                if (stored == null) {
                    throw cannotUpdate(column, table);
                }
                if (set == null) {
                    set = new Object[table.shardingColumns().size()];
                }
                if (set[id] != null && !ValueComparison.same(set[id], stored)) {
                    throw cannotUpdate(column, table);
                }
                set[id] = stored;
            }
        }
        if (set == null || table.nodeCount() == 1) {
            return null;
        }
        NodeSet result = table.nodesAfterSetting(set);
        if (result == null) {
            throw cannotUpdate(table.shardingColumns().get(firstSet(set)), table);
        }
        return result.isFull() ? null : result;
    }

    private static int firstSet(Object[] set) {
        for (int i = 0; i < set.length; i++) {
            if (set[i] != null) {
                return i;
            }
        }
        return 0;
    }

    private static RouteException cannotUpdate(String column, ShardingTable table) {
        return new RouteException("0A000", "updating sharding column " + column + " of " + table.logicTable()
                + " is not supported: it could move the row to another shard");
    }

    private static boolean fixedByWhere(StatementTables tables, int target, ShardingTable table, int id, Object value) {
        QueryBlock block = tables.statement.blocks().get(tables.references.get(target).block());
        for (Conjunction conjunction : block.where().disjuncts()) {
            boolean fixed = false;
            for (ShardingCondition condition : conjunction.conditions()) {
                boolean single = condition.operator() == ConditionOperator.EQUAL || condition.operator() == ConditionOperator.IN && condition.values().size() == 1;
                if (single && tables.columnOf(condition.column(), target, table) == id) {
                    Object fixedValue = SqlValues.value(condition.values().get(0), tables.parameters);
                    if (fixedValue != null && ValueComparison.same(fixedValue, value)) {
                        fixed = true;
                        break;
                    }
                }
            }
            if (!fixed) {
                return false;
            }
        }
        return true;
    }

    private static RouteResult routeMerge(AnalyzedStatement statement, MergeStatement merge, RouteParameters parameters, ShardingRules rules) {
        StatementTables tables = new StatementTables(statement, rules, parameters, -1);
        RouteResult result = routeWrite(tables, merge.target(), "MERGE");
        if (result.units().size() > 1 && tables.hasSharded()) {
            throw ShardedConstructs.refuse("MERGE into sharded table " + tables.references.get(merge.target()).name() + " across several shards");
        }
        return result;
    }

    private static RouteResult routeCopy(AnalyzedStatement statement, CopyStatement copy, RouteParameters parameters, ShardingRules rules) {
        if (copy.table().isEmpty()) {
            if (copy.query().isEmpty()) {
                return rules.defaultResult();
            }
            AnalyzedStatement query = StatementAnalyzer.analyze(copy.query().get().text(statement.sql()));
            RouteResult result = new RouteEngine().route(query, parameters, rules);
            if (result.kind() == RouteKind.MULTI_WRITE || result.kind() == RouteKind.BROADCAST_WRITE) {
                throw ShardedConstructs.refuse("COPY of a data-modifying query over several data sources");
            }
            return result;
        }
        int target = copy.table().getAsInt();
        StatementTables tables = new StatementTables(statement, rules, parameters, -1);
        if (!copy.stdio() && tables.kinds[target] == StatementTables.SHARDED && tables.shardingTable(target).nodeCount() > 1) {
            // Every actual table would load the whole file (rows on shards the rule does not name, each row once per
            // node) or write its rows to the same path on its server, one node's over another's.
            String name = tables.shardingTable(target).logicTable();
            throw new RouteException("0A000", copy.from()
                    ? "COPY of sharded table " + name + " from a server-side file or program is not supported:"
                            + " use COPY ... FROM STDIN (psql's \\copy), whose rows Ashlar sends each to its shard"
                    : "COPY of sharded table " + name + " to a server-side file or program is not supported:"
                            + " use COPY ... TO STDOUT (psql's \\copy), which Ashlar merges from every shard", false);
        }
        if (!copy.from()) {
            if (tables.kinds[target] == StatementTables.SHARDED) {
                return tables.shardingTable(target).allNodesQuery();
            }
            return unshardedRead(tables);
        }
        return switch (tables.kinds[target]) {
            case StatementTables.SHARDED -> {
                ShardingTable table = tables.shardingTable(target);
                if (table.nodeCount() == 1) {
                    yield table.singleResult(0);
                }
                yield new RouteResult(RouteKind.MULTI_WRITE, table.allNodesQuery().units());
            }
            case StatementTables.BROADCAST -> rules.broadcastWrite();
            default -> unshardedRead(tables);
        };
    }

    /** EXPLAIN like the query it explains; LOCK, VACUUM, ANALYZE ... on every node of the tables they name. */
    private static RouteResult routeOther(AnalyzedStatement statement, RouteParameters parameters, ShardingRules rules) {
        if (statement.command().equals("explain")) {
            StatementTables tables = new StatementTables(statement, rules, parameters, -1);
            if (!tables.hasSharded()) {
                return unshardedRead(tables);
            }
            tables.place();
            List<RouteUnit> units = tables.shardedUnits();
            tables.checkSinglesWith(units);
            if (units.size() > 1 && writes(tables) && analyses(statement.sql())) {
                throw ShardedConstructs.refuse("EXPLAIN ANALYZE of a write to sharded table " + tables.shardedNames() + " across several shards",
                        "it would run the write once per shard; use EXPLAIN without ANALYZE");
            }
            return new RouteResult(units.size() == 1 ? RouteKind.SINGLE : RouteKind.MULTI_QUERY, units);
        }
        return DdlRoute.routeMaintenance(statement, parameters, rules);
    }

    private static boolean writes(StatementTables tables) {
        for (TableReference each : tables.references) {
            if (each.role() == TableRole.DML_TARGET || each.role() == TableRole.DDL_TARGET) {
                return true;
            }
        }
        return false;
    }

    /** Whether an EXPLAIN runs its statement: ANALYZE among its options, before the explained statement. */
    private static boolean analyses(String sql) {
        TokenList tokens;
        try {
            tokens = Lexer.tokenize(sql);
        } catch (SqlSyntaxException e) {
            return true;
        }
        for (int i = 1, n = tokens.size(); i < n; i++) {
            if (tokens.kind(i) == TokenKind.IDENTIFIER) {
                if (tokens.textEqualsIgnoreCase(i, "analyze") || tokens.textEqualsIgnoreCase(i, "analyse")) {
                    return !(tokens.is(i + 1, TokenKind.IDENTIFIER) && (tokens.textEqualsIgnoreCase(i + 1, "false") || tokens.textEqualsIgnoreCase(i + 1, "off")));
                }
                if (!tokens.is(i - 1, TokenKind.LEFT_PAREN) && !tokens.is(i - 1, TokenKind.COMMA) && !tokens.textEqualsIgnoreCase(i, "verbose")) {
                    return false;
                }
            }
        }
        return false;
    }
}
