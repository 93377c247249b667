package io.ashlar.parser.statement;

/**
 * Something the analyzer could not analyse in a valid (or at least lexically valid) statement. The
 * statement is still returned, with what could be found; a proxy that needs the missing part
 * (for example, routing over several shards) should refuse the statement, while a single data
 * source can still pass it through.
 */
public enum AnalysisGap {
    /** The text holds more than one statement; only the first was analysed. */
    MULTIPLE_STATEMENTS,
    /** Parentheses or brackets do not balance. */
    UNBALANCED_PARENTHESES,
    /** Some part of the statement did not have the expected shape; tables or conditions may be missing. */
    UNRECOGNIZED_SYNTAX,
    /** A WITH clause holds INSERT, UPDATE, DELETE or MERGE. */
    DATA_MODIFYING_CTE,
    /** GROUP BY uses ROLLUP, CUBE, GROUPING SETS or {@code ()}. */
    GROUPING_SETS,
    /** ORDER BY ... USING an operator other than {@code <} or {@code >}. */
    ORDER_BY_USING,
    /** A LIMIT, OFFSET or FETCH count that is neither a literal nor a parameter. */
    COMPLEX_PAGINATION,
    /** Both {@code $n} and {@code ?} markers. */
    MIXED_PARAMETER_STYLES,
    /** The analyzer failed unexpectedly; only the command was recognised. */
    ANALYSIS_FAILED
}
