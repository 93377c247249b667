package io.ashlar.parser.statement;

import java.util.Optional;

/**
 * One item of the top-level select list.
 *
 * @param range             source range of the whole item, alias included
 * @param expressionRange   source range of the expression without the alias
 * @param expression        the expression's source text
 * @param alias             the alias ({@code AS x}, or a bare {@code x}), normalised
 * @param kind              the item's shape
 * @param starQualifier     for {@code t.*}: the normalised {@code t}
 * @param column            for a plain column: the column
 * @param aggregate         for a single mergeable aggregate: the aggregate
 * @param containsAggregate whether the expression calls any aggregate function (mergeable or not,
 *                          outside subqueries); true with an empty {@link #aggregate()} means the
 *                          item cannot be merged from per-shard values
 * @param windowFunction    whether the expression has an {@code OVER} clause
 */
public record ProjectionItem(SourceRange range, SourceRange expressionRange, String expression,
                             Optional<String> alias, ProjectionKind kind, Optional<String> starQualifier,
                             Optional<ColumnReference> column, Optional<Aggregate> aggregate,
                             boolean containsAggregate, boolean windowFunction) {

    /**
     * The column name PostgreSQL gives this item in RowDescription (a simplification of its
     * {@code FigureColname}): the alias, else the column name, else the function name of a call,
     * {@code case} for CASE, {@code ?column?} otherwise, and {@code *} for stars.
     */
    public String outputName() {
        if (alias.isPresent()) {
            return alias.get();
        }
        if (column.isPresent()) {
            return column.get().name();
        }
        if (aggregate.isPresent()) {
            return aggregate.get().function().name().toLowerCase(java.util.Locale.ROOT);
        }
        return switch (kind) {
            case STAR, QUALIFIED_STAR -> "*";
            default -> ExpressionNames.figureName(expression);
        };
    }
}
