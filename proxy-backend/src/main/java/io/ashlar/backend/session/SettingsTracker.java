package io.ashlar.backend.session;

import io.ashlar.backend.datasource.BackendConnection;
import io.ashlar.backend.execute.ResultSink;
import io.ashlar.backend.execute.TextRows;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A session's settings as the backends must carry them, and the reported parameters the client
 * was told about. Both kinds of session use one: settings are given to a connection before its
 * first statement for the session, read back from the backend when a transaction that changed
 * them ends, and changes of reported parameters become ParameterStatus messages.
 */
public final class SettingsTracker {

    /**
     * What a session has set on its connection: every GUC whose source is the session, then the
     * session authorization and the role, which pg_settings does not list (they are
     * GUC_NO_SHOW_ALL), in the order they must be given again (a new session authorization
     * resets the role).
     */
    public static final String READ_SETTINGS_SQL =
            "SELECT name, setting FROM (SELECT 0, name, setting FROM pg_catalog.pg_settings WHERE source = 'session'"
            + " UNION ALL SELECT 1, 'session_authorization', pg_catalog.current_setting('session_authorization')"
            + " UNION ALL SELECT 2, 'role', pg_catalog.current_setting('role')) s (o, name, setting) ORDER BY o, name";

    private final SessionSettings startupSettings;
    private final Map<String, String> reported = new HashMap<>();
    private SessionSettings settings;
    /** The user the client logged in as, reported as its session_authorization. */
    private String loginUser = "";
    private boolean applied;
    /** Whether DateStyle, as the client was last told it, prints dates in ISO style (kept as reported values change). */
    private boolean isoDates = true;
    /** Whether IntervalStyle, as the client was last told it, is postgres (kept as reported values change). */
    private boolean postgresIntervals = true;
    /**
     * The charset of the session's client_encoding, as the client was last told it: the session's connections carry
     * it (the backends convert), so the text the proxy reads of them (routing values, merged text, names) is in it.
     */
    private io.ashlar.backend.execute.ClientEncoding encoding = io.ashlar.backend.execute.ClientEncoding.UTF8;

    /** The session's statement_timeout in milliseconds (0: none the session set), read when the settings change. */
    private long statementTimeout;

    SettingsTracker(SessionSettings startupSettings) {
        this.startupSettings = startupSettings;
        this.settings = startupSettings;
        this.statementTimeout = StatementTimer.millis(startupSettings.value("statement_timeout"));
    }

    /**
     * The statement_timeout the session set (at login or with SET), in milliseconds; 0 where it set none (a default of
     * the backend's own then times each backend statement alone). One field read.
     */
    long statementTimeoutMillis() {
        return statementTimeout;
    }

    SessionSettings settings() {
        return settings;
    }

    /**
     * Whether floats print in their shortest exact form: {@code extra_float_digits} is 1 or more,
     * or not set (PostgreSQL 12's default is 1; pgjdbc and the backends' connections use 3).
     */
    boolean shortestFloats() {
        String digits = settings.value("extra_float_digits");
        if (digits == null) {
            return true;
        }
        try {
            return Integer.parseInt(digits.trim()) >= 1;
        } catch (NumberFormatException e) {
            return true;
        }
    }

    /**
     * Whether the session prints dates and timestamps in ISO style: the proxy's merges and binary encoders read no
     * other ({@link BackendSession#isoDates()}). One field read, no lookup.
     */
    boolean isoDates() {
        return isoDates;
    }

    /**
     * The styles the session prints values in that the proxy's merges read only in PostgreSQL's defaults, as
     * {@link io.ashlar.backend.sharding.ShardedExecution#ISO_DATES} and
     * {@link io.ashlar.backend.sharding.ShardedExecution#POSTGRES_INTERVALS} flags. One field read each, no lookup.
     */
    int mergeStyles() {
        return (isoDates ? io.ashlar.backend.sharding.ShardedExecution.ISO_DATES : 0)
                | (postgresIntervals ? io.ashlar.backend.sharding.ShardedExecution.POSTGRES_INTERVALS : 0);
    }

    /** The charset of the session's client_encoding (one field read, no lookup). */
    java.nio.charset.Charset text() {
        return encoding.charset();
    }

    /** The session's client_encoding as the client was last told it. */
    io.ashlar.backend.execute.ClientEncoding encoding() {
        return encoding;
    }

    private void styleReported(String name, String value) {
        if (name.equals("DateStyle")) {
            isoDates = value.startsWith("ISO");
        } else if (name.equals("IntervalStyle")) {
            postgresIntervals = value.equals("postgres");
        } else if (name.equals("client_encoding")) {
            io.ashlar.backend.execute.ClientEncoding known = io.ashlar.backend.execute.ClientEncoding.find(value);
            encoding = known != null ? known : io.ashlar.backend.execute.ClientEncoding.UTF8;
        }
    }

    /** Gives a connection the session's settings unless it carries them already. */
    void give(BackendConnection connection) throws SQLException {
        SessionSettings wanted = settings;
        if (connection.settings().equals(wanted)) {
            connection.settings(wanted); // the same instance from now on: a session's next statements compare by identity
            return;
        }
        boolean reset = !connection.settings().isEmpty();
        if (!wanted.isEmpty() || reset) {
            try {
                if (connection.textCharset() != java.nio.charset.StandardCharsets.UTF_8) {
                    // Another session's client_encoding: the settings (a search_path, an application_name in any
                    // script) are written in UTF-8, and the backend must read them so; they give it the session's own.
                    TextRows.run(connection, "SET client_encoding TO 'UTF8'");
                }
                TextRows.run(connection, wanted.applySql(reset));
            } catch (SQLException e) {
                connection.settings(SessionSettings.EMPTY);
                throw e;
            }
        }
        connection.settings(wanted);
        applied = true;
    }

