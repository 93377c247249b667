package io.ashlar.parser.statement;

import java.util.List;
import java.util.Optional;

/**
 * A query: what merging and pagination rewriting need, for the top level only (subqueries
 * contribute tables and blocks, not these lists). With set operations the projections are those of
 * the first branch and ORDER BY / LIMIT are the trailing ones that apply to the whole result; see
 * <a href="https://www.postgresql.org/docs/current/sql-select.html">SELECT</a>.
 *
 * @param projections            the select list of the (first) SELECT core; empty for VALUES and TABLE
 * @param projectionsEnd         offset just past the last select-list item: where rewriting inserts
 *                               {@code , derived_column}
 * @param distinct               DISTINCT / DISTINCT ON
 * @param distinctOn             source range of the DISTINCT ON expression list, parentheses excluded
 * @param groupBy                GROUP BY items
 * @param having                 source range of the HAVING condition
 * @param orderBy                trailing ORDER BY items
 * @param orderByInsertPosition  where rewriting adds sort keys: just past the last ORDER BY item
 *                               (insert {@code , key}), or, without ORDER BY, just past the end of the
 *                               query body before LIMIT/OFFSET/FETCH/FOR (insert {@code  ORDER BY key})
 * @param pagination             LIMIT / OFFSET / FETCH
 * @param locking                FOR UPDATE / FOR SHARE
 * @param setOperation           how branches are combined
 * @param valuesOnly             whether the query is a bare VALUES list (or TABLE name)
 */
public record SelectStatement(List<ProjectionItem> projections, int projectionsEnd, DistinctKind distinct,
                              Optional<SourceRange> distinctOn, List<GroupByItem> groupBy,
                              Optional<SourceRange> having, List<OrderByItem> orderBy, int orderByInsertPosition,
                              Pagination pagination, Optional<LockingClause> locking, SetOperation setOperation,
                              boolean valuesOnly) implements StatementBody {
    public SelectStatement {
        projections = List.copyOf(projections);
        groupBy = List.copyOf(groupBy);
        orderBy = List.copyOf(orderBy);
    }

    /** Whether any select-list item is or contains an aggregate, or there is a GROUP BY. */
    public boolean isAggregated() {
        if (!groupBy.isEmpty()) {
            return true;
        }
        for (ProjectionItem item : projections) {
            if (item.containsAggregate()) {
                return true;
            }
        }
        return false;
    }

    /** Whether the select list has {@code *} or {@code t.*}, whose columns only the backend knows. */
    public boolean hasStar() {
        for (ProjectionItem item : projections) {
            if (item.kind() == ProjectionKind.STAR || item.kind() == ProjectionKind.QUALIFIED_STAR) {
                return true;
            }
        }
        return false;
    }
}
