package io.ashlar.backend.execute;

import io.ashlar.backend.datasource.BackendConnection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs one of the proxy's own queries on a backend connection (settings, catalogs) and returns
 * its rows as strings. Not for clients' statements: those stream.
 */
public final class TextRows {

    private TextRows() {
    }

    /** The rows of a simple query, each value as text ({@code null} for SQL NULL); throws the backend's error. */
    public static List<String[]> query(BackendConnection connection, String sql) throws SQLException {
        List<String[]> result = new ArrayList<>();
        java.nio.charset.Charset text = connection.textCharset(); // what a session's client_encoding made it
        StreamingHandler handler = new StreamingHandler(new ResultSink() {
            @Override
            public void columns(ColumnDescription[] columns) {
            }

            @Override
            public void row(RowValues row) {
                String[] values = new String[row.columnCount()];
                for (int i = 0; i < values.length; i++) {
                    byte[] value = row.value(i);
                    values[i] = value == null ? null : new String(value, text);
                }
                result.add(values);
            }

            @Override
            public void complete(String commandTag) {
            }

            @Override
            public void empty() {
            }

            @Override
            public void notice(ErrorFields notice) {
            }

            @Override
            public void parameterStatus(String name, String value) {
            }
        });
        try {
            connection.executeSimple(sql, handler);
        } catch (SQLException e) {
            handler.handleError(e);
        }
        if (handler.error() != null) {
            throw handler.error();
        }
        return result;
    }

    /** Runs statements whose results do not matter; throws the backend's error. */
    public static void run(BackendConnection connection, String sql) throws SQLException {
        query(connection, sql);
    }
}
