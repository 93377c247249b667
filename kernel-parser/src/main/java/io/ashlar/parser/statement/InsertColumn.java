package io.ashlar.parser.statement;

/**
 * A column of an INSERT column list or a COPY column list.
 *
 * @param name  the normalised column name (the first name, for {@code col.field} or {@code col[1]})
 * @param range source range of the item
 */
public record InsertColumn(String name, SourceRange range) {
}
