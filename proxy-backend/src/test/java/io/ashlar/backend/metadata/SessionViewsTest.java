package io.ashlar.backend.metadata;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ashlar.backend.session.BackendSession.NamedStatement;
import io.ashlar.backend.session.BackendSession.OpenCursor;
import io.ashlar.backend.session.BackendSession.SessionObjects;
import io.ashlar.parser.StatementAnalyzer;
import java.util.List;
import org.junit.jupiter.api.Test;

class SessionViewsTest {

    private static final String ROWS = "(SELECT * FROM pg_catalog.jsonb_populate_recordset(NULL::pg_catalog.pg_prepared_statements, '[]'::pg_catalog.jsonb))";

    @Test
    void theViewIsReplacedWhereverItIsRead() {
        assertTrue(SessionViews.names(StatementAnalyzer.analyze("SELECT name FROM pg_prepared_statements")));
        assertTrue(SessionViews.names(StatementAnalyzer.analyze("SELECT 1 WHERE EXISTS (SELECT 1 FROM pg_catalog.pg_prepared_statements)")));
        assertFalse(SessionViews.names(StatementAnalyzer.analyze("SELECT name FROM public.pg_prepared_statements")), "a user's table");
        assertTrue(SessionViews.names(StatementAnalyzer.analyze("SELECT name FROM pg_cursors")));
        assertFalse(SessionViews.names(StatementAnalyzer.analyze("SELECT name FROM pg_stat_activity")));

        assertEquals("SELECT name FROM " + ROWS + " AS pg_prepared_statements WHERE from_sql",
                SessionViews.substituted(StatementAnalyzer.analyze("SELECT name FROM pg_prepared_statements WHERE from_sql"), NONE));
        assertEquals("SELECT p.name FROM " + ROWS + " p JOIN " + ROWS.replace("pg_prepared_statements", "pg_cursors")
                        + " AS q USING (name)",
                SessionViews.substituted(StatementAnalyzer.analyze(
                        "SELECT p.name FROM pg_catalog.pg_prepared_statements p JOIN pg_cursors AS q USING (name)"), NONE));
    }

    private static final SessionObjects NONE = new SessionObjects() {
        @Override
        public List<NamedStatement> statements() {
            return List.of();
        }

        @Override
        public List<OpenCursor> cursors() {
            return List.of();
        }
    };

    @Test
    void statementTextIsEscapedForJsonAndSql() {
        String json = SessionViews.statements(List.of(new NamedStatement("q\"1", "SELECT 'a\\b'\n\t\u0001", 0, "{23,NULL}", true)));
        assertEquals("[{\"name\":\"q\\\"1\",\"statement\":\"SELECT 'a\\\\b'\\n\\t\\u0001\",\"prepare_time\":\"1970-01-01T00:00:00Z\","
                + "\"parameter_types\":\"{23,NULL}\",\"from_sql\":true,\"generic_plans\":0,\"custom_plans\":0}]", json);
        assertEquals("[{\"name\":\"c\",\"statement\":\"DECLARE c CURSOR FOR SELECT 1\",\"is_holdable\":true,\"is_binary\":false,"
                + "\"is_scrollable\":true,\"creation_time\":\"1970-01-01T00:00:01Z\"}]",
                SessionViews.cursors(List.of(new OpenCursor("c", "DECLARE c CURSOR FOR SELECT 1", true, false, true, 1000))));
    }
}
