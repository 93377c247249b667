package io.ashlar.route;

import io.ashlar.parser.lexer.Lexer;
import io.ashlar.parser.lexer.SqlSyntaxException;
import io.ashlar.parser.lexer.TokenKind;
import io.ashlar.parser.lexer.TokenList;
import io.ashlar.parser.statement.ColumnReference;
import io.ashlar.parser.statement.DistinctKind;
import io.ashlar.parser.statement.GroupByItem;
import io.ashlar.parser.statement.OrderByItem;
import io.ashlar.parser.statement.ProjectionItem;
import io.ashlar.parser.statement.ProjectionKind;
import io.ashlar.parser.statement.QueryBlock;
import io.ashlar.parser.statement.SelectStatement;
import io.ashlar.parser.statement.SetOperation;
import io.ashlar.parser.statement.TableReference;

import java.util.List;
import java.util.Optional;

/**
 * The outer joins a statement over several units can answer. Each unit joins its own rows of the sharded table with
 * a whole copy of every broadcast and single table; an outer join that keeps every row of a side holding no sharded
 * table (a broadcast table, a single table, a subquery or function over them) makes each unit return that side's
 * unmatched rows, so they come back once per unit, NULL-extended even where another unit found them a match
 * ({@code t_dict d LEFT JOIN t_order o}: 223 rows where PostgreSQL gives 220). Such joins are refused: LEFT keeps the
 * left side, RIGHT the right side, FULL both.
 *
 * <p>One shape stays answerable, because the merge repairs it: the statement groups by columns of the kept table
 * only and aggregates only columns of the sharded table ({@code SELECT d.code, count(o.order_id) FROM t_dict d LEFT
 * JOIN t_order o ON ... GROUP BY d.code}). Every unit then returns each group once, the duplicated unmatched rows
 * contribute nothing to COUNT, SUM, MIN, MAX or AVG of a NULL column, and the merge adds the groups up.
 *
 * <p>With more than one partition spread over several nodes, no side is whole on a unit: every outer join is refused.
 *
 * @see <a href="https://www.postgresql.org/docs/current/queries-table-expressions.html#QUERIES-JOIN">7.2.1.1. Joined Tables</a>
 */
final class OuterJoins {

    private OuterJoins() {
    }

    /** Refuses the outer joins of a statement routed to several units that would answer wrongly. */
    static void check(StatementTables tables) {
        List<QueryBlock> blocks = tables.statement.blocks();
        int spread = 0;
        for (int p = 0; p < tables.partitionCount(); p++) {
            spread += tables.positions[p].size() > 1 ? 1 : 0;
        }
        for (QueryBlock block : blocks) {
            if (!block.outerJoin() || !hasSpread(tables, block.id())) {
                continue;
            }
            if (spread > 1) {
                throw ShardedConstructs.refuse("outer join over sharded table " + tables.shardedNames() + ", which are not binding tables joined on the "
                        + "sharding columns that pick their actual tables, across several shards");
            }
            FromClause from = tables.fromClause(block.id());
            if (!from.understood()) {
                throw ShardedConstructs.refuse("outer join over sharded table " + tables.shardedNames()
                        + " in a FROM clause Ashlar cannot read, across several shards", "write the joins without unusual FROM items, or route the statement to one shard");
            }
            for (FromClause.Join join : from.joins()) {
                checkJoin(tables, block.id(), from, join);
            }
        }
    }

    private static void checkJoin(StatementTables tables, int block, FromClause from, FromClause.Join join) {
        boolean leftSpread = spreadIn(tables, block, join.left());
        boolean rightSpread = spreadIn(tables, block, join.right());
        FromClause.Span kept = switch (join.kind()) {
            case FromClause.LEFT -> !leftSpread && rightSpread ? join.left() : null;
            case FromClause.RIGHT -> leftSpread && !rightSpread ? join.right() : null;
            case FromClause.FULL -> leftSpread != rightSpread ? leftSpread ? join.right() : join.left() : null;
            default -> null;
        };
        if (kept == null || groupedByKeptTable(tables, block, from, join, kept)) {
            return;
        }
        String kind = join.kind() == FromClause.LEFT ? "LEFT JOIN" : join.kind() == FromClause.RIGHT ? "RIGHT JOIN" : "FULL JOIN";
        String keptNames = names(tables, block, kept, false);
        String sharded = names(tables, block, kept == join.left() ? join.right() : join.left(), true);
        throw ShardedConstructs.refuse(kind + " keeping every row of " + (keptNames.isEmpty() ? "a subquery or function" : keptNames)
                + " while joining sharded table " + sharded + " across several shards",
                "each shard would return the rows that find no match on it; keep the sharded table's side instead, use an inner join, "
                        + "or route the statement to one shard");
    }

