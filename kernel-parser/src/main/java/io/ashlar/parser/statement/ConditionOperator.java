package io.ashlar.parser.statement;

/** The comparisons a router can evaluate against a sharding value. */
public enum ConditionOperator {
    /** {@code column = v}: one value. */
    EQUAL,
    /** {@code column IN (v1, v2, ...)}: one or more values. */
    IN,
    /** {@code column BETWEEN low AND high}: two values, both bounds inclusive. */
    BETWEEN,
    /** {@code column < v}. */
    LESS_THAN,
    /** {@code column <= v}. */
    LESS_THAN_OR_EQUAL,
    /** {@code column > v}. */
    GREATER_THAN,
    /** {@code column >= v}. */
    GREATER_THAN_OR_EQUAL
}
