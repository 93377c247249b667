package io.ashlar.backend.metadata;

import io.ashlar.parser.SqlText;
import io.ashlar.backend.session.SessionIdentity;
import io.ashlar.parser.lexer.Keyword;
import io.ashlar.parser.lexer.Lexer;
import io.ashlar.parser.lexer.TokenKind;
import io.ashlar.parser.lexer.TokenList;
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
        TokenList tokens = null;
        for (SessionValueReference each : statement.sessionValues()) {
            result.append(sql, at, each.range().start()).append("(SELECT ");
            // In FROM (TypeORM's SELECT * FROM current_database()) the value is a table: a subquery there needs an alias,
            // and an alias the client gives names its one column too.
            if (tokens == null) {
                tokens = Lexer.tokenize(sql);
            }
            int first = tokenAt(tokens, each.range().start());
            int after = tokenAt(tokens, each.range().end());
            boolean inFrom = first >= 0 && inFromClause(tokens, first);
            String alias = inFrom ? alias(tokens, after) : null;
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
            result.append(" AS ").append(Identifiers.write(alias != null ? alias : each.value().columnName(), true)).append(')');
            if (inFrom && alias == null && !(after >= 0 && tokens.isKeyword(after, Keyword.AS))
                    && !(after >= 0 && tokens.kind(after).isIdentifier() && tokens.keyword(after) == Keyword.NONE)) {
                result.append(" AS ").append(Identifiers.write(each.value().columnName(), true));
            }
            at = each.range().end();
        }
        return result.append(sql, at, sql.length()).toString();
    }

    /** The index of the token that starts at {@code offset}, or -1. */
    private static int tokenAt(TokenList tokens, int offset) {
        for (int i = 0; i < tokens.size(); i++) {
            if (tokens.start(i) >= offset) {
                return tokens.start(i) == offset || i > 0 ? i : -1;
            }
        }
        return -1;
    }

    /**
     * Whether the token at {@code index} begins an item of a FROM clause: before it, at its own parenthesis level, a
     * FROM or JOIN (past other FROM items and commas) that itself belongs to a SELECT, UPDATE or DELETE rather than to a
     * function's arguments ({@code substring(x FROM current_user)}).
     */
    private static boolean inFromClause(TokenList tokens, int index) {
        int depth = 0;
        boolean from = false;
        for (int i = index - 1; i >= 0; i--) {
            TokenKind kind = tokens.kind(i);
            if (kind == TokenKind.RIGHT_PAREN) {
                depth++;
            } else if (kind == TokenKind.LEFT_PAREN) {
                if (depth == 0) {
                    return false;
                }
                depth--;
            } else if (depth == 0) {
                Keyword keyword = tokens.keyword(i);
                if (!from && (keyword == Keyword.FROM || keyword == Keyword.JOIN)) {
                    from = true;
                } else if (keyword == Keyword.SELECT || keyword == Keyword.UPDATE || keyword == Keyword.DELETE) {
                    return from;
                } else if (!from && (keyword == Keyword.WHERE || keyword == Keyword.ON || keyword == Keyword.SET
                        || keyword == Keyword.VALUES || keyword == Keyword.RETURNING || keyword == Keyword.HAVING
                        || keyword == Keyword.GROUP || keyword == Keyword.ORDER || keyword == Keyword.USING)) {
                    return false;
                }
            }
        }
        return from;
    }

    /** The table alias given at {@code index} ({@code AS d}, {@code d}) without a column list, else null. */
    private static String alias(TokenList tokens, int index) {
        if (index < 0) {
            return null;
        }
        int name = tokens.isKeyword(index, Keyword.AS) ? index + 1 : index;
        if (name >= tokens.size() || !tokens.kind(name).isIdentifier()
                || name == index && tokens.keyword(name) != Keyword.NONE && tokens.kind(name) == TokenKind.IDENTIFIER) {
            return null;
        }
        if (name + 1 < tokens.size() && tokens.is(name + 1, TokenKind.LEFT_PAREN)) {
            return null; // d(x): the column list names the column
        }
        return tokens.identifier(name);
    }
}
