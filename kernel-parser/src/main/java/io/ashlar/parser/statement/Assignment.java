package io.ashlar.parser.statement;

import java.util.List;
import java.util.Optional;

/**
 * One {@code SET} item of an UPDATE: {@code col = value} or {@code (a, b) = (...)}.
 *
 * @param columns      the normalised column names assigned
 * @param columnsRange source range of the left-hand side
 * @param valueRange   source range of the right-hand side
 * @param value        the value when it is a single literal or parameter
 */
public record Assignment(List<String> columns, SourceRange columnsRange, SourceRange valueRange,
                         Optional<SqlValue> value) {
    public Assignment {
        columns = List.copyOf(columns);
    }
}
