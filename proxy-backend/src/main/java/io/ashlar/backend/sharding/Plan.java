package io.ashlar.backend.sharding;

import io.ashlar.parser.statement.AnalyzedStatement;
import io.ashlar.rewrite.StatementRewriter;

/**
 * What the proxy keeps per SQL text: the analysis, computed once, and what later steps cache
 * for it.
 */
public final class Plan {

    private final AnalyzedStatement statement;
    private final StatementRewriter rewriter;

    Plan(AnalyzedStatement statement) {
        this.statement = statement;
        this.rewriter = StatementRewriter.of(statement);
    }

    public AnalyzedStatement statement() {
        return statement;
    }

    /** The statement's rewriter, which caches the SQL it builds per unit shape. */
    public StatementRewriter rewriter() {
        return rewriter;
    }
}
