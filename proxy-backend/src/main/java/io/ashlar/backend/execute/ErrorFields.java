package io.ashlar.backend.execute;

import java.sql.SQLException;

/**
 * The fields of a PostgreSQL ErrorResponse or NoticeResponse, in wire order, as plain values:
 * what the frontend encodes for the client. A backend's own error keeps every field the backend
 * sent (see
 * <a href="https://www.postgresql.org/docs/current/protocol-error-fields.html">Error and Notice
 * Message Fields</a>).
 *
 * @param codes field type bytes ('S', 'V', 'C', 'M', ...)
 * @param values field values, same order as {@code codes}
 */
public record ErrorFields(byte[] codes, String[] values) {

    public static final String ERROR = "ERROR";
    public static final String FATAL = "FATAL";

    /** An error made by the proxy itself. */
    public static ErrorFields of(String severity, String sqlState, String message) {
        return new ErrorFields(new byte[] {'S', 'V', 'C', 'M'}, new String[] {severity, severity, sqlState, message});
    }

    /** An ERROR made by the proxy itself. */
    public static ErrorFields error(String sqlState, String message) {
        return of(ERROR, sqlState, message);
    }

    /** 25P02, PostgreSQL's answer to any statement but the end of a transaction block that failed. */
    public static ErrorFields inFailedTransaction() {
        return error("25P02", "current transaction is aborted, commands ignored until end of transaction block");
    }

    /** An ERROR with a hint. */
    public static ErrorFields error(String sqlState, String message, String hint) {
        return new ErrorFields(new byte[] {'S', 'V', 'C', 'M', 'H'}, new String[] {ERROR, ERROR, sqlState, message, hint});
    }

    /** The SQLSTATE ('C' field), or empty. */
    public String sqlState() {
        return field('C');
    }

    /** The primary message ('M' field), or empty. */
    public String message() {
        return field('M');
    }

    /** These fields with the error position moved by {@code offset} (a statement's start in the text the client sent). */
    public ErrorFields shifted(int offset) {
        return offset == 0 ? this : withPosition(position -> position + offset);
    }

    /**
     * These fields with the error position ('P', 1-based) moved: {@code map} gives the new position for the old, 0 to
     * drop the field (a position into text the client never sent). Itself when there is no position.
     */
    public ErrorFields withPosition(java.util.function.IntUnaryOperator map) {
        String position = field('P');
        if (position.isEmpty()) {
            return this;
        }
        int value;
        try {
            value = Integer.parseInt(position);
        } catch (NumberFormatException e) {
            return this;
        }
        int moved = map.applyAsInt(value);
        byte[] newCodes = new byte[moved > 0 ? codes.length : codes.length - 1];
        String[] newValues = new String[newCodes.length];
        for (int i = 0, j = 0; i < codes.length; i++) {
            if (codes[i] != 'P') {
                newCodes[j] = codes[i];
                newValues[j++] = values[i];
            } else if (moved > 0) {
                newCodes[j] = 'P';
                newValues[j++] = Integer.toString(moved);
            }
        }
        return new ErrorFields(newCodes, newValues);
    }

    /** These fields with {@code code}'s value replaced (itself when the field is absent). */
    public ErrorFields withField(char code, String value) {
        for (int i = 0; i < codes.length; i++) {
            if (codes[i] == code) {
                String[] newValues = values.clone();
                newValues[i] = value;
                return new ErrorFields(codes, newValues);
            }
        }
        return this;
    }

    /** The value of one field, or empty when absent. */
    public String field(char code) {
        for (int i = 0; i < codes.length; i++) {
            if (codes[i] == code) {
                return values[i];
            }
        }
        return "";
    }

    /**
     * The error a backend call failed with, as the client should see it: a backend's ErrorResponse
     * passes through with its fields; any other failure (connection lost, a JDBC driver's own)
     * becomes an ERROR with its SQLSTATE, or 08006 when it has none.
     */
    public static ErrorFields from(SQLException e) {
        if (e instanceof BackendError backend) {
            return backend.fields();
        }
        String state = e.getSQLState();
        if (state == null || state.length() != 5) {
            state = "08006";
        }
        String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        return error(state, message);
    }

}
