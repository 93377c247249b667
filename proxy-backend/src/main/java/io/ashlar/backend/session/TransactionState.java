package io.ashlar.backend.session;

/**
 * Where a session is with its transaction, and every way it moves, in one place.
 *
 * <pre>
 *                 beginImplicit                      afterError
 *   IDLE ----------------------------&gt; IMPLICIT -----------------&gt; FAILED_IMPLICIT
 *    ^ ^   (a pipeline's Executes, a        |  becomeBlock             |  becomeBlock
 *    | |    query string, a write over      v                          v
 *    | |    several data sources)         BLOCK ------------------&gt; FAILED_BLOCK
 *    | |                                    ^       afterError,        |
 *    | +------------- begin ----------------+       afterErrorInBlock  |
 *    |                                      +--------------------------+
 *    |                                        rolledBackToSavepoint
 *    +----- end (COMMIT, ROLLBACK, Sync, the end of the query string) from any state
 * </pre>
 *
 * <p>A <b>block</b> is the client's own (BEGIN ... COMMIT): after an error in it, statements are
 * refused with 25P02 until ROLLBACK, as PostgreSQL refuses them. An <b>implicit</b> transaction is
 * one the proxy opens where PostgreSQL runs several statements as one (a pipeline's Executes before
 * one Sync, a query string of several statements) or where one statement needs one (a write over
 * several data sources): it commits at its end, or rolls back if something in it failed, and the
 * client does not see it (ReadyForQuery says idle). Used by {@link ShardedSession}, which keeps the
 * transaction itself, and {@link PassthroughSession}, whose backend connection keeps it: there the
 * backend's status after each statement says where the session is ({@link #backendReported}). The
 * relay of pooled databases keeps none: it passes the backend's own ReadyForQuery on.
 *
 * @see <a href="https://www.postgresql.org/docs/current/protocol-flow.html#PROTOCOL-FLOW-PIPELINING">Pipelining</a>
 */
public enum TransactionState {

    /** No transaction: each statement is its own. */
    IDLE,
    /** Inside the client's BEGIN ... COMMIT. */
    BLOCK,
    /** Inside the client's block after an error: statements are refused until ROLLBACK. */
    FAILED_BLOCK,
    /** Inside a transaction the proxy opened, which commits at its end. */
    IMPLICIT,
    /** Inside a transaction the proxy opened after an error: it rolls back at its end. */
    FAILED_IMPLICIT;

    /** ReadyForQuery's transaction status: 'I', 'T' or 'E'. An implicit transaction is the proxy's, and idle to the client. */
    public char status() {
        return switch (this) {
            case BLOCK -> 'T';
            case FAILED_BLOCK -> 'E';
            default -> 'I';
        };
    }

    /** Whether the client's BEGIN is in force (failed or not). */
    public boolean inBlock() {
        return this == BLOCK || this == FAILED_BLOCK;
    }

    /** Whether a transaction the proxy opened is in force (failed or not). */
    public boolean inImplicit() {
        return this == IMPLICIT || this == FAILED_IMPLICIT;
    }

    /** Whether any transaction is in force: a data source a statement uses must join it. */
    public boolean inTransaction() {
        return this != IDLE;
    }

    /** Whether something in the transaction failed: it can only roll back. */
    public boolean failed() {
        return this == FAILED_BLOCK || this == FAILED_IMPLICIT;
    }

    /** The client's BEGIN: a transaction the proxy opened becomes the block (its data sources stay in it). */
    public TransactionState begin() {
        return inBlock() ? this : BLOCK;
    }

    /** The proxy needs a transaction: one opens unless one is in force. */
    public TransactionState beginImplicit() {
        return this == IDLE ? IMPLICIT : this;
    }

    /** The client's own transaction control takes over the transaction the proxy opened. */
    public TransactionState becomeBlock() {
        return switch (this) {
            case IMPLICIT -> BLOCK;
            case FAILED_IMPLICIT -> FAILED_BLOCK;
            default -> this;
        };
    }

    /** A statement failed: as in PostgreSQL, the transaction it ran in is aborted. */
    public TransactionState afterError() {
        return switch (this) {
            case BLOCK -> FAILED_BLOCK;
            case IMPLICIT -> FAILED_IMPLICIT;
            default -> this;
        };
    }

    /**
     * A statement failed where only a block is marked (an implicit transaction learns of it from
     * its data sources' own status when it ends).
     */
    public TransactionState afterErrorInBlock() {
        return this == BLOCK ? FAILED_BLOCK : this;
    }

    /** ROLLBACK TO SAVEPOINT: the block works again. */
    public TransactionState rolledBackToSavepoint() {
        return this == FAILED_BLOCK ? BLOCK : this;
    }

    /** COMMIT, ROLLBACK, the end of an implicit transaction: no transaction any more. */
    public TransactionState end() {
        return IDLE;
    }

    /**
     * Where a session whose backend connection keeps the transaction is, once the backend reported
     * its status after a statement ('I', 'T' or 'E' of its ReadyForQuery). An implicit transaction
     * stays the proxy's until the proxy ends it (at the client's Sync), failed once the backend
     * says so; otherwise the backend's status is the client's block, or none.
     */
    public TransactionState backendReported(char status) {
        if (inImplicit()) {
            return status == 'E' ? FAILED_IMPLICIT : IMPLICIT;
        }
        return switch (status) {
            case 'T' -> BLOCK;
            case 'E' -> FAILED_BLOCK;
            default -> IDLE;
        };
    }
}
