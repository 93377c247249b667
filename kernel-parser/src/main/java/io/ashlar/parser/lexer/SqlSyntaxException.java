package io.ashlar.parser.lexer;

/**
 * A lexical error in SQL text: an unterminated quoted string, quoted identifier, dollar-quoted string
 * or comment, or a zero-length quoted identifier. These are the only inputs the parser refuses; the
 * frontend turns this into an ErrorResponse with SQLSTATE {@value #SQLSTATE} ({@code syntax_error}),
 * the message PostgreSQL itself would send, and the 1-based {@link #cursorPosition()}.
 *
 * <p>See <a href="https://www.postgresql.org/docs/current/errcodes-appendix.html">Appendix A,
 * PostgreSQL Error Codes</a>.
 */
public final class SqlSyntaxException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** {@code syntax_error}. */
    public static final String SQLSTATE = "42601";

    private final int position;

    /**
     * @param reason   PostgreSQL's wording, such as {@code unterminated quoted string}
     * @param sql      the text being lexed
     * @param position 0-based character offset of the offending token
     */
    public SqlSyntaxException(String reason, String sql, int position) {
        super(message(reason, sql, position));
        this.position = position;
    }

    private static String message(String reason, String sql, int position) {
        // PostgreSQL quotes everything from the offending token to the end of the input.
        if (position >= sql.length()) {
            return reason + " at end of input";
        }
        return reason + " at or near \"" + sql.substring(position) + "\"";
    }

    /** {@value #SQLSTATE}. */
    public String sqlState() {
        return SQLSTATE;
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
