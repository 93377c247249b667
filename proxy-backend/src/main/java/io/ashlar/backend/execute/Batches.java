package io.ashlar.backend.execute;

import io.ashlar.backend.session.BackendSession.BatchOutcome;
import java.sql.SQLException;
import io.ashlar.backend.datasource.BatchResults;

/** What a client's batch may run as a backend batch, and how a backend batch's results read. */
public final class Batches {

    private Batches() {
    }

    /**
     * Whether the statement is an INSERT, UPDATE or DELETE without RETURNING: one that answers
     * each row with a command tag only, so that its rows can run as a backend batch. Judged from
     * the text (a RETURNING anywhere, even in a string, keeps the statement out: rows then run
     * one by one, which is always right).
     */
    public static boolean returnsNoRows(String sql) {
        if (!ParameterCounter.startsWithKeyword(sql, "insert") && !ParameterCounter.startsWithKeyword(sql, "update")
                && !ParameterCounter.startsWithKeyword(sql, "delete")) {
            return false;
        }
        for (int i = 0, n = sql.length() - 9; i <= n; i++) {
            char c = sql.charAt(i);
            if ((c == 'r' || c == 'R') && sql.regionMatches(true, i, "returning", 0, 9)) {
                return false;
            }
        }
        return true;
    }

    /** A backend batch's results as the client's rows see them. */
    public static BatchOutcome outcome(BatchResults results) {
        SQLException failure = results.failure();
        return new BatchOutcome(results.tags(), results.failedRow(), failure == null ? null : ErrorFields.from(failure));
    }
}
