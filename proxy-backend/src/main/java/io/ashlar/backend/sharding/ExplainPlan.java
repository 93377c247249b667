package io.ashlar.backend.sharding;

import io.ashlar.backend.execute.ArrayRowView;
import io.ashlar.backend.execute.BufferedResult;
import io.ashlar.backend.execute.ErrorFields;
import io.ashlar.backend.session.LogicalDatabase;
import io.ashlar.parser.lexer.Lexer;
import io.ashlar.parser.lexer.SqlSyntaxException;
import io.ashlar.parser.lexer.TokenKind;
import io.ashlar.parser.lexer.TokenList;
import io.ashlar.rewrite.MergeTemplate;
import io.ashlar.rewrite.RewriteResult;
import io.ashlar.rewrite.RewrittenUnit;
import io.ashlar.route.RouteEngine;
import io.ashlar.route.RouteParameters;
import io.ashlar.route.TableMapping;
import java.util.List;
import java.util.Locale;

/**
 * EXPLAIN of a statement that runs as several units, as one plan: the proxy's merge on top (how it combines the
 * units' rows, from the explained statement's own route and rewrite), then each unit's backend plan under it,
 * labelled with its data source and actual tables, indented as PostgreSQL indents a child plan; EXPLAIN ANALYZE ends
 * with the time the proxy waited for all the units (they run at once, one round trip per data source). The units'
 * plans came one after another, unlabelled: with {@code t_order_0} on two data sources nobody could tell which plan
 * came from where. Formats other than text (JSON, XML, YAML: one document per unit) are left as the backends wrote
 * them.
 *
 * @see <a href="https://www.postgresql.org/docs/current/sql-explain.html">EXPLAIN</a>
 */
final class ExplainPlan {

    private static final RouteEngine ROUTER = new RouteEngine();

    private ExplainPlan() {
    }

    /**
     * The units' plans as one, or null to leave them as they are (a format other than text).
     *
     * @param elapsedNanos how long the units took, from the first sent to the last answered
     * @param text         the charset of the session's client_encoding: the units' lines are in it, and the labels
     *                     are written in it
     */
    static BufferedResult labelled(LogicalDatabase database, String sql, List<RewrittenUnit> units, BufferedResult[] results,
                                   List<ErrorFields> notices, long elapsedNanos, java.nio.charset.Charset text) {
        Options options = options(sql);
        if (options == null || !options.text) {
            return null;
        }
        BufferedResult result = new BufferedResult();
        result.columns(results[0].columns());
        ArrayRowView view = new ArrayRowView();
        add(result, view, "Ashlar Merge  (" + merge(database, sql.substring(options.statementStart)) + ", " + units.size()
                + " units)", text);
        for (int i = 0; i < units.size(); i++) {
            StringBuilder label = new StringBuilder("  ->  Unit ").append(i + 1).append(": ")
                    .append(units.get(i).unit().dataSource());
            for (TableMapping each : units.get(i).unit().tables()) {
                label.append(", ").append(each.logicTable()).append(" -> ").append(each.actualTable());
            }
            add(result, view, label.toString(), text);
            BufferedResult unit = results[i];
            for (int r = 0; r < unit.rowCount(); r++) {
                byte[] line = unit.row(r).value(0);
                add(result, view, "        " + (line == null ? "" : new String(line, text)), text);
            }
        }
        if (options.analyze) {
            add(result, view, "Proxy Time: " + String.format(Locale.ROOT, "%.3f", elapsedNanos / 1e6) + " ms"
                    + " (every unit sent, answered and read)", text);
        }
        for (ErrorFields each : notices) {
            result.notice(each);
        }
        result.complete(results[0].tag());
        return result;
    }

    private static void add(BufferedResult result, ArrayRowView view, String line, java.nio.charset.Charset text) {
        result.row(view.of(new byte[][] {line.getBytes(text)}));
    }

    /** How the proxy merges the explained statement's units, in the merge's own words. */
    private static String merge(LogicalDatabase database, String explained) {
        try {
            Plan plan = database.plans().get(explained);
            RewriteResult rewrite = plan.rewriter().rewrite(ROUTER.route(plan.statement(), RouteParameters.NONE,
                    database.rules()), RouteParameters.NONE);
            return rewrite.merge().map(MergeTemplate::describe).map(each -> "merge " + each)
                    .orElse("rows of the units one after another");
        } catch (RuntimeException e) {
            return "rows of the units one after another";
        }
    }

    /** What EXPLAIN's options ask, and where the explained statement starts. */
    private record Options(boolean analyze, boolean text, int statementStart) {
    }

    /** EXPLAIN [ANALYZE] [VERBOSE] [( option [value] [, ...] )] statement; null when the text cannot be read. */
    static Options options(String sql) {
        TokenList tokens;
        try {
            tokens = Lexer.tokenize(sql);
        } catch (SqlSyntaxException e) {
            return null;
        }
        boolean analyze = false;
        boolean text = true;
        int i = 1;
        int n = tokens.size();
        if (tokens.is(i, TokenKind.LEFT_PAREN)) {
            i++;
            while (i < n && !tokens.is(i, TokenKind.RIGHT_PAREN)) {
                String option = tokens.text(i).toLowerCase(Locale.ROOT);
                String value = i + 1 < n && !tokens.is(i + 1, TokenKind.COMMA) && !tokens.is(i + 1, TokenKind.RIGHT_PAREN)
                        ? tokens.text(i + 1).toLowerCase(Locale.ROOT).replace("'", "") : "true";
                boolean on = !value.equals("false") && !value.equals("off") && !value.equals("0");
                if (option.equals("analyze") || option.equals("analyse")) {
                    analyze = on;
                } else if (option.equals("format")) {
                    text = value.equals("text");
                }
                while (i < n && !tokens.is(i, TokenKind.COMMA) && !tokens.is(i, TokenKind.RIGHT_PAREN)) {
                    i++;
                }
                if (tokens.is(i, TokenKind.COMMA)) {
                    i++;
                }
            }
            i++;
        }
        while (i < n && tokens.is(i, TokenKind.IDENTIFIER) && (tokens.textEqualsIgnoreCase(i, "analyze")
                || tokens.textEqualsIgnoreCase(i, "analyse") || tokens.textEqualsIgnoreCase(i, "verbose"))) {
            analyze |= !tokens.textEqualsIgnoreCase(i, "verbose");
            i++;
        }
        return i < n ? new Options(analyze, text, tokens.start(i)) : null;
    }
}
