package io.ashlar.bootstrap.sharding;

import io.ashlar.bootstrap.sharding.CorpusEntry.Parameter;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * What a client saw of one statement: its columns (label, type name, precision and scale from the type modifier),
 * its rows read with getString, or its update count, or its error's SQLSTATE and message.
 *
 * @param sqlState the error's SQLSTATE; empty when the statement succeeded
 * @param message the error's message; empty when the statement succeeded
 * @param columns one description per column; empty for a statement that returns no rows
 * @param rows the rows, each column's getString ({@value #NULL} for NULL), in the order received
 * @param updateCount the update count of a statement that returns no rows; -1 otherwise
 */
record StatementOutcome(String sqlState, String message, List<String> columns, List<List<String>> rows, long updateCount) {

    static final String NULL = "<null>";

    boolean failed() {
        return !sqlState.isEmpty();
    }

    /**
     * Runs a statement: prepared when it has parameters or {@code prepared} is set, else as a plain Statement.
     * Never throws for the statement's own failure: that is the outcome.
     */
    static StatementOutcome run(Connection connection, String sql, List<Parameter> parameters, boolean prepared) {
        try {
            if (parameters.isEmpty() && !prepared) {
                try (Statement statement = connection.createStatement()) {
                    return read(statement, statement.execute(sql));
                }
            }
            try (PreparedStatement statement = connection.prepareStatement(sql)) {
                for (int i = 0; i < parameters.size(); i++) {
                    parameters.get(i).bind(statement, i + 1);
                }
                return read(statement, statement.execute());
            }
        } catch (SQLException e) {
            return new StatementOutcome(e.getSQLState() == null ? "?????" : e.getSQLState(), String.valueOf(e.getMessage()),
                    List.of(), List.of(), -1);
        }
    }

    /** The same prepared statement executed {@code times} times (pgjdbc's prepareThreshold decides when it is named). */
    static List<StatementOutcome> runRepeatedly(Connection connection, String sql, List<Parameter> parameters, int times) {
        List<StatementOutcome> result = new ArrayList<>();
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            for (int n = 0; n < times; n++) {
                try {
                    for (int i = 0; i < parameters.size(); i++) {
                        parameters.get(i).bind(statement, i + 1);
                    }
                    result.add(read(statement, statement.execute()));
                } catch (SQLException e) {
                    result.add(new StatementOutcome(e.getSQLState() == null ? "?????" : e.getSQLState(),
                            String.valueOf(e.getMessage()), List.of(), List.of(), -1));
                }
            }
        } catch (SQLException e) {
            result.add(new StatementOutcome(e.getSQLState() == null ? "?????" : e.getSQLState(), String.valueOf(e.getMessage()),
                    List.of(), List.of(), -1));
        }
        return result;
    }

    private static StatementOutcome read(Statement statement, boolean hasRows) throws SQLException {
        if (!hasRows) {
            return new StatementOutcome("", "", List.of(), List.of(), statement.getLargeUpdateCount());
        }
        try (ResultSet rs = statement.getResultSet()) {
            ResultSetMetaData metaData = rs.getMetaData();
            int count = metaData.getColumnCount();
            List<String> columns = new ArrayList<>();
            for (int i = 1; i <= count; i++) {
                columns.add(metaData.getColumnLabel(i) + " " + metaData.getColumnTypeName(i)
                        + "(" + metaData.getPrecision(i) + "," + metaData.getScale(i) + ")");
            }
            List<List<String>> rows = new ArrayList<>();
            while (rs.next()) {
                List<String> row = new ArrayList<>(count);
                for (int i = 1; i <= count; i++) {
                    String value = rs.getString(i);
                    row.add(value == null ? NULL : value);
                }
                rows.add(Collections.unmodifiableList(row));
            }
            return new StatementOutcome("", "", List.copyOf(columns), Collections.unmodifiableList(rows), -1);
        }
    }

    /**
     * The outcome as text to compare: what PostgreSQL fixes and nothing else. Errors by SQLSTATE only (messages name
     * actual tables and positions); rows in order, sorted, or as the sequence of the ORDER BY columns plus the sorted
     * rows, as the entry says.
     */
    String comparable(CorpusEntry entry) {
        if (failed()) {
            return "ERROR " + sqlState;
        }
        if (columns.isEmpty() && rows.isEmpty()) {
            return "UPDATE COUNT " + updateCount;
        }
        StringBuilder result = new StringBuilder("columns: ").append(String.join(", ", columns)).append('\n');
        switch (entry.order()) {
            case ROW_COUNT -> result.append("rows: ").append(rows.size()).append('\n');
            case ORDERED -> appendRows(result, rows);
            case UNORDERED -> appendRows(result, sorted(rows));
            case ORDERED_BY -> {
                List<List<String>> keys = new ArrayList<>();
                for (List<String> row : rows) {
                    List<String> key = new ArrayList<>();
                    for (int column : entry.orderColumns()) {
                        key.add(column <= row.size() ? row.get(column - 1) : "<no column " + column + ">");
                    }
                    keys.add(key);
                }
                result.append("order of columns ").append(entry.orderColumns()).append(":\n");
                appendRows(result, keys);
                result.append("rows:\n");
                appendRows(result, sorted(rows));
            }
            default -> throw new IllegalStateException("unknown order " + entry.order());
        }
        return result.toString();
    }

    /** A short description for failure messages. */
    String summary() {
        if (failed()) {
            return "ERROR " + sqlState + ": " + message;
        }
        if (columns.isEmpty() && rows.isEmpty()) {
            return "update count " + updateCount;
        }
        return rows.size() + " row(s)";
    }

    private static List<List<String>> sorted(List<List<String>> rows) {
        List<List<String>> result = new ArrayList<>(rows);
        result.sort((a, b) -> String.join("\u0000", a).compareTo(String.join("\u0000", b)));
        return result;
    }

    private static void appendRows(StringBuilder out, List<List<String>> rows) {
        for (List<String> row : rows) {
            out.append(String.join(" | ", row)).append('\n');
        }
    }
}
