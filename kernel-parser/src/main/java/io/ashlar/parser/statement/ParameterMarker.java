package io.ashlar.parser.statement;

/**
 * One parameter marker in the text: {@code $n}, or a JDBC-style {@code ?} when the analyzer was
 * asked to recognise those. Rewriting needs the range to renumber or inline markers.
 *
 * @param range  source range of the marker
 * @param number {@code n} for {@code $n}; the 1-based ordinal among the {@code ?} markers for {@code ?}
 * @param jdbc   whether it was written {@code ?}
 */
public record ParameterMarker(SourceRange range, int number, boolean jdbc) {
}
