package io.ashlar.parser.statement;

/** The shape of a {@link ProjectionItem}. */
public enum ProjectionKind {
    /** {@code *}. */
    STAR,
    /** {@code t.*}. */
    QUALIFIED_STAR,
    /** A plain column reference. */
    COLUMN,
    /** Exactly one mergeable aggregate call; see {@link ProjectionItem#aggregate()}. */
    AGGREGATE,
    /** Anything else. */
    EXPRESSION
}
