package io.ashlar.backend.execute;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;

/**
 * The fields of a PostgreSQL ErrorResponse or NoticeResponse, in wire order, as plain values:
 * what the frontend encodes for the client. A backend's own error keeps every field the backend
 * sent that pgjdbc exposes (see
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
     * The error a JDBC call failed with, as the client should see it: a backend's ErrorResponse
     * passes through with its fields; a driver-side failure (connection lost, pool exhausted)
     * becomes an ERROR with the driver's SQLSTATE, or 08006 when it has none.
     */
    public static ErrorFields from(SQLException e) {
        ServerErrorMessage server = e instanceof PSQLException p ? p.getServerErrorMessage() : null;
        if (server == null) {
            String state = e.getSQLState();
            if (state == null || state.length() != 5) {
                state = "08006";
            }
            String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
            return error(state, message);
        }
        return from(server);
    }

    /** A backend's error or notice message with every field pgjdbc keeps. */
    public static ErrorFields from(ServerErrorMessage m) {
        List<Byte> codes = new ArrayList<>(12);
        List<String> values = new ArrayList<>(12);
        String severity = m.getSeverity() == null ? ERROR : m.getSeverity();
        add(codes, values, 'S', severity);
        add(codes, values, 'V', severity);
        add(codes, values, 'C', m.getSQLState() == null ? "XX000" : m.getSQLState());
        add(codes, values, 'M', m.getMessage() == null ? "" : m.getMessage());
        add(codes, values, 'D', m.getDetail());
        add(codes, values, 'H', m.getHint());
        if (m.getPosition() > 0) {
            add(codes, values, 'P', Integer.toString(m.getPosition()));
        }
        if (m.getInternalPosition() > 0) {
            add(codes, values, 'p', Integer.toString(m.getInternalPosition()));
        }
        add(codes, values, 'q', m.getInternalQuery());
        add(codes, values, 'W', m.getWhere());
        add(codes, values, 's', m.getSchema());
        add(codes, values, 't', m.getTable());
        add(codes, values, 'c', m.getColumn());
        add(codes, values, 'd', m.getDatatype());
        add(codes, values, 'n', m.getConstraint());
        add(codes, values, 'F', m.getFile());
        if (m.getLine() > 0) {
            add(codes, values, 'L', Integer.toString(m.getLine()));
        }
        add(codes, values, 'R', m.getRoutine());
        byte[] c = new byte[codes.size()];
        for (int i = 0; i < c.length; i++) {
            c[i] = codes.get(i);
        }
        return new ErrorFields(c, values.toArray(new String[0]));
    }

    private static void add(List<Byte> codes, List<String> values, char code, String value) {
        if (value != null) {
            codes.add((byte) code);
            values.add(value);
        }
    }
}
