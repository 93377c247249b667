package io.ashlar.parser.statement;

/**
 * A value PostgreSQL computes from the session rather than from data: who is logged in, to what
 * database, on what server address. Behind a proxy the backend would answer with its own login
 * (its role, its database, its port); the proxy answers these for the logical database instead.
 *
 * @see <a href="https://www.postgresql.org/docs/current/functions-info.html">Session Information Functions</a>
 */
public enum SessionValue {
    /** {@code current_user}. */
    CURRENT_USER("current_user"),
    /** {@code current_role}. */
    CURRENT_ROLE("current_role"),
    /** {@code user} (the same as current_user). */
    USER("user"),
    /** {@code session_user}. */
    SESSION_USER("session_user"),
    /** {@code current_catalog} (the same as current_database()). */
    CURRENT_CATALOG("current_catalog"),
    /** {@code current_database()}. */
    CURRENT_DATABASE("current_database"),
    /** {@code inet_server_addr()}. */
    INET_SERVER_ADDR("inet_server_addr"),
    /** {@code inet_server_port()}. */
    INET_SERVER_PORT("inet_server_port");

    private final String columnName;

    SessionValue(String columnName) {
        this.columnName = columnName;
    }

    /** The name PostgreSQL (up to 15) gives a result column holding only this value. */
    public String columnName() {
        return columnName;
    }
}
