package io.ashlar.parser.statement;

import java.util.Optional;

/**
 * A value the analyzer could pin down without evaluating anything: a literal, or a parameter whose
 * value arrives with Bind. Used for sharding conditions, INSERT values and LIMIT/OFFSET.
 */
public sealed interface SqlValue permits LiteralValue, ParameterValue {
    /** Source range of the whole value, casts included. */
    SourceRange range();

    /**
     * The type the value is cast to ({@code '5'::int8}, {@code CAST($1 AS bigint)},
     * {@code DATE '2024-01-01'}), normalised to lower case with single spaces.
     */
    Optional<String> typeName();
}
