package io.ashlar.backend.metadata;

import io.ashlar.backend.session.BackendSession.NamedStatement;
import io.ashlar.parser.SqlText;
import io.ashlar.parser.statement.AnalyzedStatement;
import io.ashlar.parser.statement.TableReference;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The views that list a session's own objects, answered with the client's: {@code pg_prepared_statements} would list
 * what the backend connection the statement runs on has prepared (the proxy's statements under its own names, with
 * actual table names, prepared for whichever sessions used that connection), not what this client prepared. The view is
 * replaced in the statement's text by a subquery of the same row type over the session's statements ({@code
 * jsonb_populate_recordset} over the backend's own view type, so that each PostgreSQL version gets its own columns),
 * and the rest of the statement (its filters, joins, projection) runs on the backend as written.
 *
 * <p>What the proxy does not know it leaves out: {@code result_types} is NULL, {@code generic_plans} and {@code
 * custom_plans} are 0, and a parameter type is NULL where neither the client nor a Describe gave it.
 */
final class SessionViews {

    private static final String PREPARED_STATEMENTS = "pg_prepared_statements";

    private SessionViews() {
    }

    /** Whether the statement reads a view this class answers. */
    static boolean names(AnalyzedStatement statement) {
        for (TableReference each : statement.tables()) {
            if (isView(each)) {
                return true;
            }
        }
        return false;
    }

    private static boolean isView(TableReference table) {
        String schema = table.name().schema().orElse("pg_catalog");
        return table.isAccess() && schema.equals("pg_catalog") && table.name().name().equals(PREPARED_STATEMENTS);
    }

    /** The statement's text with each reference to the view replaced by the session's rows. */
    static String substituted(AnalyzedStatement statement, List<NamedStatement> statements) {
        String sql = statement.sql();
        List<TableReference> views = new ArrayList<>(2);
        for (TableReference each : statement.tables()) {
            if (isView(each)) {
                views.add(each);
            }
        }
        views.sort(Comparator.comparingInt(each -> each.range().start()));
        String rows = null;
        StringBuilder result = new StringBuilder(sql.length() + 256);
        int at = 0;
        for (TableReference each : views) {
            if (rows == null) {
                rows = "(SELECT * FROM pg_catalog.jsonb_populate_recordset(NULL::pg_catalog.pg_prepared_statements, "
                        + SqlText.literal(json(statements)) + "::pg_catalog.jsonb))";
            }
            result.append(sql, at, each.range().start()).append(rows);
            if (each.alias().isEmpty()) {
                // A subquery in FROM needs a name; the view's own keeps column qualifiers that use it working.
                result.append(" AS ").append(PREPARED_STATEMENTS);
            }
            at = each.range().end();
        }
        return result.append(sql, at, sql.length()).toString();
    }

    /** The rows as a JSON array of objects keyed by the view's column names. */
    static String json(List<NamedStatement> statements) {
        StringBuilder out = new StringBuilder(64 + statements.size() * 128).append('[');
        for (int i = 0; i < statements.size(); i++) {
            NamedStatement each = statements.get(i);
            if (i > 0) {
                out.append(',');
            }
            out.append("{\"name\":");
            string(out, each.name());
            out.append(",\"statement\":");
            string(out, each.statement());
            out.append(",\"prepare_time\":");
            string(out, Instant.ofEpochMilli(each.preparedAtMillis()).toString());
            out.append(",\"parameter_types\":");
            string(out, each.parameterTypes());
            out.append(",\"from_sql\":").append(each.fromSql()).append(",\"generic_plans\":0,\"custom_plans\":0}");
        }
        return out.append(']').toString();
    }

    /** A JSON string: quotes, backslashes and control characters escaped. */
    private static void string(StringBuilder out, String value) {
        out.append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) {
                        out.append("\\u00").append(Character.forDigit(c >> 4, 16)).append(Character.forDigit(c & 15, 16));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }
}
