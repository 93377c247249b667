package io.ashlar.parser.statement;

/**
 * A projection that is exactly one mergeable aggregate call: {@code COUNT(*)}, {@code COUNT(x)},
 * {@code COUNT(DISTINCT x)}, {@code SUM(x)}, {@code MIN(x)}, {@code MAX(x)}, {@code AVG(x)}.
 *
 * @param function      which aggregate
 * @param distinct      whether the argument list starts with DISTINCT
 * @param star          whether it is {@code COUNT(*)}
 * @param argument      the argument's source text (after DISTINCT), {@code *} for COUNT(*)
 * @param argumentRange its source range
 */
public record Aggregate(AggregateFunction function, boolean distinct, boolean star, String argument,
                        SourceRange argumentRange) {
}
