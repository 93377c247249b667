package io.ashlar.rewrite;

import io.ashlar.parser.statement.AnalyzedStatement;
import io.ashlar.route.RouteParameters;
import io.ashlar.route.RouteResult;

/**
 * Entry point of the rewrite: route units in, one SQL text per unit and the merge out. This
 * static form compiles the statement's templates on every call; a caller that keeps analysed
 * statements (a plan cache) should keep a {@link StatementRewriter} with each and call it instead,
 * which caches the templates and each unit shape's SQL.
 */
public final class RewriteEngine {

    private RewriteEngine() {
    }

    /** Rewrites {@code statement} for {@code route}; see {@link StatementRewriter#rewrite}. */
    public static RewriteResult rewrite(AnalyzedStatement statement, RouteResult route, RouteParameters parameters) {
        return StatementRewriter.of(statement).rewrite(route, parameters);
    }
}
