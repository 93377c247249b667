package io.ashlar.parser.statement;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The analysis of one SQL statement: computed once per SQL text (callers cache it) and immutable,
 * so routing, rewriting and merging read it for every execution without re-parsing.
 *
 * <p>Positions ({@link SourceRange}s and offsets) are character offsets into {@link #sql()}: a
 * rewriter copies the text between them and replaces only what it must, so everything else the
 * user wrote, comments included, reaches the backend unchanged.
 *
 * @param sql            the analysed text
 * @param kind           what the statement does
 * @param command        the first word, lower case ({@code select}, {@code with}, {@code explain}, ...), empty for
 *                       {@link StatementKind#EMPTY}
 * @param body           the kind-specific part
 * @param tables         every table name occurrence: in source order, except that the
 *                       {@link TableRole#COLUMN_QUALIFIER} ones come last (bodies refer to tables by index
 *                       into this list)
 * @param indexes        index and constraint names of DDL, in source order
 * @param blocks         the query blocks, never empty: block 0 is the main one (for SELECT its first core, for
 *                       INSERT, UPDATE, DELETE, MERGE and DDL the target's scope)
 * @param parameters     the parameter markers, in source order (none for {@code PREPARE name AS ...} and
 *                       {@code CREATE FUNCTION | PROCEDURE}, whose markers belong to the inner statement or body)
 * @param parameterCount how many parameter values the statement takes: the highest {@code $n}, or the number of
 *                       {@code ?} markers
 * @param gaps           what could not be analysed; empty when the analysis is complete
 * @param sessionValues  where the statement reads a {@link SessionValue} ({@code current_user},
 *                       {@code current_database()}, ...), in source order
 * @param catalogFunctions whether the statement calls a function that looks relations up in the catalog
 *                       ({@code 't'::regclass}, {@code pg_get_indexdef}, {@code pg_table_is_visible}, ...)
 */
public record AnalyzedStatement(String sql, StatementKind kind, String command, StatementBody body,
                                List<TableReference> tables, List<IndexReference> indexes, List<QueryBlock> blocks,
                                List<ParameterMarker> parameters, int parameterCount, Set<AnalysisGap> gaps,
                                List<SessionValueReference> sessionValues, boolean catalogFunctions) {
    public AnalyzedStatement {
        tables = List.copyOf(tables);
        indexes = List.copyOf(indexes);
        blocks = List.copyOf(blocks);
        parameters = List.copyOf(parameters);
        gaps = Set.copyOf(gaps);
        sessionValues = List.copyOf(sessionValues);
    }

    /** Whether nothing was left unanalysed. */
    public boolean isComplete() {
        return gaps.isEmpty();
    }

    /** The WHERE conditions of block 0. */
    public ShardingConditions where() {
        return blocks.get(0).where();
    }

    /** The tables the statement accesses in {@code block} (column qualifier occurrences excluded). */
    public List<TableReference> tablesIn(int block) {
        List<TableReference> result = new ArrayList<>(2);
        for (TableReference table : tables) {
            if (table.block() == block && table.isAccess()) {
                result.add(table);
            }
        }
        return result;
    }

    /**
     * The tables of {@code block} that {@code column}, written in a condition of that block, may belong
     * to, as PostgreSQL resolves names: a qualified column belongs to the block's table whose alias
     * (or, without an alias, name) is the qualifier; an unqualified column to one of the block's
     * tables (a router narrows this by which of them has a sharding column of that name).
     *
     * <p>Empty means the column is not one of the block's own: a correlated reference to an enclosing
     * query, or a column of a subquery or function in FROM. A condition on such a column says nothing
     * about which shards the block needs (think of {@code NOT EXISTS (... WHERE outer.id = 5)}) and
     * must be ignored.
     */
    public List<TableReference> tablesFor(ColumnReference column, int block) {
        if (column.qualifier().isEmpty()) {
            return tablesIn(block);
        }
        String qualifier = column.qualifier().get();
        List<TableReference> result = new ArrayList<>(1);
        for (TableReference table : tables) {
            if (table.block() != block || !table.isAccess()) {
                continue;
            }
            boolean matches = table.alias().isPresent()
                    ? table.alias().get().equals(qualifier) && column.schema().isEmpty()
                    : table.name().name().equals(qualifier)
                    && (column.schema().isEmpty() || table.name().schema().equals(column.schema()));
            if (matches) {
                result.add(table);
            }
        }
        return result;
    }
}
