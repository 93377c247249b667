package io.ashlar.parser.statement;

/**
 * {@code FOR UPDATE}, {@code FOR SHARE} and friends at the end of a SELECT.
 *
 * @param strength the strength of the first locking clause
 * @param range    source range of all locking clauses together
 */
public record LockingClause(LockStrength strength, SourceRange range) {
}
