package io.ashlar.frontend.session;

import io.ashlar.backend.execute.ColumnDescription;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The questions the openGauss JDBC driver (6.0.2-og, {@code org.opengauss.Driver}) asks right after
 * it connects, answered by the proxy itself for openGauss-dialect sessions, so that the driver
 * connects through Ashlar even when the backends are PostgreSQL, which has neither
 * {@code pg_database.datcompatibility}, nor the dolphin extension's settings, nor openGauss's
 * {@code support_batch_bind}:
 * <ul>
 * <li>{@code select datcompatibility from pg_database where datname='...'}: 'A' (Oracle-compatible,
 *     openGauss's default, under which the driver behaves as with PostgreSQL);</li>
 * <li>{@code select count(1) from pg_extension where extname = 'dolphin'}: 0;</li>
 * <li>{@code set dolphin.b_compatibility_mode to on|off}: accepted, changes nothing;
 *     {@code show dolphin.b_compatibility_mode}: 'off';</li>
 * <li>{@code select name, setting from pg_settings where name in ('connection_info')}: no row (so
 *     the driver sends no {@code set connection_info});</li>
 * <li>{@code select count(*) from pg_settings where name = 'support_batch_bind' and setting = 'on'}:
 *     1, so that {@code batchMode=auto} sends a batch as one batch bind ({@code U}) message.</li>
 * </ul>
 * A statement matches when its text equals one of these after whitespace is collapsed, blanks
 * next to punctuation dropped, case folded and a trailing semicolon removed. Statements that
 * cannot be one of them are told apart without allocating.
 *
 * @see <a href="https://gitee.com/opengauss/openGauss-connector-jdbc">openGauss JDBC driver</a>,
 *     {@code PgConnection}, {@code PgDatabase}, {@code ConnectionFactoryImpl}
 */
final class OpenGaussConnectQueries {

    private static final int MAX_LENGTH = 200;
    private static final String[] MARKERS = {"datcompatibility", "dolphin", "pg_settings"};
    private static final String DATCOMPATIBILITY_PREFIX = "select datcompatibility from pg_database where datname='";

    private static final CannedAnswer SET = CannedAnswer.command("SET");

    private static final Map<String, CannedAnswer> ANSWERS = Map.of(
            "select count(1) from pg_extension where extname='dolphin'",
            CannedAnswer.single("count", CannedAnswer.INT8, (short) 8, "0", "SELECT 1"),
            "set dolphin.b_compatibility_mode to on", SET,
            "set dolphin.b_compatibility_mode to off", SET,
            "set dolphin.b_compatibility_mode=on", SET,
            "set dolphin.b_compatibility_mode=off", SET,
            "show dolphin.b_compatibility_mode",
            CannedAnswer.single("dolphin.b_compatibility_mode", CannedAnswer.TEXT, (short) -1, "off", "SHOW"),
            "select name,setting from pg_settings where name in('connection_info')",
            new CannedAnswer(new ColumnDescription[] {
                    new ColumnDescription("name", 0, (short) 0, CannedAnswer.TEXT, (short) -1, -1),
                    new ColumnDescription("setting", 0, (short) 0, CannedAnswer.TEXT, (short) -1, -1)},
                    List.of(), "SELECT 0"),
            "select count(*) from pg_settings where name='support_batch_bind' and setting='on'",
            CannedAnswer.single("count", CannedAnswer.INT8, (short) 8, "1", "SELECT 1"));

    private static final CannedAnswer DATCOMPATIBILITY =
            CannedAnswer.single("datcompatibility", CannedAnswer.NAME, (short) 64, "A", "SELECT 1");

    private OpenGaussConnectQueries() {
    }

    /** The proxy's answer to the statement, or empty when a backend should run it. */
    static Optional<CannedAnswer> answer(String sql) {
        if (sql.length() > MAX_LENGTH || !mayMatch(sql)) {
            return Optional.empty();
        }
        String normalized = normalize(sql);
        CannedAnswer result = ANSWERS.get(normalized);
        if (result == null && normalized.startsWith(DATCOMPATIBILITY_PREFIX) && normalized.endsWith("'")
                && normalized.indexOf('\'', DATCOMPATIBILITY_PREFIX.length()) == normalized.length() - 1) {
            result = DATCOMPATIBILITY;
        }
        return Optional.ofNullable(result);
    }

    private static boolean mayMatch(String sql) {
        int first = 0;
        while (first < sql.length() && Character.isWhitespace(sql.charAt(first))) {
            first++;
        }
        if (first == sql.length() || (sql.charAt(first) | 0x20) != 's') {
            return false;
        }
        for (String marker : MARKERS) {
            for (int i = first, last = sql.length() - marker.length(); i <= last; i++) {
                if (sql.regionMatches(true, i, marker, 0, marker.length())) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Lower case, one blank between words, none around {@code = , (} nor before {@code )}, no trailing semicolons. */
    static String normalize(String sql) {
        String lower = sql.toLowerCase(Locale.ROOT).strip();
        while (lower.endsWith(";")) {
            lower = lower.substring(0, lower.length() - 1).strip();
        }
        StringBuilder result = new StringBuilder(lower.length());
        boolean blank = false;
        for (int i = 0; i < lower.length(); i++) {
            char c = lower.charAt(i);
            if (Character.isWhitespace(c)) {
                blank = true;
                continue;
            }
            if (blank && !result.isEmpty() && !isPunctuation(c) && !opens(result.charAt(result.length() - 1))) {
                result.append(' ');
            }
            blank = false;
            result.append(c);
        }
        return result.toString();
    }

    /** A blank before one of these goes. */
    private static boolean isPunctuation(char c) {
        return c == '=' || c == ',' || c == '(' || c == ')';
    }

    /** A blank after one of these goes. */
    private static boolean opens(char c) {
        return c == '=' || c == ',' || c == '(';
    }
}
