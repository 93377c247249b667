package io.ashlar.frontend.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The openGauss driver's connect-time questions, as 6.0.2-og spells them and as a person might. */
final class OpenGaussConnectQueriesTest {

    private static String single(String sql) {
        CannedAnswer answer = OpenGaussConnectQueries.answer(sql).orElseThrow(() -> new AssertionError("no answer to " + sql));
        CannedAnswer.Result result = answer.result();
        assertTrue(result.hasRows());
        assertTrue(result.next());
        String value = new String(result.row().value(0), StandardCharsets.UTF_8);
        assertFalse(result.next());
        return value;
    }

    @Test
    void datcompatibilityIsA() {
        assertEquals("A", single("select datcompatibility from pg_database where datname='sharding_db';"));
        assertEquals("A", single("SELECT datcompatibility FROM pg_database WHERE datname = 'it_db'"));
        assertFalse(OpenGaussConnectQueries.answer(
                "select datcompatibility from pg_database where datname='a' or datname='b'").isPresent());
    }

    @Test
    void dolphinIsAbsent() {
        assertEquals("0", single("select count(1) from pg_extension where extname = 'dolphin';"));
        assertEquals("off", single("show dolphin.b_compatibility_mode;"));
        CannedAnswer set = OpenGaussConnectQueries.answer("set dolphin.b_compatibility_mode to on").orElseThrow();
        assertFalse(set.hasRows());
        assertEquals("SET", set.tag());
    }

    @Test
    void batchBindIsSupported() {
        assertEquals("1", single("select count(*) from pg_settings where name = 'support_batch_bind' and setting = 'on';"));
        assertEquals("1", single("select  count(*)\n from pg_settings where name='support_batch_bind' and setting='on'"));
    }

    @Test
    void connectionInfoHasNoRow() {
        CannedAnswer answer = OpenGaussConnectQueries.answer(
                "select name, setting from pg_settings where name in ('connection_info')").orElseThrow();
        assertEquals(2, answer.columns().length);
        assertFalse(answer.result().next());
        assertEquals("SELECT 0", answer.tag());
    }

    @ParameterizedTest
    @ValueSource(strings = {"select version()", "select count(*) from pg_settings where name = 'work_mem'",
            "select 1", "", "set search_path to public", "show dolphin.bit_output",
            "select count(*) from pg_settings where name = 'support_batch_bind' and setting = 'off'"})
    void otherStatementsGoToTheBackends(String sql) {
        assertFalse(OpenGaussConnectQueries.answer(sql).isPresent());
    }

    @Test
    void normalizingKeepsWordsApartAndPunctuationTight() {
        assertEquals("select count(*) from t where a='x' and b in('y','z')",
                OpenGaussConnectQueries.normalize("  SELECT count( * )  FROM t\twhere a = 'x' AND b IN ( 'y' , 'z' ) ;; "));
    }
}
