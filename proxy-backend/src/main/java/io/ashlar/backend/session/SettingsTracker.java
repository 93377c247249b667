package io.ashlar.backend.session;

import io.ashlar.backend.datasource.BackendConnection;
import io.ashlar.backend.execute.ResultSink;
import io.ashlar.backend.execute.TextRows;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.postgresql.core.TransactionState;

/**
 * A session's settings as the backends must carry them, and the reported parameters the client
 * was told about. Both kinds of session use one: settings are given to a connection before its
 * first statement for the session, read back from the backend when a transaction that changed
 * them ends, and changes of reported parameters become ParameterStatus messages.
 */
final class SettingsTracker {

    private static final String READ_SETTINGS_SQL =
            "SELECT name, setting FROM pg_catalog.pg_settings WHERE source = 'session' ORDER BY name";

    private final SessionSettings startupSettings;
    private final Map<String, String> reported = new HashMap<>();
    private SessionSettings settings;

    SettingsTracker(SessionSettings startupSettings) {
        this.startupSettings = startupSettings;
        this.settings = startupSettings;
    }

    SessionSettings settings() {
        return settings;
    }

    /**
     * Whether floats print in their shortest exact form: {@code extra_float_digits} is 1 or more,
     * or not set (PostgreSQL 12's default is 1; pgjdbc and the backends' connections use 3).
     */
    boolean shortestFloats() {
        SessionSettings current = settings;
        for (int i = 0; i < current.size(); i++) {
            if (current.name(i).equals("extra_float_digits")) {
                try {
                    return Integer.parseInt(current.value(i).trim()) >= 1;
                } catch (NumberFormatException e) {
                    return true;
                }
            }
        }
        return true;
    }

    /** Gives a connection the session's settings unless it carries them already. */
    void give(BackendConnection connection) throws SQLException {
        SessionSettings wanted = settings;
        if (connection.settings().equals(wanted)) {
            return;
        }
        boolean reset = !connection.settings().isEmpty();
        if (!wanted.isEmpty() || reset) {
            try {
                TextRows.run(connection, wanted.applySql(reset));
            } catch (SQLException e) {
                connection.settings(SessionSettings.EMPTY);
                throw e;
            }
        }
        connection.settings(wanted);
    }

    /**
     * Reads the session's settings back from the connection that ran its SET/RESET. RESET
     * restores a setting to its value at connection start: for the client that is the value its
     * startup packet asked for, which the backend connection only has as a SET, so such values
     * are set again. False (settings unchanged) when the backend could not answer.
     */
    boolean readBack(BackendConnection connection) {
        List<String[]> rows;
        try {
            rows = TextRows.query(connection, READ_SETTINGS_SQL);
        } catch (SQLException e) {
            return false;
        }
        List<String> names = new ArrayList<>(rows.size() + startupSettings.size());
        List<String> values = new ArrayList<>(rows.size() + startupSettings.size());
        for (String[] row : rows) {
            names.add(row[0]);
            values.add(row[1] == null ? "" : row[1]);
        }
        int found = names.size();
        for (int i = 0; i < startupSettings.size(); i++) {
            if (!names.subList(0, found).contains(startupSettings.name(i))) {
                names.add(startupSettings.name(i));
                values.add(startupSettings.value(i));
            }
        }
        if (names.size() > found) {
            SessionSettings restore = new SessionSettings(names.subList(found, names.size()).toArray(new String[0]),
                    values.subList(found, values.size()).toArray(new String[0]));
            try {
                TextRows.run(connection, restore.applySql(false));
            } catch (SQLException e) {
                return false;
            }
        }
        settings = new SessionSettings(names.toArray(new String[0]), values.toArray(new String[0])).shared();
        connection.settings(settings);
        return true;
    }

    /** Tells the client about reported parameters (ParameterStatus) that changed on this connection. */
    void report(BackendConnection connection, ResultSink sink) {
        for (Map.Entry<String, String> e : connection.parameterStatuses().entrySet()) {
            String name = e.getKey();
            if (name.equals("client_encoding") || name.equals("session_authorization") || name.equals("is_superuser")
                    || name.equals("server_version") || name.equals("server_encoding")) {
                continue;
            }
            String value = e.getValue();
            String before = reported.put(name, value);
            if (before != null && !before.equals(value)) {
                sink.parameterStatus(name, value);
            }
        }
    }

    /** Remembers what the client was told at login, so that later changes are reported once. */
    void reported(String name, String value) {
        reported.put(name, value);
    }

    /**
     * Returns a connection the session held to its pool at the session's end: a transaction left
     * open rolls back, and state bound to the connection (temporary tables, prepared statements)
     * is discarded.
     */
    static void releaseAtEnd(BackendConnection connection, boolean bound) {
        try {
            if (connection.transactionState() != TransactionState.IDLE) {
                TextRows.run(connection, "ROLLBACK");
            }
            if (bound) {
                TextRows.run(connection, "DISCARD ALL");
                connection.settings(SessionSettings.EMPTY);
            }
        } catch (SQLException e) {
            connection.settings(SessionSettings.EMPTY);
        }
        if (connection.transactionState() != TransactionState.IDLE) {
            connection.settings(SessionSettings.EMPTY);
        }
        connection.release();
    }
}
