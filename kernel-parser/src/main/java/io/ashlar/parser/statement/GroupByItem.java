package io.ashlar.parser.statement;

import java.util.Optional;
import java.util.OptionalInt;

/**
 * One item of GROUP BY.
 *
 * @param range           source range of the expression
 * @param expression      its source text
 * @param column          the column, when the expression is a plain column reference
 * @param ordinal         for {@code GROUP BY 1}: 1; otherwise 0
 * @param projectionIndex the index in {@link SelectStatement#projections()} of the item it names, if any
 */
public record GroupByItem(SourceRange range, String expression, Optional<ColumnReference> column, int ordinal,
                          OptionalInt projectionIndex) {
}
