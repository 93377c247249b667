package io.ashlar.route;

import io.ashlar.parser.lexer.Lexer;
import io.ashlar.parser.lexer.SqlSyntaxException;
import io.ashlar.parser.lexer.TokenKind;
import io.ashlar.parser.lexer.TokenList;
import io.ashlar.parser.statement.AnalyzedStatement;
import io.ashlar.parser.statement.ColumnEquality;
import io.ashlar.parser.statement.ColumnReference;
import io.ashlar.parser.statement.DistinctKind;
import io.ashlar.parser.statement.OrderByItem;
import io.ashlar.parser.statement.ProjectionItem;
import io.ashlar.parser.statement.QueryBlock;
import io.ashlar.parser.statement.SelectStatement;
import io.ashlar.parser.statement.SetOperation;
import io.ashlar.parser.statement.SourceRange;
import io.ashlar.parser.statement.TableReference;
import io.ashlar.route.rule.ShardingTable;

import java.util.List;
import java.util.Set;
import java.util.Locale;

/**
 * The refusals decided before a statement runs on several shards: constructs that the proxy cannot merge into
 * exactly what one PostgreSQL database would answer. Each refusal is SQLSTATE 0A000 with a message naming the
 * construct and the table, never a wrong answer.
 *
 * <p>Subqueries get particular care. A unit runs the whole statement against one shard's rows, so a subquery that
 * reads a sharded table sees only that shard's part of it. That is right only when the subquery is correlated to
 * the enclosing query node to node (through all the sharding columns of the same table, or the binding key of a
 * table bound to it: its rows then live on the same shard as the outer row), or when the subquery's table is
 * confined to one node that every unit shares.
 */
final class ShardedConstructs {

    private static final Set<String> UNMERGEABLE_AGGREGATES = Set.of("array_agg", "bit_and", "bit_or", "bit_xor", "bool_and", "bool_or", "every",
            "json_agg", "jsonb_agg", "json_object_agg", "jsonb_object_agg", "json_objectagg", "json_arrayagg", "range_agg", "range_intersect_agg",
            "string_agg", "xmlagg", "corr", "covar_pop", "covar_samp", "regr_avgx", "regr_avgy", "regr_count", "regr_intercept", "regr_r2",
            "regr_slope", "regr_sxx", "regr_sxy", "regr_syy", "stddev", "stddev_pop", "stddev_samp", "variance", "var_pop", "var_samp", "mode",
            "percentile_cont", "percentile_disc", "grouping", "any_value");

    private static final Set<String> MERGEABLE_AGGREGATES = Set.of("count", "sum", "min", "max", "avg");

    private ShardedConstructs() {
    }

    /** An analysis with gaps may have missed tables or conditions: it may run on one unit only. */
    static void checkComplete(StatementTables tables) {
        AnalyzedStatement statement = tables.statement;
        if (!statement.isComplete()) {
            throw new RouteException("0A000", "statement not understood by Ashlar's parser " + statement.gaps() + " touches sharded table "
                    + tables.shardedNames() + " on several shards; it can run only when its conditions route it to one shard");
        }
    }

    /**
     * The select-list, DISTINCT ON, WITH TIES, set operation, HAVING and ORDER BY refusals of a query over several units.
     * Runs on every route of a multi-unit query: the table names go into the message of a refusal only, never built
     * ahead (they were half of such a route's allocation, RouteBenchmark).
     */
    static void checkQuery(SelectStatement select, StatementTables tables) {
        if (select.setOperation() != SetOperation.NONE) {
            throw refuse(operationName(select.setOperation()) + " over sharded table " + tables.shardedNames() + " across several shards");
        }
        for (ProjectionItem item : select.projections()) {
            if (item.windowFunction()) {
                throw refuse("window function " + item.expression() + " over sharded table " + tables.shardedNames() + " across several shards");
            }
            if (item.containsAggregate() && item.aggregate().isEmpty()) {
                throw refuse("aggregate expression " + item.expression() + " over sharded table " + tables.shardedNames() + " across several shards",
                        "only COUNT, SUM, MIN, MAX and AVG written directly as a select-list item can be merged");
            }
        }
        if (select.distinct() == DistinctKind.DISTINCT_ON) {
            throw refuse("DISTINCT ON over sharded table " + tables.shardedNames() + " across several shards");
        }
        if (select.pagination().withTies()) {
            throw refuse("FETCH FIRST ... WITH TIES over sharded table " + tables.shardedNames() + " across several shards");
        }
        String sql = tables.statement.sql();
        if (select.having().isPresent()) {
            checkExpression("HAVING", select.having().get(), sql, tables);
        }
        for (OrderByItem item : select.orderBy()) {
            if (item.projectionIndex().isEmpty()) {
                checkExpression("ORDER BY", item.expressionRange(), sql, tables);
            }
        }
    }

