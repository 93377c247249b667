package io.ashlar.parser.statement;

import java.util.List;

/**
 * One row of {@code INSERT ... VALUES (...), (...)}.
 *
 * @param range     source range of the row, parentheses included
 * @param valuesEnd offset of the closing parenthesis: where rewriting appends {@code , generated_key}
 * @param values    the row's values in order
 */
public record ValuesRow(SourceRange range, int valuesEnd, List<InsertValue> values) {
    public ValuesRow {
        values = List.copyOf(values);
    }
}
