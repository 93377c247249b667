package io.ashlar.backend.session;

import java.util.Arrays;

/**
 * The settings (GUCs) a client session has set, as name/value pairs in PostgreSQL's canonical
 * form: what a backend connection must carry before it runs that session's statements. Immutable,
 * with a cached hash, so that a connection can tell in one comparison whether it already carries
 * a session's settings (sessions of one application usually have identical ones).
 */
public final class SessionSettings {

    public static final SessionSettings EMPTY = new SessionSettings(new String[0], new String[0]);

    /**
     * What a connection carries when the proxy could not tell (a read-back failed, or a statement
     * was cut short): equal to no session's settings, so that the next session to borrow the
     * connection resets it first.
     */
    public static final SessionSettings UNKNOWN = new SessionSettings(new String[] {"?"}, new String[] {"?"});

    /**
     * Undoes whatever a session set on a connection. RESET ALL leaves the role and the session
     * authorization alone (they are GUC_NO_RESET_ALL), so they are reset by name first.
     */
    private static final String RESET_SQL = "SET SESSION AUTHORIZATION DEFAULT;RESET ROLE;RESET ALL;";

    private final String[] names;
    private final String[] values;
    private final int hash;

    private static final java.util.concurrent.ConcurrentHashMap<SessionSettings, SessionSettings> SHARED =
            new java.util.concurrent.ConcurrentHashMap<>();
    private static final int MAX_SHARED = 1024;

    /**
     * The one shared instance equal to these settings, so that sessions of one application (which
     * all log in with the same parameters) compare with their connections by identity.
     */
    public SessionSettings shared() {
        SessionSettings existing = SHARED.get(this);
        if (existing != null) {
            return existing;
        }
        if (SHARED.size() < MAX_SHARED) {
            existing = SHARED.putIfAbsent(this, this);
        }
        return existing == null ? this : existing;
    }

    public SessionSettings(String[] names, String[] values) {
        this.names = names.clone();
        this.values = values.clone();
        this.hash = 31 * Arrays.hashCode(this.names) + Arrays.hashCode(this.values);
    }

    /** These settings with {@code name} set to {@code value} (added last, or replacing its value), shared. */
    public SessionSettings with(String name, String value) {
        String[] newNames = Arrays.copyOf(names, names.length + 1);
        String[] newValues = Arrays.copyOf(values, values.length + 1);
        int at = names.length;
        for (int i = 0; i < names.length; i++) {
            if (names[i].equalsIgnoreCase(name)) {
                at = i;
                newNames = names.clone();
                newValues = values.clone();
                break;
            }
        }
        newNames[at] = name;
        newValues[at] = value;
        return new SessionSettings(newNames, newValues).shared();
    }

    public int size() {
        return names.length;
    }

    public String name(int i) {
        return names[i];
    }

    public String value(int i) {
        return values[i];
    }

    public boolean isEmpty() {
        return names.length == 0;
    }

    /** The value of a setting, its name in any case as PostgreSQL compares GUC names; null when not set. */
    public String value(String name) {
        for (int i = 0; i < names.length; i++) {
            if (names[i].equalsIgnoreCase(name)) {
                return values[i];
            }
        }
        return null;
    }

    /**
     * The SQL that gives a connection these settings: {@code set_config} calls in one statement,
     * preceded by a reset of everything a session can set when the connection carries other settings.
     */
    public String applySql(boolean resetFirst) {
        StringBuilder sql = new StringBuilder(64 + names.length * 48);
        if (resetFirst) {
            sql.append(RESET_SQL);
        }
        if (names.length > 0) {
            sql.append("SELECT ");
            for (int i = 0; i < names.length; i++) {
                if (i > 0) {
                    sql.append(", ");
                }
                sql.append("pg_catalog.set_config(");
                appendLiteral(sql, names[i]);
                sql.append(", ");
                appendLiteral(sql, values[i]);
                sql.append(", false)");
            }
        }
        return sql.toString();
    }

    private static void appendLiteral(StringBuilder sql, String value) {
        sql.append('\'');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '\'') {
                sql.append('\'');
            }
            sql.append(c);
        }
        sql.append('\'');
    }

    @Override
    public boolean equals(Object o) {
        return this == o || o instanceof SessionSettings s && hash == s.hash && Arrays.equals(names, s.names)
                && Arrays.equals(values, s.values);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public String toString() {
        StringBuilder result = new StringBuilder("{");
        for (int i = 0; i < names.length; i++) {
            result.append(i == 0 ? "" : ", ").append(names[i]).append('=').append(values[i]);
        }
        return result.append('}').toString();
    }
}
