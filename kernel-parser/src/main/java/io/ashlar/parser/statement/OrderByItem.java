package io.ashlar.parser.statement;

import java.util.Optional;
import java.util.OptionalInt;

/**
 * One item of the top-level ORDER BY.
 *
 * @param range           source range of the whole item, direction and NULLS included
 * @param expressionRange source range of the sort expression
 * @param expression      its source text
 * @param column          the column, when the expression is a plain column reference
 * @param ordinal         for {@code ORDER BY 2}: 2; otherwise 0
 * @param descending      whether DESC
 * @param nullsFirst      where NULLs sort, explicit or PostgreSQL's default (first for DESC, last for ASC)
 * @param projectionIndex the index in {@link SelectStatement#projections()} of the select-list item this item
 *                        sorts by (by ordinal, output name, same column or same expression text); empty when
 *                        it is not in the select list, so a merger needs a derived column for it
 */
public record OrderByItem(SourceRange range, SourceRange expressionRange, String expression,
                          Optional<ColumnReference> column, int ordinal, boolean descending, boolean nullsFirst,
                          OptionalInt projectionIndex) {
}
