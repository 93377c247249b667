package io.ashlar.parser.statement;

/**
 * SHOW name, or SHOW ALL (name {@code all}); {@code TIME ZONE} is {@code timezone},
 * {@code TRANSACTION ISOLATION LEVEL} is {@code transaction_isolation},
 * {@code SESSION AUTHORIZATION} is {@code session_authorization}.
 *
 * @param name the parameter name, lower case
 */
public record ShowStatement(String name) implements StatementBody {
}
