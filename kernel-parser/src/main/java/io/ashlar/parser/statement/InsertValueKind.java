package io.ashlar.parser.statement;

/** What an INSERT value is. */
public enum InsertValueKind {
    LITERAL, PARAMETER, DEFAULT, EXPRESSION
}