    /** {@code UNION ALL}, {@code INTERSECT}, ... for messages. */
    static String operationName(SetOperation operation) {
        return operation == SetOperation.MIXED ? "UNION/INTERSECT/EXCEPT" : operation.name().replace('_', ' ');
    }

    private static void checkExpression(String clause, SourceRange range, String sql, StatementTables tables) {
        String text = range.text(sql);
        TokenList tokens;
        try {
            tokens = Lexer.tokenize(text);
        } catch (SqlSyntaxException e) {
            return;
        }
        for (int i = 0, n = tokens.size(); i < n; i++) {
            if (tokens.kind(i) != TokenKind.IDENTIFIER) {
                continue;
            }
            if (tokens.textEqualsIgnoreCase(i, "select")) {
                throw refuse("subquery in " + clause + " " + text + " over sharded table " + tables.shardedNames() + " across several shards");
            }
            if (tokens.textEqualsIgnoreCase(i, "over") && (tokens.is(i + 1, TokenKind.LEFT_PAREN) || tokens.is(i + 1, TokenKind.IDENTIFIER))) {
                throw refuse("window function in " + clause + " " + text + " over sharded table " + tables.shardedNames() + " across several shards");
            }
            if (!tokens.is(i + 1, TokenKind.LEFT_PAREN)) {
                continue;
            }
            String name = tokens.identifier(i);
            if (UNMERGEABLE_AGGREGATES.contains(name)) {
                throw refuse("aggregate " + name + " in " + clause + " " + text + " over sharded table " + tables.shardedNames() + " across several shards");
            }
            if (MERGEABLE_AGGREGATES.contains(name)) {
                int close = closing(tokens, i + 1);
                if (close > 0 && (tokens.textEqualsIgnoreCase(close + 1, "filter") || tokens.textEqualsIgnoreCase(close + 1, "within"))) {
                    throw refuse("aggregate " + name + " with " + tokens.text(close + 1).toUpperCase(Locale.ROOT) + " in " + clause + " " + text
                            + " over sharded table " + tables.shardedNames() + " across several shards");
                }
            }
        }
    }

    private static int closing(TokenList tokens, int open) {
        int depth = 0;
        for (int i = open, n = tokens.size(); i < n; i++) {
            if (tokens.is(i, TokenKind.LEFT_PAREN)) {
                depth++;
            } else if (tokens.is(i, TokenKind.RIGHT_PAREN) && --depth == 0) {
                return i;
            }
        }
        return -1;
    }

    /**
     * Checks every block but the roots: a block reading a sharded table must be correlated to an enclosing aligned
     * block through the sharding columns of the same partition, or read a partition pinned to one node shared by all.
     *
     * @param roots blocks whose rows the units split correctly by themselves (block 0, or an INSERT's query)
     */
    static void checkBlocks(StatementTables tables, boolean[] roots) {
        List<QueryBlock> blocks = tables.statement.blocks();
        boolean[] aligned = new boolean[blocks.size()];
        for (int b = 0; b < blocks.size(); b++) {
            QueryBlock block = blocks.get(b);
            if (roots[b]) {
                aligned[b] = true;
                continue;
            }
            boolean anySharded = false;
            for (int i = 0; i < tables.kinds.length; i++) {
                if (tables.kinds[i] != StatementTables.SHARDED || tables.references.get(i).block() != b) {
                    continue;
                }
                anySharded = true;
                if (!correlated(tables, i, block, aligned) && !pinned(tables, tables.partitionOf[i])) {
                    throw refuse("subquery reading sharded table " + tables.references.get(i).name() + " across several shards",
                            "correlate it to the outer query on its sharding columns (on the sharding columns that pick the actual tables, for a binding table), or give it conditions that route it to one shard");
                }
            }
            aligned[b] = anySharded || block.parent() >= 0 && aligned[block.parent()];
        }
    }

    /**
     * Two occurrences of one partition in one block meet only within a node when they are joined node to node
     * ({@link #joinedNodeToNode}); otherwise a row of one may pair with a row of the other on another node.
     */
    static void checkJoins(StatementTables tables) {
        if (tables.unalignedJoin < 0) {
            return;
        }
        ShardingTable table = tables.shardingTable(tables.unalignedJoin);
        ShardingTable partner = tables.shardingTable(tables.unalignedPartner);
        if (table == partner) {
            throw refuse("join of sharded table " + tables.references.get(tables.unalignedJoin).name()
                    + " with itself on columns other than its sharding columns across several shards");
        }
        throw refuse("join of binding tables " + partner.logicTable() + " and " + table.logicTable() + " on columns other than the sharding columns that pick "
                + "their actual tables (" + String.join(", ", table.bindingKey()) + ") across several shards",
                "join them on those columns, or route the statement to one shard");
    }

