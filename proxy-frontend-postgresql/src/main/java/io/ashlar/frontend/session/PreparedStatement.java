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
    /** When Parse made it under a name (System.currentTimeMillis), for pg_prepared_statements; 0 for the unnamed one. */
    long preparedAtMillis;
    /** {@link #perColumn}'s codes: binary for every described column, made once. */
    private short[] allBinary;

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
        this.allBinary = null;
    }

    /**
     * A Bind's result format codes as the backend session is given them: one code for every column (asyncpg's Bind
     * when each column has a binary decoder) made one per column when a Describe of the statement told the columns,
     * so that a merge over shards that reads some columns asks the shards for binary for the others (for any type a
     * backend sends in binary, which the proxy would otherwise have to encode from text itself). Other codes as given.
     */
    short[] perColumn(short[] codes) {
        if (codes == null || codes.length != 1 || codes[0] != 1 || description == null || description.columns().isEmpty()) {
            return codes;
        }
        short[] result = allBinary;
        if (result == null) {
            int count = description.columns().get().length;
            if (count < 2) {
                return codes;
            }
            result = new short[count];
            java.util.Arrays.fill(result, (short) 1);
            allBinary = result;
        }
        return result;
    }
}
