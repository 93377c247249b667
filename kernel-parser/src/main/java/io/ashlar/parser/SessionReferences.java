package io.ashlar.parser;

import io.ashlar.parser.lexer.Keyword;
import io.ashlar.parser.lexer.TokenKind;
import io.ashlar.parser.lexer.TokenList;
import io.ashlar.parser.statement.SessionValue;
import io.ashlar.parser.statement.SessionValueReference;
import io.ashlar.parser.statement.SourceRange;
import java.util.ArrayList;
import java.util.List;

/**
 * What a statement asks of the session and of the catalog by name, found in one pass over its
 * tokens: the {@link SessionValue}s it reads, and whether it calls a function that looks relations
 * up in the catalog (a {@code regclass} cast, {@code pg_get_indexdef}, {@code pg_table_is_visible},
 * ...), which a statement naming no catalog table can do too ({@code SELECT 't_order'::regclass}).
 *
 * @param values         the session values, in source order
 * @param catalogFunctions whether a relation-introspection function or type is named
 */
record SessionReferences(List<SessionValueReference> values, boolean catalogFunctions) {

    static final SessionReferences NONE = new SessionReferences(List.of(), false);

    /** Functions and types whose answer depends on the relations of the database the statement runs in. */
    private static final String[] CATALOG_FUNCTIONS = {"regclass", "to_regclass", "pg_get_indexdef",
            "pg_get_constraintdef", "pg_get_viewdef", "pg_get_triggerdef", "pg_get_serial_sequence",
            "pg_table_is_visible", "pg_relation_size", "pg_total_relation_size", "pg_table_size", "pg_indexes_size",
            "obj_description", "col_description", "has_table_privilege", "has_column_privilege",
            "has_sequence_privilege", "pg_get_partkeydef", "pg_partition_tree", "pg_partition_root"};

    static SessionReferences scan(TokenList tokens, int from, int to) {
        List<SessionValueReference> values = null;
        boolean catalogFunctions = false;
        for (int i = from; i < to; i++) {
            if (!tokens.is(i, TokenKind.IDENTIFIER)) {
                continue;
            }
            SessionValue keywordValue = switch (tokens.keyword(i)) {
                case CURRENT_USER -> SessionValue.CURRENT_USER;
                case CURRENT_ROLE -> SessionValue.CURRENT_ROLE;
                case USER -> SessionValue.USER;
                case SESSION_USER -> SessionValue.SESSION_USER;
                case CURRENT_CATALOG -> SessionValue.CURRENT_CATALOG;
                default -> null;
            };
            if (keywordValue != null) {
                // After a dot or AS the word is a column or alias name (t.user, 1 AS user), not the value.
                if (!tokens.is(i - 1, TokenKind.DOT) && !tokens.isKeyword(i - 1, Keyword.AS)) {
                    values = add(values, new SessionValueReference(new SourceRange(tokens.start(i), tokens.end(i)), keywordValue));
                }
                continue;
            }
            if (tokens.keyword(i) != Keyword.NONE) {
                continue;
            }
            SessionValue function = function(tokens, i);
            if (function != null && tokens.is(i + 1, TokenKind.LEFT_PAREN) && tokens.is(i + 2, TokenKind.RIGHT_PAREN)) {
                int start = i;
                if (tokens.is(i - 1, TokenKind.DOT)) {
                    if (!tokens.is(i - 2, TokenKind.IDENTIFIER) || !tokens.textEqualsIgnoreCase(i - 2, "pg_catalog")
                            || tokens.is(i - 3, TokenKind.DOT)) {
                        continue; // another schema's function of the same name
                    }
                    start = i - 2;
                }
                values = add(values, new SessionValueReference(new SourceRange(tokens.start(start), tokens.end(i + 2)), function));
                i += 2;
                continue;
            }
            if (!catalogFunctions) {
                for (String each : CATALOG_FUNCTIONS) {
                    if (tokens.textEqualsIgnoreCase(i, each)) {
                        catalogFunctions = true;
                        break;
                    }
                }
            }
        }
        return values == null && !catalogFunctions ? NONE
                : new SessionReferences(values == null ? List.of() : values, catalogFunctions);
    }

    private static SessionValue function(TokenList tokens, int i) {
        if (tokens.end(i) - tokens.start(i) != 16) {
            return null; // all three names have 16 letters
        }
        if (tokens.textEqualsIgnoreCase(i, "current_database")) {
            return SessionValue.CURRENT_DATABASE;
        }
        if (tokens.textEqualsIgnoreCase(i, "inet_server_port")) {
            return SessionValue.INET_SERVER_PORT;
        }
        return tokens.textEqualsIgnoreCase(i, "inet_server_addr") ? SessionValue.INET_SERVER_ADDR : null;
    }

    private static List<SessionValueReference> add(List<SessionValueReference> values, SessionValueReference value) {
        List<SessionValueReference> result = values == null ? new ArrayList<>(2) : values;
        result.add(value);
        return result;
    }
}
