package io.ashlar.parser.statement;

/**
 * Where a statement asks for a {@link SessionValue}: {@code range} covers the keyword, or the whole
 * call with its parentheses ({@code pg_catalog.current_database()}), so that a rewriter can put a
 * value in its place.
 */
public record SessionValueReference(SourceRange range, SessionValue value) {
}