    /**
     * Whether settings were given to a connection since the last call: the backend then reported
     * the values it made of them (a time zone's canonical name, an enum in lower case), which the
     * client must hear where they differ from what it was told at login.
     */
    boolean takeApplied() {
        boolean result = applied;
        applied = false;
        return result;
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
            connection.settings(SessionSettings.UNKNOWN);
            return false;
        }
        ReadBack result = readBack(rows, startupSettings, connection.loginUser());
        if (result.restoreSql() != null) {
            try {
                TextRows.run(connection, result.restoreSql());
            } catch (SQLException e) {
                connection.settings(SessionSettings.UNKNOWN);
                return false;
            }
        }
        settings = result.settings();
        statementTimeout = StatementTimer.millis(settings.value("statement_timeout"));
        connection.settings(settings);
        return true;
    }

    /**
     * What a read-back found.
     *
     * @param settings the session's settings now
     * @param restoreSql what the connection must run to carry them (the startup values a RESET took
     *        away: the backend connection has them only as SETs), or null when nothing
     */
    public record ReadBack(SessionSettings settings, String restoreSql) {
    }

    /**
     * The session's settings from the rows of {@link #READ_SETTINGS_SQL}: every setting whose source
     * is the session, the session authorization and role when they differ from the connection's own,
     * and the startup settings a RESET took away (to be set again).
     *
     * @param loginUser the user the connection logged in as (its session authorization by default)
     */
    public static ReadBack readBack(List<String[]> rows, SessionSettings startupSettings, String loginUser) {
        List<String> names = new ArrayList<>(rows.size() + startupSettings.size());
        List<String> values = new ArrayList<>(rows.size() + startupSettings.size());
        for (String[] row : rows) {
            String name = row[0];
            String value = row[1] == null ? "" : row[1];
            if (name.equals("session_authorization") ? value.equals(loginUser)
                    : name.equals("role") && value.equals("none")) {
                continue;
            }
            if (name.startsWith("transaction_")) {
                continue; // SET TRANSACTION's, read inside a block: the block's, not the session's
            }
            names.add(name);
            values.add(value);
        }
        int found = names.size();
        for (int i = 0; i < startupSettings.size(); i++) {
            if (!containsIgnoreCase(names, found, startupSettings.name(i))) {
                names.add(startupSettings.name(i));
                values.add(startupSettings.value(i));
            }
        }
        String restoreSql = null;
        if (names.size() > found) {
            restoreSql = new SessionSettings(names.subList(found, names.size()).toArray(new String[0]),
                    values.subList(found, values.size()).toArray(new String[0])).applySql(false);
        }
        return new ReadBack(new SessionSettings(names.toArray(new String[0]), values.toArray(new String[0])).shared(),
                restoreSql);
    }
    /**
     * Whether one of the first {@code count} names is {@code name} in some case: PostgreSQL's GUC
     * names are case-insensitive, and a client's startup packet says {@code datestyle} where
     * pg_settings says {@code DateStyle}.
     */
    private static boolean containsIgnoreCase(List<String> names, int count, String name) {
        for (int i = 0; i < count; i++) {
            if (names.get(i).equalsIgnoreCase(name)) {
                return true;
            }
        }
        return false;
    }

    /** Tells the client about reported parameters (ParameterStatus) that changed on this connection. */
    void report(BackendConnection connection, ResultSink sink) {
        for (Map.Entry<String, String> e : connection.parameterStatuses().entrySet()) {
            String name = e.getKey();
            if (name.equals("server_version") || name.equals("server_encoding")) {
                continue;
            }
            String value = e.getValue();
            if (name.equals("session_authorization") && value.equals(connection.loginUser())) {
                // The backend's own login user stands for the proxy user the client logged in as.
                value = loginUser;
            }
            String before = reported.put(name, value);
            styleReported(name, value);
            if (before != null && !before.equals(value)) {
                sink.parameterStatus(name, value);
            }
        }
    }

    /** The value of a reported parameter as the client was last told it, or null. */
    String reportedValue(String name) {
        return reported.get(name);
    }

    /** Remembers what the client was told at login, so that later changes are reported once. */
    void reported(String name, String value) {
        reported.put(name, value);
        styleReported(name, value);
        if (name.equals("session_authorization")) {
            loginUser = value;
        }
    }

    /**
     * Returns a connection the session held to its pool at the session's end: a transaction left
     * open rolls back, and state bound to the connection (temporary tables, prepared statements)
     * is discarded.
     */
    static void releaseAtEnd(BackendConnection connection, boolean bound) {
        try {
            if (connection.status() != 'I') {
                TextRows.run(connection, "ROLLBACK");
            }
            if (bound) {
                TextRows.run(connection, "DISCARD ALL");
                connection.settings(SessionSettings.EMPTY);
            }
        } catch (SQLException e) {
            // The reset failed (a cancel sent when the client left can land on the DISCARD ALL itself): the
            // session's temporary tables, prepared statements, LISTENs and advisory locks may still be there,
            // so the connection is closed, never lent to another session.
            connection.discard();
            return;
        }
        if (connection.status() != 'I') {
            connection.settings(SessionSettings.EMPTY);
        }
        connection.release();
    }
}
