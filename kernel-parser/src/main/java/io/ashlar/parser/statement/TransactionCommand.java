package io.ashlar.parser.statement;

/**
 * Transaction control commands; see
 * <a href="https://www.postgresql.org/docs/current/sql-commands.html">SQL Commands</a>.
 */
public enum TransactionCommand {
    /** BEGIN [WORK | TRANSACTION] [modes]. */
    BEGIN,
    /** START TRANSACTION [modes]. */
    START_TRANSACTION,
    /** COMMIT or END. */
    COMMIT,
    /** ROLLBACK or ABORT. */
    ROLLBACK,
    SAVEPOINT,
    RELEASE_SAVEPOINT,
    ROLLBACK_TO_SAVEPOINT,
    PREPARE_TRANSACTION,
    COMMIT_PREPARED,
    ROLLBACK_PREPARED,
    /** SET TRANSACTION modes (or SET TRANSACTION SNAPSHOT). */
    SET_TRANSACTION,
    /** SET SESSION CHARACTERISTICS AS TRANSACTION modes. */
    SET_SESSION_CHARACTERISTICS
}
