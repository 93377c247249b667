package io.ashlar.parser.statement;

/**
 * A join condition {@code a.x = b.y} that holds for every row of its query block (from WHERE or from
 * a JOIN ... ON, ANDed at the top level). Binding tables propagate sharding values through it.
 */
public record ColumnEquality(ColumnReference left, ColumnReference right) {
}
