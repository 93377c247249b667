package io.ashlar.backend.sharding;

import io.ashlar.backend.execute.ErrorFields;
import io.ashlar.backend.execute.StatementFailure;
import java.sql.SQLException;
import io.ashlar.backend.execute.BackendError;
import io.ashlar.backend.execute.ErrorFields;

/**
 * The errors a sharded COPY raises itself, built as a backend would send them (a {@link BackendError} with the
 * ErrorResponse fields), so that the frontend passes SQLSTATE, hint and context ({@code COPY t, line 5}) to the
 * client like any backend error.
 *
 * @see <a href="https://www.postgresql.org/docs/current/protocol-error-fields.html">55.8. Error and Notice Message Fields</a>
 */
final class CopyErrors {

    private CopyErrors() {
    }

    static SQLException error(String sqlState, String message) {
        return build(sqlState, message, "", "");
    }

    static SQLException error(String sqlState, String message, String hint) {
        return build(sqlState, message, hint, "");
    }

    /** An error about one line of the data: {@code where} is PostgreSQL's context line, {@code COPY t, line N}. */
    static SQLException atLine(String sqlState, String message, String hint, String where) {
        return build(sqlState, message, hint, where);
    }

    /** A session's failure (getting a connection, joining the transaction) as the SQLException a COPY operation throws. */
    static SQLException from(StatementFailure failure) {
        BackendError result = new BackendError(failure.fields());
        result.initCause(failure);
        return result;
    }

    private static SQLException build(String sqlState, String message, String hint, String where) {
        int count = 4 + (hint.isEmpty() ? 0 : 1) + (where.isEmpty() ? 0 : 1);
        byte[] codes = new byte[count];
        String[] values = new String[count];
        int i = 0;
        codes[i] = 'S';
        values[i++] = ErrorFields.ERROR;
        codes[i] = 'V';
        values[i++] = ErrorFields.ERROR;
        codes[i] = 'C';
        values[i++] = sqlState;
        codes[i] = 'M';
        values[i++] = message;
        if (!hint.isEmpty()) {
            codes[i] = 'H';
            values[i++] = hint;
        }
        if (!where.isEmpty()) {
            codes[i] = 'W';
            values[i] = where;
        }
        return new BackendError(new ErrorFields(codes, values));
    }
}
