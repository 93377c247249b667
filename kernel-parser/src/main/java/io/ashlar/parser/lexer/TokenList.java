package io.ashlar.parser.lexer;

/**
 * The tokens of one SQL text, stored as parallel int arrays over the source string: token {@code i}
 * is {@code sql.substring(start(i), end(i))} and has kind {@link #kind(int)}. No String is made per
 * token; the normalised text of an identifier or the value of a string constant is computed only
 * when asked for. Whitespace and comments are not tokens.
 *
 * <p>Every accessor that takes an index also accepts an index outside {@code [0, size())} where it
 * answers a yes/no question ({@link #is}, {@link #isKeyword}, {@link #isOperator}), so that parsers
 * can look ahead without bounds checks.
 *
 * <p>Instances are immutable once the {@link Lexer} has built them.
 */
public final class TokenList {
    private final String sql;
    private final byte[] kinds;
    private final int[] starts;
    private final int[] ends;
    /** Keyword ordinal for IDENTIFIER tokens, parameter number for parameter tokens, else 0. */
    private final int[] extras;
    private final int size;

    TokenList(String sql, byte[] kinds, int[] starts, int[] ends, int[] extras, int size) {
        this.sql = sql;
        this.kinds = kinds;
        this.starts = starts;
        this.ends = ends;
        this.extras = extras;
        this.size = size;
    }

    /**
     * The first {@code count} tokens over the text's first {@code end} characters, which hold them all: a statement
     * split from a query string that starts it (its {@code ;} and whatever follows dropped), analysed without lexing it
     * again. The arrays are shared, not copied; the prefix is cut here, so it needs no comparing with the text.
     *
     * @throws IllegalArgumentException when the first {@code count} tokens do not end within {@code end}
     */
    public TokenList prefix(int end, int count) {
        if (count < 0 || count > size || end > sql.length() || (count > 0 && ends[count - 1] > end)) {
            throw new IllegalArgumentException("not a prefix holding " + count + " tokens");
        }
        if (end == sql.length() && count == size) {
            return this;
        }
        return new TokenList(sql.substring(0, end), kinds, starts, ends, extras, count);
    }

    /** The SQL text these tokens index into. */
    public String sql() {
        return sql;
    }

    public int size() {
        return size;
    }

    public TokenKind kind(int i) {
        return TokenKind.of(kinds[i]);
    }

    /** Offset of the token's first character. */
    public int start(int i) {
        return starts[i];
    }

    /** Offset just past the token's last character. */
    public int end(int i) {
        return ends[i];
    }

    /** Whether token {@code i} exists and is of the given kind. */
    public boolean is(int i, TokenKind kind) {
        return i >= 0 && i < size && kinds[i] == kind.ordinal();
    }

    /** The keyword an unquoted word spells, or {@link Keyword#NONE} (also for any other kind of token). */
    public Keyword keyword(int i) {
        if (i < 0 || i >= size || kinds[i] != TokenKind.IDENTIFIER.ordinal()) {
            return Keyword.NONE;
        }
        return Keyword.of(extras[i]);
    }

    /** Whether token {@code i} exists and is the unquoted keyword {@code keyword}. */
    public boolean isKeyword(int i, Keyword keyword) {
        return i >= 0 && i < size && kinds[i] == TokenKind.IDENTIFIER.ordinal() && extras[i] == keyword.ordinal();
    }

    /** Whether token {@code i} exists and is exactly the operator {@code operator}. */
    public boolean isOperator(int i, String operator) {
        return i >= 0 && i < size && kinds[i] == TokenKind.OPERATOR.ordinal() && textEquals(i, operator);
    }

    /** Whether the token's source text is exactly {@code text} (case-sensitive), without allocating. */
    public boolean textEquals(int i, String text) {
        int start = starts[i];
        int length = ends[i] - start;
        return length == text.length() && sql.regionMatches(start, text, 0, length);
    }

    /** Whether the token's source text equals {@code text} ignoring ASCII case, without allocating. */
    public boolean textEqualsIgnoreCase(int i, String text) {
        int start = starts[i];
        int length = ends[i] - start;
        return length == text.length() && sql.regionMatches(true, start, text, 0, length);
    }

    /** The token's source text, exactly as written. */
    public String text(int i) {
        return sql.substring(starts[i], ends[i]);
    }

    /**
     * The name an identifier token denotes, as PostgreSQL normalises it: unquoted words folded to lower
     * case (ASCII only), quoted ones unescaped, {@code U&""} ones decoded; all truncated to 63 bytes
     * (NAMEDATALEN - 1) in UTF-8. For any other token this returns its source text.
     */
    public String identifier(int i) {
        return TokenText.identifier(sql, kind(i), starts[i], ends[i]);
    }

    /**
     * The value of a string constant token (escapes processed, continuation segments joined), or, for
     * bit strings, the digits between the quotes. For any other token this returns its source text.
     */
    public String stringValue(int i) {
        return TokenText.stringValue(sql, kind(i), starts[i], ends[i]);
    }

    /**
     * The number of a parameter token: {@code n} for {@code $n} ({@link Integer#MAX_VALUE} if it does
     * not fit an int), the 1-based ordinal among the {@code ?} markers for a JDBC marker, 0 otherwise.
     */
    public int parameterNumber(int i) {
        int kind = kinds[i];
        return kind == TokenKind.PARAMETER.ordinal() || kind == TokenKind.JDBC_PARAMETER.ordinal() ? extras[i] : 0;
    }

    @Override
    public String toString() {
        StringBuilder result = new StringBuilder();
        for (int i = 0; i < size; i++) {
            if (i > 0) {
                result.append(' ');
            }
            result.append(kind(i)).append('(').append(text(i)).append(')');
        }
        return result.toString();
    }
}
