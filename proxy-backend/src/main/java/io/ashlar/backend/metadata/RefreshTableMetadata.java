package io.ashlar.backend.metadata;

import io.ashlar.backend.execute.ErrorFields;
import io.ashlar.backend.execute.StatementFailure;
import io.ashlar.parser.lexer.Lexer;
import io.ashlar.parser.lexer.SqlSyntaxException;
import io.ashlar.parser.lexer.TokenKind;
import io.ashlar.parser.lexer.TokenList;

/**
 * ShardingSphere's DistSQL statement that reads table definitions again:
 * {@code REFRESH TABLE METADATA [table] [FROM STORAGE UNIT name [SCHEMA schema]]} (5.3 and later; 5.1 and 5.2 wrote
 * {@code FROM RESOURCE name}).
 *
 * @param table      the table, or null for every table
 * @param schema     the table's schema ({@code public} unless named)
 * @param dataSource the storage unit named, or null
 * @see <a href="https://shardingsphere.apache.org/document/5.4.1/en/user-manual/shardingsphere-proxy/distsql/syntax/ral/">ShardingSphere RAL</a>
 */
record RefreshTableMetadata(String table, String schema, String dataSource) {

    static boolean matches(String sql) {
        TokenList tokens = tokens(sql);
        return tokens != null && word(tokens, 0, "refresh") && word(tokens, 1, "table") && word(tokens, 2, "metadata");
    }

    static RefreshTableMetadata parse(String sql) throws StatementFailure {
        TokenList tokens = tokens(sql);
        if (tokens == null) {
            throw syntax(sql);
        }
        int end = tokens.size();
        while (end > 0 && tokens.is(end - 1, TokenKind.SEMICOLON)) {
            end--;
        }
        int i = 3;
        String table = null;
        String schema = SchemaLoader.PUBLIC;
        String dataSource = null;
        if (i < end && tokens.kind(i).isIdentifier() && !word(tokens, i, "from")) {
            table = tokens.identifier(i++);
            if (tokens.is(i, TokenKind.DOT) && i + 1 < end && tokens.kind(i + 1).isIdentifier()) {
                schema = table;
                table = tokens.identifier(i + 1);
                i += 2;
            }
        }
        if (word(tokens, i, "from")) {
            if (word(tokens, i + 1, "storage") && word(tokens, i + 2, "unit")) {
                i += 3;
            } else if (word(tokens, i + 1, "resource")) {
                i += 2;
            } else {
                throw syntax(sql);
            }
            if (i >= end || !tokens.kind(i).isIdentifier()) {
                throw syntax(sql);
            }
            dataSource = tokens.identifier(i++);
            if (word(tokens, i, "schema") && i + 1 < end && tokens.kind(i + 1).isIdentifier()) {
                schema = tokens.identifier(i + 1);
                i += 2;
            }
        }
        if (i != end) {
            throw syntax(sql);
        }
        return new RefreshTableMetadata(table, schema, dataSource);
    }

    private static StatementFailure syntax(String sql) {
        return new StatementFailure(ErrorFields.error("42601", "syntax error in \"" + sql.strip() + "\"",
                "Write REFRESH TABLE METADATA [table] [FROM STORAGE UNIT name [SCHEMA schema]]."));
    }

    private static boolean word(TokenList tokens, int i, String word) {
        return tokens.is(i, TokenKind.IDENTIFIER) && tokens.textEqualsIgnoreCase(i, word);
    }

    private static TokenList tokens(String sql) {
        try {
            return Lexer.tokenize(sql);
        } catch (SqlSyntaxException e) {
            return null;
        }
    }
}