    private static boolean correlated(StatementTables tables, int occurrence, QueryBlock block, boolean[] aligned) {
        List<QueryBlock> blocks = tables.statement.blocks();
        for (int ancestor = block.parent(); ancestor >= 0; ancestor = blocks.get(ancestor).parent()) {
            if (!aligned[ancestor]) {
                continue;
            }
            for (int q = 0; q < tables.kinds.length; q++) {
                if (tables.kinds[q] == StatementTables.SHARDED && tables.references.get(q).block() == ancestor
                        && tables.partitionOf[q] == tables.partitionOf[occurrence]
                        && joinedNodeToNode(tables, occurrence, q, block.joinEqualities())) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * Whether {@code equalities} make two occurrences' rows meet on one node only: their rows then live on the same
     * node, and a unit joining node {@code i} with node {@code i} misses no pair. Two occurrences of one table must be
     * joined on every sharding column ({@link #joinedOnShardingColumns}); two tables of one binding group on their
     * binding keys ({@link ShardingTable#bindingKey()}), the binding declaration vouching for the coarser columns, as
     * ShardingSphere routes {@code t_order o JOIN t_order_item i ON o.order_id = i.order_id} node by node.
     *
     * @see <a href="https://shardingsphere.apache.org/document/5.4.1/en/features/sharding/concept/#binding-table">ShardingSphere binding tables</a>
     */
    static boolean joinedNodeToNode(StatementTables tables, int inner, int outer, List<ColumnEquality> equalities) {
        ShardingTable innerTable = tables.shardingTable(inner);
        ShardingTable outerTable = tables.shardingTable(outer);
        if (innerTable != outerTable && innerTable.bindingGroup() >= 0 && innerTable.bindingGroup() == outerTable.bindingGroup()
                && joinedOn(tables, inner, innerTable.bindingKey(), outer, outerTable.bindingKey(), equalities)) {
            return true;
        }
        return joinedOnShardingColumns(tables, inner, outer, equalities);
    }

    /**
     * Whether {@code equalities} equate every sharding column of occurrence {@code inner} with the sharding column at
     * the same position of {@code outer} (database strategy columns, then table strategy columns): rows they join
     * then have the same sharding values, and live on the same node whatever the tables are.
     */
    static boolean joinedOnShardingColumns(StatementTables tables, int inner, int outer, List<ColumnEquality> equalities) {
        return joinedOn(tables, inner, tables.shardingTable(inner).shardingColumns(), outer, tables.shardingTable(outer).shardingColumns(), equalities);
    }

    private static boolean joinedOn(StatementTables tables, int inner, List<String> innerColumns, int outer, List<String> outerColumns,
                                    List<ColumnEquality> equalities) {
        if (innerColumns.isEmpty() || innerColumns.size() != outerColumns.size()) {
            return false;
        }
        TableReference innerReference = tables.references.get(inner);
        TableReference outerReference = tables.references.get(outer);
        for (int c = 0; c < innerColumns.size(); c++) {
            boolean found = false;
            for (ColumnEquality each : equalities) {
                if (denotes(each.left(), innerReference, innerColumns.get(c), true) && denotes(each.right(), outerReference, outerColumns.get(c), false)
                        || denotes(each.right(), innerReference, innerColumns.get(c), true) && denotes(each.left(), outerReference, outerColumns.get(c), false)) {
                    found = true;
                    break;
                }
            }
            if (!found) {
                return false;
            }
        }
        return true;
    }

    private static boolean denotes(ColumnReference column, TableReference reference, String name, boolean unqualifiedAllowed) {
        if (!column.name().equalsIgnoreCase(name)) {
            return false;
        }
        return column.qualifier().isEmpty() ? unqualifiedAllowed : StatementTables.qualifies(column, reference);
    }

    /** Whether a partition is routed to one node and every other partition lies on that node's data source. */
    private static boolean pinned(StatementTables tables, int partition) {
        if (tables.positions[partition].size() != 1) {
            return false;
        }
        ShardingTable table = tables.partitionTable(partition);
        int dataSource = table.nodeDataSource(tables.positions[partition].next(0));
        for (int p = 0; p < tables.partitionCount(); p++) {
            ShardingTable other = tables.partitionTable(p);
            for (int node = tables.positions[p].next(0); node >= 0; node = tables.positions[p].next(node + 1)) {
                if (other.nodeDataSource(node) != dataSource) {
                    return false;
                }
            }
        }
        return true;
    }

    static RouteException refuse(String construct) {
        return new RouteException("0A000", construct + " is not supported");
    }

    /** A refusal with advice: {@code <construct> is not supported: <hint>}. */
    static RouteException refuse(String construct, String hint) {
        return new RouteException("0A000", construct + " is not supported: " + hint);
    }
}
