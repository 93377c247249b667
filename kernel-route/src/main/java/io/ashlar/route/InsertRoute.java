package io.ashlar.route;

import io.ashlar.parser.StatementAnalyzer;
import io.ashlar.parser.lexer.Lexer;
import io.ashlar.parser.lexer.SqlSyntaxException;
import io.ashlar.parser.lexer.TokenKind;
import io.ashlar.parser.lexer.TokenList;
import io.ashlar.parser.statement.AnalyzedStatement;
import io.ashlar.parser.statement.ColumnReference;
import io.ashlar.parser.statement.InsertStatement;
import io.ashlar.parser.statement.InsertValue;
import io.ashlar.parser.statement.ParameterValue;
import io.ashlar.parser.statement.ProjectionItem;
import io.ashlar.parser.statement.ProjectionKind;
import io.ashlar.parser.statement.SelectStatement;
import io.ashlar.parser.statement.SetOperation;
import io.ashlar.parser.statement.SqlValue;
import io.ashlar.parser.statement.TableReference;
import io.ashlar.parser.statement.ValuesRow;
import io.ashlar.route.rule.NodeSet;
import io.ashlar.route.rule.RuleTable;
import io.ashlar.route.rule.ShardingRules;
import io.ashlar.route.rule.ShardingTable;
import io.ashlar.route.rule.ShardingValues;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Locale;

/**
 * Routes INSERT: each VALUES row by its own sharding values (generating the key column when the statement leaves
 * it out and the table has a key generator), INSERT ... SELECT only where every row provably stays on the node it
 * is read from, and refuses ON CONFLICT ... DO UPDATE SET of a sharding column.
 *
 * @see <a href="https://www.postgresql.org/docs/current/sql-insert.html">INSERT</a>
 * @see <a href="https://shardingsphere.apache.org/document/5.4.1/en/user-manual/common-config/builtin-algorithm/keygen/">ShardingSphere key generators</a>
 */
final class InsertRoute {

    private InsertRoute() {
    }

    static RouteResult route(AnalyzedStatement statement, InsertStatement insert, RouteParameters parameters, ShardingRules rules) {
        int target = insert.target();
        StatementTables tables = new StatementTables(statement, rules, parameters, target);
        return switch (tables.kinds[target]) {
            case StatementTables.SHARDED -> routeSharded(tables, insert);
            case StatementTables.BROADCAST -> RouteEngine.broadcastWrite(tables, target);
            default -> RouteEngine.unshardedWrite(tables, target);
        };
    }

    private static RouteResult routeSharded(StatementTables tables, InsertStatement insert) {
        ShardingTable table = tables.shardingTable(insert.target());
        if (insert.onConflict().isPresent()) {
            checkOnConflict(insert, table, tables.statement.sql());
        }
        if (!insert.rows().isEmpty()) {
            return routeRows(tables, insert, table);
        }
        if (insert.query().isPresent()) {
            return routeQuery(tables, insert, table);
        }
        if (table.nodeCount() == 1) {
            return withOthers(tables, insert, table, List.of(table.unit(0)), Optional.empty());
        }
        throw ShardedConstructs.refuse("INSERT ... DEFAULT VALUES into sharded table " + table.logicTable(), "it gives no value for sharding column "
                + String.join(", ", table.shardingColumns()));
    }