    private static boolean hasSpread(StatementTables tables, int block) {
        for (int i = 0; i < tables.kinds.length; i++) {
            if (isSpread(tables, i) && tables.references.get(i).block() == block) {
                return true;
            }
        }
        return false;
    }

    private static boolean spreadIn(StatementTables tables, int block, FromClause.Span span) {
        for (int i = 0; i < tables.kinds.length; i++) {
            TableReference reference = tables.references.get(i);
            if (isSpread(tables, i) && reference.block() == block && span.contains(reference.range().start())) {
                return true;
            }
        }
        return false;
    }

    /** A sharded occurrence whose partition runs on several units: each unit sees only part of its rows. */
    private static boolean isSpread(StatementTables tables, int occurrence) {
        return tables.kinds[occurrence] == StatementTables.SHARDED && tables.partitionOf[occurrence] >= 0
                && tables.positions[tables.partitionOf[occurrence]].size() > 1;
    }

    /** The tables of a side that are spread over the units, or (with {@code spread} false) the others. */
    private static String names(StatementTables tables, int block, FromClause.Span span, boolean spread) {
        StringBuilder result = new StringBuilder();
        for (int i = 0; i < tables.kinds.length; i++) {
            TableReference reference = tables.references.get(i);
            if (reference.isAccess() && reference.block() == block && span.contains(reference.range().start()) && isSpread(tables, i) == spread) {
                result.append(result.isEmpty() ? "" : ", ").append(reference.name());
            }
        }
        return result.toString();
    }

    /**
     * The one shape the merge repairs: a single query block whose FROM is exactly {@code kept LEFT|RIGHT JOIN
     * sharded} of two tables, with no WHERE (a filter on the sharded side would drop matches on one unit and keep the
     * NULL-extended row on another) and no HAVING; grouped by columns of the kept table, which are also all the select
     * list holds besides COUNT, SUM, MIN, MAX or AVG of a column of the sharded table; ordered by select-list items or
     * kept-table columns.
     */
    private static boolean groupedByKeptTable(StatementTables tables, int block, FromClause from, FromClause.Join join, FromClause.Span kept) {
        if (!(tables.statement.body() instanceof SelectStatement select) || block != 0 || tables.statement.blocks().size() != 1
                || select.setOperation() != SetOperation.NONE || select.distinct() == DistinctKind.DISTINCT_ON || select.groupBy().isEmpty()
                || select.having().isPresent() || join.kind() == FromClause.FULL || from.items() != 1 || from.joins().size() != 1
                || from.whereFollows() || !join.leftPlain() || !join.rightPlain()) {
            return false;
        }
        TableReference keptTable = null;
        TableReference shardedTable = null;
        for (int i = 0; i < tables.kinds.length; i++) {
            TableReference reference = tables.references.get(i);
            if (!reference.isAccess()) {
                continue;
            }
            if (kept.contains(reference.range().start()) && tables.kinds[i] != StatementTables.SHARDED) {
                keptTable = reference;
            } else if (!kept.contains(reference.range().start()) && tables.kinds[i] == StatementTables.SHARDED) {
                shardedTable = reference;
            }
        }
        if (keptTable == null || shardedTable == null) {
            return false;
        }
        List<ProjectionItem> projections = select.projections();
        for (GroupByItem item : select.groupBy()) {
            Optional<ColumnReference> column = item.projectionIndex().isPresent() ? projections.get(item.projectionIndex().getAsInt()).column() : item.column();
            if (!column.isPresent() || !of(column.get(), keptTable)) {
                return false;
            }
        }
        for (ProjectionItem item : projections) {
            boolean keptColumn = item.kind() == ProjectionKind.COLUMN && item.column().isPresent() && of(item.column().get(), keptTable);
            boolean aggregate = item.aggregate().isPresent() && !item.aggregate().get().star() && isColumnOf(item.aggregate().get().argument(), shardedTable);
            if (item.windowFunction() || !keptColumn && !aggregate) {
                return false;
            }
        }
        for (OrderByItem item : select.orderBy()) {
            if (item.projectionIndex().isEmpty() && !(item.column().isPresent() && of(item.column().get(), keptTable))) {
                return false;
            }
        }
        return true;
    }

    private static boolean of(ColumnReference column, TableReference table) {
        return column.qualifier().isPresent() && StatementTables.qualifies(column, table);
    }

    /** Whether an aggregate's argument text is exactly {@code qualifier.column} naming the table. */
    private static boolean isColumnOf(String argument, TableReference table) {
        TokenList tokens;
        try {
            tokens = Lexer.tokenize(argument);
        } catch (SqlSyntaxException e) {
            return false;
        }
        return tokens.size() == 3 && tokens.kind(0).isIdentifier() && tokens.is(1, TokenKind.DOT) && tokens.kind(2).isIdentifier()
                && tokens.identifier(0).equals(table.exposedName());
    }
}
