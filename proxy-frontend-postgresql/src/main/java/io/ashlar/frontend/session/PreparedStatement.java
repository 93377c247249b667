package io.ashlar.frontend.session;

import io.ashlar.backend.execute.ParameterCounter;
import io.ashlar.backend.session.BackendSession;

/**
 * A statement the client prepared with Parse: its SQL and declared parameter types, and, once a
 * Describe asked for it, the backend's description (kept for later Describes).
 */
final class PreparedStatement {

    final String sql;
    final int[] declaredTypes;
    private final boolean transactionControl;
    private BackendSession.Description description;

    PreparedStatement(String sql, int[] declaredTypes) {
        this.sql = sql;
        this.declaredTypes = declaredTypes;
        this.transactionControl = isTransactionControl(sql);
    }

    /** BEGIN, START, COMMIT, END, ROLLBACK, ABORT, SAVEPOINT, RELEASE, PREPARE TRANSACTION: the client steers its transaction itself. */
    boolean isTransactionControl() {
        return transactionControl;
    }

    private static boolean isTransactionControl(String sql) {
        for (String keyword : new String[] {"begin", "start", "commit", "end", "rollback", "abort", "savepoint",
                "release", "prepare"}) {
            if (FrontendSession.startsWithKeyword(sql, keyword)) {
                return true;
            }
        }
        return false;
    }

    /** One type per parameter the SQL uses, 0 where the client left it to the server. */
    int[] parameterTypes() {
        int count = Math.max(declaredTypes.length, ParameterCounter.count(sql));
        return count == declaredTypes.length ? declaredTypes : java.util.Arrays.copyOf(declaredTypes, count);
    }

    BackendSession.Description description() {
        return description;
    }

    void description(BackendSession.Description description) {
        this.description = description;
    }
}
