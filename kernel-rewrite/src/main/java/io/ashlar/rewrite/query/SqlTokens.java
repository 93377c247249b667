package io.ashlar.rewrite.query;

import io.ashlar.parser.lexer.Keyword;
import io.ashlar.parser.lexer.Lexer;
import io.ashlar.parser.lexer.TokenKind;
import io.ashlar.parser.lexer.TokenList;
import io.ashlar.parser.statement.AggregateFunction;
import io.ashlar.parser.statement.AnalyzedStatement;
import io.ashlar.parser.statement.ParameterMarker;

import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * The statement's tokens, for what the analysis does not record: where the HAVING keyword
 * starts, where a GROUP BY can go, whether an ORDER BY or HAVING expression is an aggregate call,
 * and a normalised spelling of an expression to compare two of them. Compile-time only.
 */
final class SqlTokens {

    /** Aggregate functions of PostgreSQL's catalog that an expression may call (not only the mergeable ones). */
    private static final Set<String> AGGREGATES = Set.of("count", "sum", "min", "max", "avg", "array_agg",
            "string_agg", "bool_and", "bool_or", "every", "bit_and", "bit_or", "bit_xor", "json_agg", "jsonb_agg",
            "json_object_agg", "jsonb_object_agg", "json_arrayagg", "json_objectagg", "xmlagg", "stddev",
            "stddev_pop", "stddev_samp", "variance", "var_pop", "var_samp", "corr", "covar_pop", "covar_samp",
            "regr_avgx", "regr_avgy", "regr_count", "regr_intercept", "regr_r2", "regr_slope", "regr_sxx", "regr_sxy",
            "regr_syy", "percentile_cont", "percentile_disc", "mode", "any_value", "range_agg", "range_intersect_agg",
            "grouping");

    private final String sql;
    private final TokenList tokens;

    private SqlTokens(String sql, TokenList tokens) {
        this.sql = sql;
        this.tokens = tokens;
    }

    static SqlTokens of(AnalyzedStatement statement) {
        boolean jdbc = false;
        for (ParameterMarker marker : statement.parameters()) {
            jdbc |= marker.jdbc();
        }
        return new SqlTokens(statement.sql(), Lexer.tokenize(statement.sql(), jdbc));
    }

    TokenList list() {
        return tokens;
    }

    String sql() {
        return sql;
    }

    int size() {
        return tokens.size();
    }

    /** Index of the first token starting at or after {@code offset} ({@link #size()} if none). */
    int firstAtOrAfter(int offset) {
        int low = 0;
        int high = tokens.size();
        while (low < high) {
            int middle = (low + high) >>> 1;
            if (tokens.start(middle) < offset) {
                low = middle + 1;
            } else {
                high = middle;
            }
        }
        return low;
    }

    /** Index one past the last token ending at or before {@code offset}. */
    int endBefore(int offset) {
        int result = firstAtOrAfter(offset);
        while (result > 0 && tokens.end(result - 1) > offset) {
            result--;
        }
        return result;
    }

    /** Tokens of {@code sql[from, to)} spelled canonically: words in lower case, one space between tokens. */
    String normalized(int from, int to) {
        StringBuilder result = new StringBuilder(to - from);
        for (int i = firstAtOrAfter(from), end = endBefore(to); i < end; i++) {
            if (!result.isEmpty()) {
                result.append(' ');
            }
            String text = tokens.text(i);
            result.append(tokens.is(i, TokenKind.IDENTIFIER) ? text.toLowerCase(Locale.ROOT) : text);
        }
        return result.toString();
    }

    /** Whether a token of {@code sql[from, to)} calls an aggregate function or has an OVER clause. */
    boolean containsAggregateOrWindow(int from, int to) {
        for (int i = firstAtOrAfter(from), end = endBefore(to); i < end; i++) {
            if (tokens.isKeyword(i, Keyword.OVER)) {
                return true;
            }
            if (i + 1 < end && isAggregateCall(i)) {
                return true;
            }
        }
        return false;
    }

    /** Whether token {@code i} is the name of an aggregate function followed by its argument list. */
    boolean isAggregateCall(int i) {
        return tokens.is(i, TokenKind.IDENTIFIER) && tokens.is(i + 1, TokenKind.LEFT_PAREN)
                && AGGREGATES.contains(tokens.text(i).toLowerCase(Locale.ROOT));
    }

    /** Whether {@code sql[from, to)} holds the keyword. */
    boolean containsKeyword(int from, int to, Keyword keyword) {
        for (int i = firstAtOrAfter(from), end = endBefore(to); i < end; i++) {
            if (tokens.isKeyword(i, keyword)) {
                return true;
            }
        }
        return false;
    }

    /** Index of the parenthesis closing the one at {@code open}, or -1. */
    int closing(int open, int end) {
        int depth = 0;
        for (int i = open; i < end; i++) {
            TokenKind kind = tokens.kind(i);
            if (kind == TokenKind.LEFT_PAREN || kind == TokenKind.LEFT_BRACKET) {
                depth++;
            } else if (kind == TokenKind.RIGHT_PAREN || kind == TokenKind.RIGHT_BRACKET) {
                depth--;
                if (depth == 0) {
                    return i;
                }
            }
        }
        return -1;
    }

    /**
     * {@code sql[from, to)} as one mergeable aggregate call and nothing else:
     * {@code count(*)}, {@code sum(x)}, {@code count(DISTINCT x)}, ... (no FILTER, OVER, ORDER BY or cast).
     */
    Optional<AggregateCall> aggregateCall(int from, int to) {
        int first = firstAtOrAfter(from);
        int end = endBefore(to);
        if (end - first < 3 || !tokens.is(first, TokenKind.IDENTIFIER) || !tokens.is(first + 1, TokenKind.LEFT_PAREN)
                || closing(first + 1, end) != end - 1) {
            return Optional.empty();
        }
        AggregateFunction function = switch (tokens.text(first).toLowerCase(Locale.ROOT)) {
            case "count" -> AggregateFunction.COUNT;
            case "sum" -> AggregateFunction.SUM;
            case "min" -> AggregateFunction.MIN;
            case "max" -> AggregateFunction.MAX;
            case "avg" -> AggregateFunction.AVG;
            default -> null;
        };
        if (function == null) {
            return Optional.empty();
        }
        int argument = first + 2;
        boolean distinct = tokens.isKeyword(argument, Keyword.DISTINCT);
        if (distinct || tokens.isKeyword(argument, Keyword.ALL)) {
            argument++;
        }
        int argumentEnd = end - 1;
        if (argument >= argumentEnd) {
            return Optional.empty();
        }
        int depth = 0;
        for (int i = argument; i < argumentEnd; i++) {
            TokenKind kind = tokens.kind(i);
            if (kind == TokenKind.LEFT_PAREN || kind == TokenKind.LEFT_BRACKET) {
                depth++;
            } else if (kind == TokenKind.RIGHT_PAREN || kind == TokenKind.RIGHT_BRACKET) {
                depth--;
            } else if (depth == 0 && (kind == TokenKind.COMMA || tokens.isKeyword(i, Keyword.ORDER))) {
                return Optional.empty();
            }
        }
        boolean star = argumentEnd - argument == 1 && tokens.isOperator(argument, "*");
        if (star && (function != AggregateFunction.COUNT || distinct)) {
            return Optional.empty();
        }
        int argumentStart = tokens.start(argument);
        int argumentStop = tokens.end(argumentEnd - 1);
        return Optional.of(new AggregateCall(function, distinct, star, argumentStart, argumentStop,
                normalized(argumentStart, argumentStop)));
    }
}