    private static RouteResult routeRows(StatementTables tables, InsertStatement insert, ShardingTable table) {
        List<String> columns = table.shardingColumns();
        List<ValuesRow> rows = insert.rows();
        String keyColumn = table.keyGenerateColumn().orElse(null);
        boolean generate = keyColumn != null && !insert.columns().isEmpty() && insert.columnIndex(keyColumn) < 0;
        int keyColumnId = generate ? table.columnId(keyColumn) : -1;
        List<Comparable<?>> keys = generate ? new ArrayList<>(rows.size()) : List.of();
        int[] positions = new int[columns.size()];
        for (int c = 0; c < positions.length; c++) {
            positions[c] = insert.columnIndex(columns.get(c));
        }
        if (insert.columns().isEmpty() && table.nodeCount() > 1) {
            throw ShardedConstructs.refuse("INSERT into sharded table " + table.logicTable() + " without a column list",
                    "Ashlar does not know the order of the table's columns, so it cannot find the value of sharding column" + (columns.size() > 1 ? "s " : " ")
                            + String.join(", ", columns) + "; list the columns: INSERT INTO " + table.logicTable() + " (" + String.join(", ", columns)
                            + ", ...) VALUES (...)");
        }
        int[] nodeOfRow = new int[rows.size()];
        Object[] values = new Object[columns.size()];
        int first = -1;
        boolean several = false;
        for (int r = 0; r < rows.size(); r++) {
            Comparable<?> key = generate ? table.generateKey() : null;
            if (generate) {
                keys.add(key);
            }
            if (table.nodeCount() == 1 || tables.parameters.placeholders()) {
                nodeOfRow[r] = 0;
                first = 0;
                continue;
            }
            List<InsertValue> row = rows.get(r).values();
            for (int c = 0; c < positions.length; c++) {
                values[c] = c == keyColumnId ? key : positions[c] < 0 ? null : rowValue(tables, table, columns.get(c), row, positions[c], r, rows.size());
            }
            int node = table.routeRow(values);
            if (node < 0) {
                throw unroutable(table, columns, values, node, r, rows.size());
            }
            nodeOfRow[r] = node;
            if (first < 0) {
                first = node;
            } else if (node != first) {
                several = true;
            }
        }
        Optional<RouteResult.GeneratedKeys> generated = generate ? Optional.of(new RouteResult.GeneratedKeys(keyColumn, keys)) : Optional.empty();
        if (!several) {
            return withOthers(tables, insert, table, List.of(table.unit(first)), generated);
        }
        NodeSet used = NodeSet.empty(table.nodeCount());
        for (int each : nodeOfRow) {
            used.add(each);
        }
        List<RouteUnit> units = new ArrayList<>(used.size());
        for (int node = used.next(0); node >= 0; node = used.next(node + 1)) {
            int count = 0;
            for (int each : nodeOfRow) {
                count += each == node ? 1 : 0;
            }
            int[] selected = new int[count];
            int next = 0;
            for (int r = 0; r < nodeOfRow.length; r++) {
                if (nodeOfRow[r] == node) {
                    selected[next++] = r;
                }
            }
            units.add(new RouteUnit(table.node(node).dataSource(), List.of(table.mapping(node)), selected));
        }
        return withOthers(tables, insert, table, units, generated);
    }

    /**
     * The value a row stores into a sharding column, in canonical form. Text of a known text type (a typed parameter,
     * a cast to text) is the string it is; text of unknown type (a quoted literal, a parameter whose type nobody
     * knows) that spells an integer is stored as that integer, as PostgreSQL does into an integer column.
     *
     * @throws RouteException with the value's own SQLSTATE when the proxy could not read a bound value: a row is
     *         never placed by a guess
     */
    private static Object rowValue(StatementTables tables, ShardingTable table, String column, List<InsertValue> row, int position, int rowIndex,
                                   int rowCount) {
        if (position >= row.size()) {
            throw new RouteException("42601", "INSERT has more target columns than expressions (row " + (rowIndex + 1) + ")");
        }
        InsertValue value = row.get(position);
        if (value.value().isEmpty() && value.range().text(tables.statement.sql()).equalsIgnoreCase("NULL")) {
            throw RouteException.nullShardingValue(table.logicTable(), column);
        }
        if (value.value().isEmpty()) {
            throw ShardedConstructs.refuse("sharding column " + column + " of INSERT into sharded table " + table.logicTable() + " given as "
                    + value.kind().name().toLowerCase(Locale.ROOT) + " " + value.range().text(tables.statement.sql()), "give a literal or a parameter");
        }
        SqlValue sqlValue = value.value().get();
        Object read = SqlValues.value(sqlValue, tables.parameters);
        if (read instanceof UnreadableValue unreadable) {
            throw unreadable(table, column, sqlValue, unreadable, rowIndex, rowCount);
        }
        Object result = SqlValues.isKnownText(sqlValue, tables.parameters) ? read : ShardingValues.normaliseStored(read);
        if (result == null) {
            throw RouteException.nullShardingValue(table.logicTable(), column);
        }
        return result;
    }

