package io.ashlar.merge.plan;

/**
 * The six comparison operators a HAVING condition may use
 * (<a href="https://www.postgresql.org/docs/current/functions-comparison.html">Comparison Operators</a>).
 */
public enum CompareOperator {
    EQ("="),
    NE("<>"),
    LT("<"),
    LE("<="),
    GT(">"),
    GE(">=");

    private final String symbol;

    CompareOperator(String symbol) {
        this.symbol = symbol;
    }

    /** The SQL spelling. */
    public String symbol() {
        return symbol;
    }

    /** Whether a three-way comparison result satisfies the operator. */
    public boolean test(int comparison) {
        return switch (this) {
            case EQ -> comparison == 0;
            case NE -> comparison != 0;
            case LT -> comparison < 0;
            case LE -> comparison <= 0;
            case GT -> comparison > 0;
            case GE -> comparison >= 0;
        };
    }
}
