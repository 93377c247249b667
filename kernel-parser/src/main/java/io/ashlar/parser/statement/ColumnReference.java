package io.ashlar.parser.statement;

import java.util.Optional;

/**
 * A column written as {@code col}, {@code t.col} or {@code schema.t.col}, names normalised. The
 * qualifier is an alias or a table name; {@link AnalyzedStatement#tablesFor} resolves it.
 *
 * @param schema    the schema part of a three-part name
 * @param qualifier the table name or alias before the column
 * @param name      the column name
 * @param range     source range of the whole reference
 */
public record ColumnReference(Optional<String> schema, Optional<String> qualifier, String name, SourceRange range) {
}
