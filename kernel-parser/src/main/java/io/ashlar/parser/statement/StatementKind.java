package io.ashlar.parser.statement;

/**
 * What a statement does, for dispatch: DML and queries are routed, transaction control and session
 * settings are handled by the proxy or broadcast, everything else is passed through.
 */
public enum StatementKind {
    /** SELECT, including WITH, VALUES, TABLE and set operations. */
    SELECT,
    INSERT,
    UPDATE,
    DELETE,
    /** MERGE: recognised, target and source tables recorded, actions not analysed. */
    MERGE,
    /** CREATE, ALTER, DROP, TRUNCATE. */
    DDL,
    COPY,
    /** BEGIN, START TRANSACTION, COMMIT, ROLLBACK, SAVEPOINT, RELEASE, two-phase commit, SET TRANSACTION. */
    TRANSACTION,
    SET,
    RESET,
    SHOW,
    /** PREPARE name AS statement (SQL-level, not the protocol's Parse). */
    PREPARE,
    EXECUTE,
    DEALLOCATE,
    DISCARD,
    /** DECLARE, FETCH, MOVE and CLOSE of a cursor. */
    CURSOR,
    /** Text with no tokens: only whitespace and comments. */
    EMPTY,
    /** Anything else; {@link AnalyzedStatement#command()} names it. */
    OTHER
}
