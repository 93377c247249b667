package io.ashlar.parser.statement;

/** The lexical kind of a {@link LiteralValue}. */
public enum LiteralKind {
    /** An integer; the value is in decimal, whatever base was written ({@code 0x1F} gives {@code 31}). */
    INTEGER,
    /** A number with a decimal point or exponent, as written without {@code _} separators. */
    DECIMAL,
    /** A character string constant; the value has escapes processed. */
    STRING,
    /** {@code TRUE} or {@code FALSE}; the value is {@code true} or {@code false}. */
    BOOLEAN
}
