package io.ashlar.sharding.inline;

import io.ashlar.sharding.ShardingAlgorithmException;

/**
 * An inline expression uses syntax the compiler does not understand. The message carries the
 * expression and the 0-based character position of the problem, e.g.
 * {@code unsupported token '?' at position 6 in expression 't_${a ? 1 : 2}'}.
 */
public final class InlineExpressionException extends ShardingAlgorithmException {

    private static final long serialVersionUID = 1L;

    private final String expression;

    private final int position;

    public InlineExpressionException(String problem, String expression, int position) {
        super(problem + " at position " + position + " in expression '" + expression + "'");
        this.expression = expression;
        this.position = position;
    }

    /** The expression as given to the compiler. */
    public String expression() {
        return expression;
    }

    /** The 0-based character position of the problem in {@link #expression()}. */
    public int position() {
        return position;
    }
}
