package io.ashlar.parser.statement;

import java.util.Optional;

/**
 * One value of a VALUES row.
 *
 * @param range source range of the value
 * @param kind  literal, parameter, DEFAULT or another expression
 * @param value the literal or parameter, for those kinds
 */
public record InsertValue(SourceRange range, InsertValueKind kind, Optional<SqlValue> value) {
}
