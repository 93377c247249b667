package io.ashlar.rewrite.query;

import io.ashlar.parser.statement.AggregateFunction;

/**
 * A mergeable aggregate call found in an ORDER BY or HAVING expression.
 *
 * @param function      which aggregate
 * @param distinct      whether {@code (DISTINCT x)}
 * @param star          whether {@code count(*)}
 * @param argumentStart offset of the argument's first character
 * @param argumentEnd   offset just past the argument
 * @param argument      the argument, normalised ({@link SqlTokens#normalized})
 */
record AggregateCall(AggregateFunction function, boolean distinct, boolean star, int argumentStart, int argumentEnd,
                     String argument) {
}
