package io.ashlar.backend.sharding;

import io.ashlar.parser.statement.AnalyzedStatement;

/**
 * What the proxy keeps per SQL text: the analysis, computed once, and what later steps cache
 * for it.
 */
public final class Plan {

    private final AnalyzedStatement statement;

    Plan(AnalyzedStatement statement) {
        this.statement = statement;
    }

    public AnalyzedStatement statement() {
        return statement;
    }
}
