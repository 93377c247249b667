package io.ashlar.parser.statement;

/** How the branches of a top-level query are combined. */
public enum SetOperation {
    NONE, UNION, UNION_ALL, INTERSECT, INTERSECT_ALL, EXCEPT, EXCEPT_ALL,
    /** Several different set operations in one query. */
    MIXED
}
