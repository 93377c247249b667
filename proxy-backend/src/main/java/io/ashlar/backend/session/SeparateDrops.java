package io.ashlar.backend.session;

import io.ashlar.parser.lexer.Lexer;
import io.ashlar.parser.lexer.SqlSyntaxException;
import io.ashlar.parser.lexer.TokenKind;
import io.ashlar.parser.lexer.TokenList;
import io.ashlar.parser.statement.AnalyzedStatement;
import io.ashlar.parser.statement.DdlKind;
import io.ashlar.parser.statement.DdlStatement;
import io.ashlar.parser.statement.TableReference;
import io.ashlar.parser.statement.TableRole;
import io.ashlar.route.RouteException;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code DROP TABLE a, b} where no one route can name every table (sharded tables laid out differently, a sharded table
 * with a single table of one data source, a name no rule knows): one {@code DROP TABLE} per table, which the session
 * runs in one transaction, so that the statement drops all of them or none, as on PostgreSQL.
 *
 * @see <a href="https://www.postgresql.org/docs/current/sql-droptable.html">DROP TABLE</a>
 */
final class SeparateDrops {

    private SeparateDrops() {
    }

    /** Whether the route refused {@code statement}, a DROP TABLE of several tables, for naming them together. */
    static boolean applies(AnalyzedStatement statement, RouteException refusal) {
        return refusal.sqlState().equals("0A000") && statement.body() instanceof DdlStatement ddl && ddl.kind() == DdlKind.DROP_TABLE
                && targets(statement).size() > 1;
    }

    /**
     * One {@code DROP TABLE [IF EXISTS] name [CASCADE | RESTRICT]} per table of {@code statement}, each name as the client
     * wrote it.
     */
    static List<String> statements(AnalyzedStatement statement) {
        DdlStatement ddl = (DdlStatement) statement.body();
        String sql = statement.sql();
        String behaviour = "";
        try {
            TokenList tokens = Lexer.tokenize(sql);
            int last = tokens.size() - 1;
            while (last >= 0 && tokens.is(last, TokenKind.SEMICOLON)) {
                last--;
            }
            if (last >= 0 && tokens.is(last, TokenKind.IDENTIFIER)
                    && (tokens.textEqualsIgnoreCase(last, "cascade") || tokens.textEqualsIgnoreCase(last, "restrict"))) {
                behaviour = " " + tokens.text(last).toUpperCase(java.util.Locale.ROOT);
            }
        } catch (SqlSyntaxException e) {
            // analysed already: it lexes
        }
        List<String> result = new ArrayList<>();
        for (TableReference each : targets(statement)) {
            result.add("DROP TABLE " + (ddl.ifExists() ? "IF EXISTS " : "") + sql.substring(each.range().start(), each.range().end()) + behaviour);
        }
        return result;
    }

    private static List<TableReference> targets(AnalyzedStatement statement) {
        List<TableReference> result = new ArrayList<>();
        for (TableReference each : statement.tables()) {
            if (each.role() == TableRole.DDL_TARGET) {
                result.add(each);
            }
        }
        return result;
    }
}
