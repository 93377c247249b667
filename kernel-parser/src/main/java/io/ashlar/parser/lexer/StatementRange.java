package io.ashlar.parser.lexer;

/**
 * One statement of a multi-statement query string: characters {@code [start, end)} of the string
 * (leading and trailing whitespace trimmed, comments kept, the terminating {@code ;} excluded) and
 * tokens {@code [firstToken, endToken)} of the {@link TokenList} it was split from.
 *
 * @param start      offset of the statement's first character (a leading comment, such as a hint, included)
 * @param end        offset just past its last character
 * @param firstToken index of its first token
 * @param endToken   index just past its last token (never the {@code ;})
 */
public record StatementRange(int start, int end, int firstToken, int endToken) {
    /** The statement's text. */
    public String text(String sql) {
        return sql.substring(start, end);
    }
}
