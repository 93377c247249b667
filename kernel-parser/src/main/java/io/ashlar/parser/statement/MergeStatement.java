package io.ashlar.parser.statement;

/**
 * MERGE, recognised but not analysed beyond its tables: the target (a DML target) and the USING
 * source, plus any tables in its conditions and actions.
 *
 * @param target index of the target table in {@link AnalyzedStatement#tables()}
 */
public record MergeStatement(int target) implements StatementBody {
}
