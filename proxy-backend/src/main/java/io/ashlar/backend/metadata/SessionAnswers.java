package io.ashlar.backend.metadata;

import io.ashlar.parser.SqlText;
import io.ashlar.backend.session.SessionIdentity;
import io.ashlar.parser.statement.AnalyzedStatement;
import io.ashlar.parser.statement.SessionValueReference;
import io.ashlar.rewrite.template.Identifiers;

/**
 * The proxy's answers to a session's values: {@code current_user} is the proxy user, {@code current_database()} the
 * logical database, {@code inet_server_port()} the proxy's port; the backend would answer with its own login.
 */
final class SessionAnswers {

    private final SessionIdentity identity;

    SessionAnswers(SessionIdentity identity) {
        this.identity = identity;
    }

    /**
     * The statement with each session value replaced by a one-row subquery of the proxy's answer under the column
     * name PostgreSQL gives the value, so that {@code SELECT current_user} still has a column named current_user of
     * type name, and the value stands wherever an expression may.
     */
    String answered(AnalyzedStatement statement) {
        String sql = statement.sql();
        StringBuilder result = new StringBuilder(sql.length() + 64);
        int at = 0;
        for (SessionValueReference each : statement.sessionValues()) {
            result.append(sql, at, each.range().start()).append("(SELECT ");
            switch (each.value()) {
                case CURRENT_USER, CURRENT_ROLE, USER, SESSION_USER ->
                        result.append("CAST(").append(SqlText.literal(identity.user())).append(" AS pg_catalog.name)");
                case CURRENT_CATALOG, CURRENT_DATABASE ->
                        result.append("CAST(").append(SqlText.literal(identity.database())).append(" AS pg_catalog.name)");
                case INET_SERVER_PORT -> result.append(identity.serverAddress() == null ? "CAST(NULL AS integer)"
                        : Integer.toString(identity.serverPort()));
                case INET_SERVER_ADDR -> result.append("CAST(").append(identity.serverAddress() == null ? "NULL"
                        : SqlText.literal(identity.serverAddress())).append(" AS pg_catalog.inet)");
            }
            result.append(" AS ").append(Identifiers.write(each.value().columnName(), true)).append(')');
            at = each.range().end();
        }
        return result.append(sql, at, sql.length()).toString();
    }
}
