package io.ashlar.parser;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ashlar.parser.statement.AnalyzedStatement;
import io.ashlar.parser.statement.SessionValueReference;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SessionReferencesTest {

    /** Each reference as {@code VALUE[text]}. */
    private static List<String> values(String sql) {
        AnalyzedStatement statement = StatementAnalyzer.analyze(sql);
        List<String> result = new ArrayList<>();
        for (SessionValueReference each : statement.sessionValues()) {
            result.add(each.value() + "[" + each.range().text(sql) + "]");
        }
        return result;
    }

    @Test
    void findsTheKeywordsAndTheCallsWithTheirParentheses() {
        assertEquals(List.of("CURRENT_USER[current_user]", "SESSION_USER[SESSION_USER]", "USER[user]",
                        "CURRENT_ROLE[current_role]", "CURRENT_CATALOG[current_catalog]",
                        "CURRENT_DATABASE[current_database()]", "CURRENT_DATABASE[pg_catalog.current_database()]",
                        "INET_SERVER_PORT[inet_server_port ( )]", "INET_SERVER_ADDR[INET_SERVER_ADDR()]"),
                values("SELECT current_user, SESSION_USER, user, current_role, current_catalog, current_database(),"
                        + " pg_catalog.current_database(), inet_server_port ( ), INET_SERVER_ADDR()"));
    }

    @Test
    void leavesColumnsAliasesQuotedNamesAndOtherSchemasAlone() {
        assertEquals(List.of(), values("SELECT t.user, 1 AS user, \"current_user\", user_id, app.current_database(),"
                + " current_database(1), current_database FROM t"));
        assertEquals(List.of("CURRENT_USER[current_user]"), values("SELECT * FROM t_order o WHERE o.created_by = current_user"));
    }

    @Test
    void tellsCatalogFunctionsFromOthers() {
        assertTrue(StatementAnalyzer.analyze("SELECT 't_order'::regclass::oid").catalogFunctions());
        assertTrue(StatementAnalyzer.analyze("SELECT pg_catalog.pg_get_indexdef(16384)").catalogFunctions());
        assertTrue(StatementAnalyzer.analyze("select to_regclass('x') is not null").catalogFunctions());
        assertFalse(StatementAnalyzer.analyze("SELECT nextval('s'), now(), version()").catalogFunctions());
        assertFalse(StatementAnalyzer.analyze("SELECT 'regclass' FROM t").catalogFunctions());
    }
}