    /**
     * The refusal of a row whose sharding value the proxy could not read: routing it anywhere would be a guess, and a
     * row on the wrong shard is found by no later query.
     */
    private static RouteException unreadable(ShardingTable table, String column, SqlValue value, UnreadableValue unreadable, int row, int rows) {
        String parameter = value instanceof ParameterValue marker ? "parameter $" + marker.number() : "the value";
        return new RouteException(unreadable.sqlState(), "cannot route INSERT into sharded table " + table.logicTable() + (rows > 1 ? " (row " + (row + 1) + ")" : "")
                + ": " + parameter + " for sharding column " + column + " " + unreadable.reason()
                + "; Ashlar does not place a row by a value it cannot read: bind the value as text or in the binary format of its type,"
                + " or cast the parameter in the statement ($n::bigint, $n::text)");
    }

    private static RouteException unroutable(ShardingTable table, List<String> columns, Object[] values, int node, int row, int rows) {
        String where = rows > 1 ? " (row " + (row + 1) + ")" : "";
        if (node == ShardingTable.UNUSABLE_VALUE) {
            return new RouteException("22023", "cannot route sharded table " + table.logicTable() + " by " + describe(columns, values) + where + ": "
                    + table.unusableReason(values));
        }
        if (node == ShardingTable.NO_NODE) {
            return new RouteException("22023", "no data node of sharded table " + table.logicTable() + " takes " + describe(columns, values) + where);
        }
        for (int c = 0; c < values.length; c++) {
            if (values[c] == null) {
                return RouteException.omittedShardingValue(table.logicTable(), columns.get(c));
            }
        }
        if (values.length == 0) {
            return ShardedConstructs.refuse("INSERT into sharded table " + table.logicTable() + " routed by hint (" + table.describe() + ")",
                    "a hint strategy needs a hint value to pick one data node, and the statement gives none");
        }
        return ShardedConstructs.refuse("INSERT into sharded table " + table.logicTable() + " whose strategies (" + table.describe()
                + ") do not pick one data node for " + describe(columns, values) + where);
    }

    private static String describe(List<String> columns, Object[] values) {
        StringBuilder result = new StringBuilder();
        for (int c = 0; c < values.length; c++) {
            result.append(c == 0 ? "" : ", ").append(columns.get(c)).append(" = ").append(values[c]);
        }
        return result.toString();
    }

    /** Adds the other sharded tables an INSERT reads (in VALUES subqueries, ON CONFLICT): only on the row's node. */
    private static RouteResult withOthers(StatementTables tables, InsertStatement insert, ShardingTable table, List<RouteUnit> units,
                                          Optional<RouteResult.GeneratedKeys> keys) {
        boolean others = false;
        for (int i = 0; i < tables.kinds.length; i++) {
            others |= i != insert.target() && tables.kinds[i] == StatementTables.SHARDED;
        }
        List<RouteUnit> result = units;
        if (others) {
            tables.place();
            if (units.size() > 1) {
                throw ShardedConstructs.refuse("INSERT into sharded table " + table.logicTable() + " reading sharded table " + tables.shardedNames()
                        + " across several shards");
            }
            RouteUnit unit = units.get(0);
            int targetPartition = tables.partitionOf[insert.target()];
            List<TableMapping> mappings = new ArrayList<>(unit.tables());
            for (int p = 0; p < tables.partitionCount(); p++) {
                if (!tables.touched[p]) {
                    continue;
                }
                NodeSet nodes = tables.positions[p];
                int node = nodes.next(0);
                ShardingTable first = tables.partitionTable(p);
                boolean pinned = nodes.size() == 1 && (p == targetPartition ? node == nodeOf(table, unit)
                        : first.node(node).dataSource().equals(unit.dataSource()));
                if (!pinned) {
                    throw ShardedConstructs.refuse("INSERT into sharded table " + table.logicTable() + " reading sharded table " + tables.partitionNames(p)
                            + " on another shard than the row's");
                }
                for (ShardingTable each : tables.partitions.get(p)) {
                    if (each != table) {
                        mappings.add(each.mapping(node));
                    }
                }
            }
            result = List.of(new RouteUnit(unit.dataSource(), mappings, unit.insertRows()));
        }
        tables.checkSinglesWith(result);
        if (!others && keys.isEmpty() && result.size() == 1 && !result.get(0).hasRowSubset()) {
            RouteUnit unit = result.get(0);
            for (int node = 0; node < table.nodeCount(); node++) {
                if (table.unit(node) == unit) {
                    return table.singleResult(node);
                }
            }
        }
        RouteKind kind = result.size() == 1 ? RouteKind.SINGLE : RouteKind.MULTI_WRITE;
        if (result.size() > 1) {
            ShardedConstructs.checkComplete(tables);
        }
        return new RouteResult(kind, result, keys);
    }

