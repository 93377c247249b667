package io.ashlar.backend.sharding;

import io.ashlar.backend.execute.ErrorFields;
import io.ashlar.backend.execute.StatementFailure;
import java.sql.SQLException;
import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;

/**
 * The errors a sharded COPY raises itself, built as a backend would send them (a {@link PSQLException} carrying a
 * {@link ServerErrorMessage}), so that the frontend passes SQLSTATE, hint and context ({@code COPY t, line 5}) to the
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
        ErrorFields fields = failure.fields();
        StringBuilder text = new StringBuilder();
        byte[] codes = fields.codes();
        String[] values = fields.values();
        for (int i = 0; i < codes.length; i++) {
            if (values[i] != null) {
                text.append((char) codes[i]).append(clean(values[i])).append('\0');
            }
        }
        PSQLException result = new PSQLException(new ServerErrorMessage(text.toString()));
        result.initCause(failure);
        return result;
    }

    private static SQLException build(String sqlState, String message, String hint, String where) {
        StringBuilder text = new StringBuilder(64 + message.length());
        text.append("SERROR\0VERROR\0C").append(sqlState).append("\0M").append(clean(message)).append('\0');
        if (!hint.isEmpty()) {
            text.append('H').append(clean(hint)).append('\0');
        }
        if (!where.isEmpty()) {
            text.append('W').append(clean(where)).append('\0');
        }
        return new PSQLException(new ServerErrorMessage(text.toString()));
    }

    /** A field value cannot hold the NUL that separates fields. */
    private static String clean(String value) {
        return value.indexOf('\0') < 0 ? value : value.replace('\0', ' ');
    }
}
