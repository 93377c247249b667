package io.ashlar.parser.lexer;

/**
 * A lexical error in SQL text: an unterminated quoted string, quoted identifier, dollar-quoted string
 * or comment, or a zero-length quoted identifier; or a statement nested deeper than the analyzer
 * reads ({@link #tooDeep}). These are the only inputs the parser refuses; the frontend turns this
 * into an ErrorResponse with {@link #sqlState()} ({@value #SQLSTATE}, {@code syntax_error}, but for
 * nesting), the message PostgreSQL itself would send, and the 1-based {@link #cursorPosition()}.
 *
 * <p>See <a href="https://www.postgresql.org/docs/current/errcodes-appendix.html">Appendix A,
 * PostgreSQL Error Codes</a>.
 */
public final class SqlSyntaxException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** {@code syntax_error}. */
    public static final String SQLSTATE = "42601";

    /** {@code statement_too_complex}: PostgreSQL's {@code check_stack_depth}. */
    public static final String STACK_DEPTH_SQLSTATE = "54001";

    private final int position;
    private final String sqlState;
    private final String hint;

    /**
     * @param reason   PostgreSQL's wording, such as {@code unterminated quoted string}
     * @param sql      the text being lexed
     * @param position 0-based character offset of the offending token
     */
    public SqlSyntaxException(String reason, String sql, int position) {
        this(SQLSTATE, message(reason, sql, position), position, "");
    }

    private SqlSyntaxException(String sqlState, String message, int position, String hint) {
        super(message);
        this.sqlState = sqlState;
        this.position = position;
        this.hint = hint;
    }

    /**
     * A statement whose parentheses and brackets nest {@code depth} deep or more, which the
     * analyzer does not read (its recursion would take more stack than a session has). Past the
     * depth at which PostgreSQL's own parser runs out of stack whatever the statement (its bison
     * stack holds {@value io.ashlar.parser.StatementAnalyzer#POSTGRESQL_PARSER_DEPTH} states, at least
     * one per level), PostgreSQL's error: 42601 {@code memory exhausted at or near "("}; below it,
     * the error of PostgreSQL's {@code check_stack_depth}, 54001 {@code stack depth limit exceeded},
     * with a hint that the limit is Ashlar's.
     *
     * @param position 0-based offset of the bracket that goes one level too deep
     * @param token that bracket's text
     * @param postgresqlCannot whether PostgreSQL itself cannot parse the statement
     */
    public static SqlSyntaxException tooDeep(int position, String token, boolean postgresqlCannot, int limit) {
        return postgresqlCannot
                ? new SqlSyntaxException(SQLSTATE, "memory exhausted at or near \"" + token + "\"", position, "")
                : new SqlSyntaxException(STACK_DEPTH_SQLSTATE, "stack depth limit exceeded", position,
                        "Ashlar reads statements whose parentheses and brackets nest at most " + limit
                                + " levels deep: simplify the statement.");
    }

    private static String message(String reason, String sql, int position) {
        // PostgreSQL quotes everything from the offending token to the end of the input.
        if (position >= sql.length()) {
            return reason + " at end of input";
        }
        return reason + " at or near \"" + sql.substring(position) + "\"";
    }

    /** {@value #SQLSTATE}, or {@value #STACK_DEPTH_SQLSTATE} for a statement nested too deep. */
    public String sqlState() {
        return sqlState;
    }

    /** What the client can do about it, or empty. */
    public String hint() {
        return hint;
    }

    /** 0-based character offset of the offending token in the SQL text. */
    public int position() {
        return position;
    }

    /** 1-based character position, as in the {@code P} field of a PostgreSQL ErrorResponse. */
    public int cursorPosition() {
        return position + 1;
    }
}