    private static int nodeOf(ShardingTable table, RouteUnit unit) {
        String actual = unit.actualTable(table.logicTable());
        for (int i = 0; i < table.nodeCount(); i++) {
            if (table.node(i).dataSource().equals(unit.dataSource()) && table.node(i).table().equals(actual)) {
                return i;
            }
        }
        return -1;
    }

    /**
     * INSERT ... SELECT into a sharded table: each unit inserts what it reads, so the rows read on a node must belong
     * to the same node of the target. That holds when the query reads tables bound to the target (or the target
     * itself) and copies each sharding column from the same sharding column of such a table.
     */
    private static RouteResult routeQuery(StatementTables tables, InsertStatement insert, ShardingTable table) {
        tables.place();
        int target = insert.target();
        int targetPartition = tables.partitionOf[target];
        boolean sourceSharded = false;
        for (int p = 0; p < tables.partitionCount(); p++) {
            if (!tables.touched[p]) {
                continue;
            }
            sourceSharded = true;
            if (p != targetPartition) {
                if (table.nodeCount() == 1 && tables.positions[p].size() == 1) {
                    continue;
                }
                throw ShardedConstructs.refuse("INSERT ... SELECT into sharded table " + table.logicTable() + " from sharded table " + tables.partitionNames(p),
                        "it is not a binding table of " + table.logicTable());
            }
        }
        if (!sourceSharded) {
            if (table.nodeCount() == 1) {
                return withOthers(tables, insert, table, List.of(table.unit(0)), Optional.empty());
            }
            throw ShardedConstructs.refuse("INSERT ... SELECT into sharded table " + table.logicTable() + " from tables that are not sharded like it");
        }
        if (table.nodeCount() > 1) {
            checkCopiedShardingColumns(tables, insert, table);
        }
        List<RouteUnit> units = tables.shardedUnits();
        tables.checkSinglesWith(units);
        if (units.size() == 1) {
            return new RouteResult(RouteKind.SINGLE, units);
        }
        ShardedConstructs.checkComplete(tables);
        boolean[] roots = new boolean[tables.statement.blocks().size()];
        roots[0] = true;
        for (int b = 1; b < roots.length; b++) {
            roots[b] = tables.statement.blocks().get(b).parent() == 0;
        }
        ShardedConstructs.checkBlocks(tables, roots);
        ShardedConstructs.checkJoins(tables);
        OuterJoins.check(tables);
        return new RouteResult(RouteKind.MULTI_WRITE, units);
    }

    private static void checkCopiedShardingColumns(StatementTables tables, InsertStatement insert, ShardingTable table) {
        String sql = tables.statement.sql();
        AnalyzedStatement query = StatementAnalyzer.analyze(insert.query().get().text(sql));
        if (!(query.body() instanceof SelectStatement select) || select.hasStar() || insert.columns().isEmpty()) {
            throw ShardedConstructs.refuse("INSERT ... SELECT into sharded table " + table.logicTable() + " without an explicit column list and select list",
                    "name the columns so that Ashlar can check that each row stays on its shard");
        }
        if (select.setOperation() != SetOperation.NONE) {
            throw ShardedConstructs.refuse("INSERT ... SELECT with " + select.setOperation().name().replace('_', ' ') + " into sharded table " + table.logicTable(),
                    "Ashlar checks that each row stays on its shard for a single SELECT only; insert from each branch separately");
        }
        List<String> columns = table.shardingColumns();
        for (int id = 0; id < columns.size(); id++) {
            int index = insert.columnIndex(columns.get(id));
            if (index < 0 || index >= select.projections().size() || !copiesShardingColumn(select.projections().get(index), query, tables, table, id)) {
                throw ShardedConstructs.refuse("INSERT ... SELECT into sharded table " + table.logicTable() + " that does not copy sharding column "
                        + columns.get(id) + " from the same column of a binding table", "each row must stay on the shard it is read from");
            }
        }
    }

