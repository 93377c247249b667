package io.ashlar.parser.lexer;

import java.util.ArrayList;
import java.util.List;

/**
 * Splits a Simple Query string into its statements the way PostgreSQL's own front end (psql's
 * {@code psqlscan.l}) does: a {@code ;} ends a statement unless it is inside a quoted string or
 * identifier, a dollar quote, a comment, parentheses, or the {@code BEGIN ATOMIC ... END} body of a
 * {@code CREATE [OR REPLACE] FUNCTION|PROCEDURE}. Empty statements ({@code ;;}, or text holding only
 * whitespace and comments) are dropped, so an empty query string gives an empty list, which the
 * frontend answers with EmptyQueryResponse.
 *
 * <p>See <a href="https://www.postgresql.org/docs/current/protocol-flow.html#PROTOCOL-FLOW-MULTI-STATEMENT">
 * 55.2.2.1. Multiple Statements in a Simple Query</a>.
 */
public final class StatementSplitter {
    private StatementSplitter() {
    }

    /**
     * The statements of {@code sql}.
     *
     * @throws SqlSyntaxException if the text has an unterminated quote or comment
     */
    public static List<StatementRange> split(String sql) {
        return split(Lexer.tokenize(sql));
    }

    /** The statements of an already tokenized text. */
    public static List<StatementRange> split(TokenList tokens) {
        String sql = tokens.sql();
        List<StatementRange> result = new ArrayList<>(2);
        int textStart = 0;
        int firstToken = 0;
        int parenDepth = 0;
        int beginDepth = 0;
        // psql's heuristic: inside CREATE [OR REPLACE] FUNCTION|PROCEDURE, BEGIN ... END nests (and so
        // does CASE ... END within it); semicolons in there do not end the statement.
        boolean routineBody = false;
        int size = tokens.size();
        for (int i = 0; i < size; i++) {
            TokenKind kind = tokens.kind(i);
            if (kind == TokenKind.LEFT_PAREN) {
                parenDepth++;
            } else if (kind == TokenKind.RIGHT_PAREN) {
                if (parenDepth > 0) {
                    parenDepth--;
                }
            } else if (kind == TokenKind.IDENTIFIER) {
                if (i == firstToken) {
                    routineBody = startsRoutine(tokens, i);
                }
                if (routineBody && parenDepth == 0) {
                    Keyword keyword = tokens.keyword(i);
                    if (keyword == Keyword.BEGIN) {
                        beginDepth++;
                    } else if (keyword == Keyword.CASE && beginDepth > 0) {
                        beginDepth++;
                    } else if (keyword == Keyword.END && beginDepth > 0) {
                        beginDepth--;
                    }
                }
            } else if (kind == TokenKind.SEMICOLON && parenDepth == 0 && beginDepth == 0) {
                addStatement(result, sql, tokens, textStart, tokens.start(i), firstToken, i);
                textStart = tokens.end(i);
                firstToken = i + 1;
                routineBody = false;
            }
        }
        addStatement(result, sql, tokens, textStart, sql.length(), firstToken, size);
        return result;
    }

    private static boolean startsRoutine(TokenList tokens, int i) {
        if (!tokens.isKeyword(i, Keyword.CREATE)) {
            return false;
        }
        int j = i + 1;
        if (tokens.isKeyword(j, Keyword.OR) && tokens.isKeyword(j + 1, Keyword.REPLACE)) {
            j += 2;
        }
        return tokens.isKeyword(j, Keyword.FUNCTION) || tokens.isKeyword(j, Keyword.PROCEDURE);
    }

    private static void addStatement(List<StatementRange> result, String sql, TokenList tokens,
                                     int textStart, int textEnd, int firstToken, int endToken) {
        if (firstToken >= endToken) {
            return;
        }
        int start = textStart;
        while (start < textEnd && isSpace(sql.charAt(start))) {
            start++;
        }
        int end = textEnd;
        while (end > start && isSpace(sql.charAt(end - 1))) {
            end--;
        }
        // A trailing "--" comment without a newline must keep its end; trimming stops at it anyway.
        result.add(new StatementRange(start, Math.max(end, tokens.end(endToken - 1)), firstToken, endToken));
    }

    private static boolean isSpace(char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\u000B';
    }
}
