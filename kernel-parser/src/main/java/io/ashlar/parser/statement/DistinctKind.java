package io.ashlar.parser.statement;

/** {@code SELECT}, {@code SELECT DISTINCT} or {@code SELECT DISTINCT ON (...)}. */
public enum DistinctKind {
    NONE, DISTINCT, DISTINCT_ON
}