    private static boolean copiesShardingColumn(ProjectionItem item, AnalyzedStatement query, StatementTables tables, ShardingTable target, int id) {
        if (item.kind() != ProjectionKind.COLUMN || item.column().isEmpty()) {
            return false;
        }
        ColumnReference column = item.column().get();
        for (TableReference each : query.tablesIn(0)) {
            RuleTable rule = tables.rules.find(each.name().name()).orElse(null);
            if (!(rule instanceof ShardingTable source) || source != target && (source.bindingGroup() < 0 || source.bindingGroup() != target.bindingGroup())) {
                continue;
            }
            if (id < source.shardingColumns().size() && source.shardingColumns().get(id).equalsIgnoreCase(column.name())
                    && (column.qualifier().isEmpty() || StatementTables.qualifies(column, each))) {
                return true;
            }
        }
        return false;
    }

    /** {@code ON CONFLICT ... DO UPDATE SET col = ...} must not assign a sharding column. */
    private static void checkOnConflict(InsertStatement insert, ShardingTable table, String sql) {
        TokenList tokens;
        try {
            tokens = Lexer.tokenize(insert.onConflict().get().text(sql));
        } catch (SqlSyntaxException e) {
            return;
        }
        int set = -1;
        for (int i = 0, n = tokens.size(); i + 2 < n; i++) {
            if (tokens.textEqualsIgnoreCase(i, "do") && tokens.textEqualsIgnoreCase(i + 1, "update") && tokens.textEqualsIgnoreCase(i + 2, "set")) {
                set = i + 3;
                break;
            }
        }
        if (set < 0) {
            return;
        }
        int depth = 0;
        boolean expectTarget = true;
        for (int i = set, n = tokens.size(); i < n; i++) {
            TokenKind kind = tokens.kind(i);
            if (kind == TokenKind.LEFT_PAREN || kind == TokenKind.LEFT_BRACKET) {
                depth++;
            } else if (kind == TokenKind.RIGHT_PAREN || kind == TokenKind.RIGHT_BRACKET) {
                depth--;
            } else if (depth == 0 && kind == TokenKind.COMMA) {
                expectTarget = true;
                continue;
            } else if (depth == 0 && kind == TokenKind.IDENTIFIER && tokens.textEqualsIgnoreCase(i, "where")) {
                return;
            }
            if (expectTarget && depth <= 1 && kind.isIdentifier()) {
                String column = tokens.identifier(i);
                if (depth == 0 && table.columnId(column) >= 0 && setsExcludedSelf(tokens, i, column)) {
                    // col = EXCLUDED.col: the proposed row's value, which routed the row to the very node it conflicts
                    // on, so the row stays there (TypeORM's and Sequelize's upserts set every column so).
                    expectTarget = false;
                    i += 4;
                    continue;
                }
                if (table.columnId(column) >= 0) {
                    throw ShardedConstructs.refuse("ON CONFLICT ... DO UPDATE SET of sharding column " + column + " of sharded table " + table.logicTable(),
                            "it could move the row to another shard");
                }
                if (depth == 0) {
                    expectTarget = false;
                }
            } else if (kind == TokenKind.OPERATOR && depth == 0) {
                expectTarget = false;
            }
        }
    }

    /** Whether the tokens at {@code target} read {@code column = EXCLUDED.column} and end there (a comma, WHERE or the end). */
    private static boolean setsExcludedSelf(io.ashlar.parser.lexer.TokenList tokens, int target, String column) {
        int n = tokens.size();
        if (target + 4 >= n || !tokens.isOperator(target + 1, "=") || !tokens.kind(target + 2).isIdentifier()
                || !tokens.identifier(target + 2).equals("excluded") || !tokens.is(target + 3, TokenKind.DOT)
                || !tokens.kind(target + 4).isIdentifier() || !tokens.identifier(target + 4).equals(column)) {
            return false;
        }
        int next = target + 5;
        return next >= n || tokens.is(next, TokenKind.COMMA) || tokens.is(next, TokenKind.SEMICOLON)
                || tokens.kind(next) == TokenKind.IDENTIFIER && (tokens.textEqualsIgnoreCase(next, "where")
                        || tokens.textEqualsIgnoreCase(next, "returning"));
    }
}
