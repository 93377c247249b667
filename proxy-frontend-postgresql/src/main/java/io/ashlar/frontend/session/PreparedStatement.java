package io.ashlar.frontend.session;

import io.ashlar.backend.execute.ParameterCounter;
import io.ashlar.backend.session.BackendSession;

/**
 * A statement the client prepared with Parse: its SQL and declared parameter types, and, once a
 * Describe asked for it, the backend's description (kept for later Describes).
 */
final class PreparedStatement {

    private static final String[] TRANSACTION_KEYWORDS = {"begin", "start", "commit", "end", "rollback", "abort",
        "savepoint", "release", "prepare"};

    final BackendSession.Prepared prepared;
    final String sql;
    final int[] declaredTypes;
    private final boolean transactionControl;
    /** COPY ... FROM STDIN or TO STDOUT: its Execute runs the COPY with the client ({@link CopyRelay}). */
    final boolean clientCopy;
    /** Whether its rows may run as a backend batch (see {@link #returnsNoRows()}); null until asked. */
    private Boolean returnsNoRows;
    private BackendSession.Description description;

    PreparedStatement(BackendSession.Prepared prepared, int[] declaredTypes) {
        this.prepared = prepared;
        this.sql = prepared.sql();
        this.declaredTypes = declaredTypes;
        this.transactionControl = isTransactionControl(sql);
        this.clientCopy = CopyRelay.isClientCopy(sql);
    }

    /** BEGIN, START, COMMIT, END, ROLLBACK, ABORT, SAVEPOINT, RELEASE, PREPARE TRANSACTION: the client steers its transaction itself. */
    boolean isTransactionControl() {
        return transactionControl;
    }

    static boolean isTransactionControl(String sql) {
        for (String keyword : TRANSACTION_KEYWORDS) {
            if (ParameterCounter.startsWithKeyword(sql, keyword)) {
                return true;
            }
        }
        return false;
    }

    /** An INSERT, UPDATE or DELETE without RETURNING ({@link io.ashlar.backend.execute.Batches#returnsNoRows}). */
    boolean returnsNoRows() {
        Boolean result = returnsNoRows;
        if (result == null) {
            result = io.ashlar.backend.execute.Batches.returnsNoRows(sql);
            returnsNoRows = result;
        }
        return result;
    }

    BackendSession.Description description() {
        return description;
    }

    void description(BackendSession.Description description) {
        this.description = description;
    }
}
