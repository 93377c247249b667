package io.ashlar.parser.statement;

import java.util.List;

/**
 * SQL-level {@code PREPARE name [(types)] AS statement}. Analyse {@link #statement()}'s text to route it.
 *
 * @param name           the normalised statement name
 * @param nameRange      source range of the name, as written
 * @param parameterTypes the declared parameter types, normalised
 * @param statement      source range of the prepared statement
 */
public record PrepareStatement(String name, SourceRange nameRange, List<String> parameterTypes, SourceRange statement)
        implements StatementBody {
    public PrepareStatement {
        parameterTypes = List.copyOf(parameterTypes);
    }
}
