package io.ashlar.parser.lexer;

/**
 * The kind of one lexical token, following the token classes of
 * <a href="https://www.postgresql.org/docs/current/sql-syntax-lexical.html">PostgreSQL's lexical
 * structure</a>. Whitespace and comments never become tokens: rewriting splices source ranges, so
 * they survive untouched anyway.
 */
public enum TokenKind {
    /** An unquoted word: an identifier or a keyword ({@link TokenList#keyword(int)} tells which). */
    IDENTIFIER,
    /** {@code "..."} with {@code ""} as the escaped quote. */
    QUOTED_IDENTIFIER,
    /** {@code U&"..."}, possibly followed by {@code UESCAPE 'c'} (included in the token). */
    UNICODE_IDENTIFIER,
    /** {@code '...'} with {@code ''} as the escaped quote; continuation segments included. */
    STRING,
    /** {@code E'...'}: C-style backslash escapes. */
    ESCAPE_STRING,
    /** {@code U&'...'}, possibly followed by {@code UESCAPE 'c'} (included in the token). */
    UNICODE_STRING,
    /** {@code N'...'}: a national character string, same value rules as {@link #STRING}. */
    NATIONAL_STRING,
    /** {@code B'...'}: a bit string. */
    BIT_STRING,
    /** {@code X'...'}: a bit string written in hexadecimal. */
    HEX_STRING,
    /** {@code $$...$$} or {@code $tag$...$tag$}. */
    DOLLAR_STRING,
    /** A decimal, hexadecimal ({@code 0x}), octal ({@code 0o}) or binary ({@code 0b}) integer. */
    INTEGER,
    /** A number with a decimal point or an exponent. */
    DECIMAL,
    /** A positional parameter {@code $n}. */
    PARAMETER,
    /** A JDBC-style {@code ?} marker (only when the lexer was asked to recognise them). */
    JDBC_PARAMETER,
    /** An operator, single- or multi-character ({@code =}, {@code <=}, {@code ||}, {@code ->>}, ...). */
    OPERATOR,
    /** {@code ::}. */
    TYPECAST,
    /** {@code :=}. */
    COLON_EQUALS,
    /** {@code ..}. */
    DOT_DOT,
    LEFT_PAREN,
    RIGHT_PAREN,
    LEFT_BRACKET,
    RIGHT_BRACKET,
    COMMA,
    SEMICOLON,
    DOT,
    COLON,
    /** Any other single character ({@code \}, <code>{</code>, a lone {@code $}, ...). */
    OTHER;

    private static final TokenKind[] VALUES = values();

    static TokenKind of(int ordinal) {
        return VALUES[ordinal];
    }

    /** Whether this is one of the string constant kinds. */
    public boolean isString() {
        return switch (this) {
            case STRING, ESCAPE_STRING, UNICODE_STRING, NATIONAL_STRING, BIT_STRING, HEX_STRING, DOLLAR_STRING -> true;
            default -> false;
        };
    }

    /** Whether this is a character string whose value is text (not a bit string). */
    public boolean isCharacterString() {
        return isString() && this != BIT_STRING && this != HEX_STRING;
    }

    /** Whether this is an identifier of any quoting style (including keywords, which are unquoted words). */
    public boolean isIdentifier() {
        return this == IDENTIFIER || this == QUOTED_IDENTIFIER || this == UNICODE_IDENTIFIER;
    }

    /** Whether this is a numeric constant. */
    public boolean isNumber() {
        return this == INTEGER || this == DECIMAL;
    }

    /** Whether this is a parameter marker of either style. */
    public boolean isParameter() {
        return this == PARAMETER || this == JDBC_PARAMETER;
    }
}
