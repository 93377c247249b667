package io.ashlar.parser.statement;

import java.util.List;

/**
 * SQL-level {@code EXECUTE name [(arguments)]}.
 *
 * @param name      the normalised statement name
 * @param arguments source ranges of the arguments
 */
public record ExecuteStatement(String name, List<SourceRange> arguments) implements StatementBody {
    public ExecuteStatement {
        arguments = List.copyOf(arguments);
    }
}
