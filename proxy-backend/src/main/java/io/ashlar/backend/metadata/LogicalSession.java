package io.ashlar.backend.metadata;

import io.ashlar.backend.session.LogicalDatabase;
import io.ashlar.backend.session.SessionIdentity;
import io.ashlar.backend.sharding.Plan;
import io.ashlar.parser.statement.AnalyzedStatement;
import io.ashlar.parser.statement.SessionValueReference;
import io.ashlar.rewrite.template.Identifiers;

/**
 * What one session of a sharded logical database asks of the logical database rather than of a backend: the
 * session values the proxy answers ({@code current_user} is the proxy user, {@code current_database()} the logical
 * database). Used by the session's thread only.
 */
public final class LogicalSession {

    private final LogicalDatabase database;
    private final SessionIdentity identity;

    public LogicalSession(LogicalDatabase database, SessionIdentity identity) {
        this.database = database;
        this.identity = identity;
    }

    /** The plan that runs for {@code plan}: itself, or the statement with its session values answered. */
    public Plan adjust(Plan plan) {
        LogicalPlan state = state(plan);
        if (state.plain()) {
            return plan;
        }
        return database.plans().get(answerSessionValues(plan.statement()));
    }

    private static LogicalPlan state(Plan plan) {
        LogicalPlan state = plan.logical();
        if (state != null) {
            return state;
        }
        AnalyzedStatement statement = plan.statement();
        boolean sessionValues = !statement.sessionValues().isEmpty() && switch (statement.kind()) {
            case SELECT, INSERT, UPDATE, DELETE, MERGE -> true;
            default -> false;
        };
        state = new LogicalPlan(sessionValues);
        plan.logical(state);
        return state;
    }

    /**
     * The statement with each session value replaced by a one-row subquery of the proxy's answer under the column
     * name PostgreSQL gives the value, so that {@code SELECT current_user} still has a column named current_user of
     * type name, and the value stands wherever an expression may.
     */
    private String answerSessionValues(AnalyzedStatement statement) {
        String sql = statement.sql();
        StringBuilder result = new StringBuilder(sql.length() + 64);
        int at = 0;
        for (SessionValueReference each : statement.sessionValues()) {
            result.append(sql, at, each.range().start()).append("(SELECT ");
            switch (each.value()) {
                case CURRENT_USER, CURRENT_ROLE, USER, SESSION_USER ->
                        result.append("CAST(").append(literal(identity.user())).append(" AS pg_catalog.name)");
                case CURRENT_CATALOG, CURRENT_DATABASE ->
                        result.append("CAST(").append(literal(identity.database())).append(" AS pg_catalog.name)");
                case INET_SERVER_PORT -> result.append(identity.serverAddress() == null ? "CAST(NULL AS integer)"
                        : Integer.toString(identity.serverPort()));
                case INET_SERVER_ADDR -> result.append("CAST(").append(identity.serverAddress() == null ? "NULL"
                        : literal(identity.serverAddress())).append(" AS pg_catalog.inet)");
            }
            result.append(" AS ").append(Identifiers.write(each.value().columnName(), true)).append(')');
            at = each.range().end();
        }
        return result.append(sql, at, sql.length()).toString();
    }

    /** A SQL string literal. */
    static String literal(String value) {
        return "'" + value.replace("'", "''") + "'";
    }
}
