package io.ashlar.parser.statement;

import java.util.Optional;

/**
 * A parameter marker standing for a value: {@code $2}, {@code ?}, {@code $1::int8}.
 *
 * @param number   the parameter number, 1-based, as in {@link ParameterMarker#number()}
 * @param typeName the cast type, if any
 * @param range    source range, casts included
 */
public record ParameterValue(int number, Optional<String> typeName, SourceRange range) implements SqlValue {
}
