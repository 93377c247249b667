package io.ashlar.parser.statement;

/**
 * The row count of a LIMIT, OFFSET or FETCH clause.
 *
 * @param value       the count; for {@code FETCH FIRST ROW ONLY} the implied literal 1 with an empty
 *                    range where a count may be inserted
 * @param clauseRange source range of the whole clause ({@code LIMIT 10}, {@code OFFSET $2 ROWS},
 *                    {@code FETCH FIRST 5 ROWS ONLY})
 */
public record PaginationValue(SqlValue value, SourceRange clauseRange) {
}
