package io.ashlar.backend.metadata;

import io.ashlar.backend.session.BackendSession.NamedStatement;
import io.ashlar.backend.session.BackendSession.OpenCursor;
import io.ashlar.backend.session.BackendSession.SessionObjects;
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
 * actual table names, prepared for whichever sessions used that connection), not what this client prepared, and
 * {@code pg_cursors} none of the cursors the proxy serves. The view is
 * replaced in the statement's text by a subquery of the same row type over the session's statements ({@code
 * jsonb_populate_recordset} over the backend's own view type, so that each PostgreSQL version gets its own columns),
 * and the rest of the statement (its filters, joins, projection) runs on the backend as written.
 *
 * <p>What the proxy does not know it leaves out: {@code result_types} is NULL, {@code generic_plans} and {@code
 * custom_plans} are 0, and a parameter type is NULL where neither the client nor a Describe gave it. {@code
 * pg_cursors} lists the cursors declared with DECLARE, not portals bound with the protocol.
 */
final class SessionViews {

    private static final String PREPARED_STATEMENTS = "pg_prepared_statements";
    private static final String CURSORS = "pg_cursors";

    private SessionViews() {
    }

    /** Whether the statement reads a view this class answers. */
    static boolean names(AnalyzedStatement statement) {
        for (TableReference each : statement.tables()) {
            if (view(each) != null) {
                return true;
            }
        }
        return false;
    }

    /** The view a table reference reads (its name), or null for none of these. */
    private static String view(TableReference table) {
        if (!table.isAccess() || !table.name().schema().orElse("pg_catalog").equals("pg_catalog")) {
            return null;
        }
        String name = table.name().name();
        return name.equals(PREPARED_STATEMENTS) ? PREPARED_STATEMENTS : name.equals(CURSORS) ? CURSORS : null;
    }

    /** The statement's text with each reference to one of the views replaced by the session's rows. */
    static String substituted(AnalyzedStatement statement, SessionObjects objects) {
        String sql = statement.sql();
        List<TableReference> views = new ArrayList<>(2);
        for (TableReference each : statement.tables()) {
            if (view(each) != null) {
                views.add(each);
            }
        }
        views.sort(Comparator.comparingInt(each -> each.range().start()));
        StringBuilder result = new StringBuilder(sql.length() + 256);
        int at = 0;
        for (TableReference each : views) {
            String view = view(each);
            String json = view.equals(PREPARED_STATEMENTS) ? statements(objects.statements()) : cursors(objects.cursors());
            result.append(sql, at, each.range().start())
                    .append("(SELECT * FROM pg_catalog.jsonb_populate_recordset(NULL::pg_catalog.").append(view).append(", ")
                    .append(SqlText.literal(json)).append("::pg_catalog.jsonb))");
            if (each.alias().isEmpty()) {
                // A subquery in FROM needs a name; the view's own keeps column qualifiers that use it working.
                result.append(" AS ").append(view);
            }
            at = each.range().end();
        }
        return result.append(sql, at, sql.length()).toString();
    }

    /** pg_prepared_statements' rows as a JSON array of objects keyed by the view's column names. */
    static String statements(List<NamedStatement> statements) {
        StringBuilder out = new StringBuilder(64 + statements.size() * 128).append('[');
        for (int i = 0; i < statements.size(); i++) {
            NamedStatement each = statements.get(i);
            out.append(i > 0 ? ",{\"name\":" : "{\"name\":");
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

    /** pg_cursors' rows, as {@link #statements}. */
    static String cursors(List<OpenCursor> cursors) {
        StringBuilder out = new StringBuilder(64 + cursors.size() * 128).append('[');
        for (int i = 0; i < cursors.size(); i++) {
            OpenCursor each = cursors.get(i);
            out.append(i > 0 ? ",{\"name\":" : "{\"name\":");
            string(out, each.name());
            out.append(",\"statement\":");
            string(out, each.statement());
            out.append(",\"is_holdable\":").append(each.holdable()).append(",\"is_binary\":").append(each.binary())
                    .append(",\"is_scrollable\":").append(each.scrollable()).append(",\"creation_time\":");
            string(out, Instant.ofEpochMilli(each.createdAtMillis()).toString());
            out.append('}');
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
