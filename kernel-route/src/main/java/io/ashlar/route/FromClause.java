package io.ashlar.route;

import io.ashlar.parser.lexer.Keyword;
import io.ashlar.parser.lexer.TokenKind;
import io.ashlar.parser.lexer.TokenList;

import java.util.ArrayList;
import java.util.List;

/**
 * The join structure of one FROM list (or DELETE's USING list), read from the tokens: which items each join combines,
 * with which kind of join, and the columns of {@code USING (...)}. The statement analyzer keeps only what routing by
 * conditions needs; two questions need more: which side of an outer join keeps its unmatched rows, and which columns
 * {@code USING} and {@code NATURAL} join on (they produce no {@code a.x = b.y} equality).
 *
 * <p>Joins without parentheses associate to the left: in {@code a LEFT JOIN b ON .. JOIN c ON ..} the second join's
 * left side is {@code a LEFT JOIN b}. A FROM item is a table name, a subquery, a function call or a parenthesized
 * join; sides are kept as source ranges, so that a caller finds the table occurrences of a side by position.
 * Read once per routing call that needs it; anything this reader does not recognise makes the whole clause
 * {@link #understood() not understood}, and the caller then assumes the worst.
 *
 * @see <a href="https://www.postgresql.org/docs/current/queries-table-expressions.html#QUERIES-FROM">7.2.1. The FROM Clause</a>
 */
final class FromClause {

    /** Join kinds. */
    static final int INNER = 0;

    static final int LEFT = 1;

    static final int RIGHT = 2;

    static final int FULL = 3;

    static final int CROSS = 4;

    /** The clause of a statement whose FROM list could not be read. */
    static final FromClause NOT_UNDERSTOOD = new FromClause(List.of(), 0, false, false);

    /**
     * One join.
     *
     * @param kind INNER, LEFT, RIGHT, FULL or CROSS
     * @param natural whether it is a NATURAL join
     * @param using the columns of {@code USING (...)}, normalised; empty without USING
     * @param left the left side's source range (everything joined so far)
     * @param right the right side's source range (one FROM item)
     * @param leftPlain whether the left side is a single table name
     * @param rightPlain whether the right side is a single table name
     */
    record Join(int kind, boolean natural, List<String> using, Span left, Span right, boolean leftPlain, boolean rightPlain) {

        /** Whether {@code offset} lies in the left side. */
        boolean inLeft(int offset) {
            return left.contains(offset);
        }

        /** Whether {@code offset} lies in the right side. */
        boolean inRight(int offset) {
            return right.contains(offset);
        }
    }

    /** Characters {@code [start, end)} of the SQL text. */
    record Span(int start, int end) {

        boolean contains(int offset) {
            return offset >= start && offset < end;
        }
    }

    private final List<Join> joins;

    private final int items;

    private final boolean whereFollows;

    private final boolean understood;

    private FromClause(List<Join> joins, int items, boolean whereFollows, boolean understood) {
        this.joins = joins;
        this.items = items;
        this.whereFollows = whereFollows;
        this.understood = understood;
    }

    /** Every join of the clause, nested ones included, in the order they are written. */
    List<Join> joins() {
        return joins;
    }

    /** How many items the top-level list has (separated by commas). */
    int items() {
        return items;
    }

    /** Whether a WHERE clause follows the list. */
    boolean whereFollows() {
        return whereFollows;
    }

    boolean understood() {
        return understood;
    }

    /**
     * Reads the list that starts at token {@code first} (just past FROM or USING).
     */
    static FromClause read(TokenList tokens, int first) {
        Reader reader = new Reader(tokens, first);
        return reader.fromList();
    }

    /** A recursive-descent reader over the tokens; one per clause. */
    private static final class Reader {

        private final TokenList tokens;

        private final List<Join> joins = new ArrayList<>(2);

        private int position;

        private boolean failed;

        Reader(TokenList tokens, int first) {
            this.tokens = tokens;
            this.position = first;
        }

        FromClause fromList() {
            int items = 0;
            while (!failed) {
                item();
                items++;
                if (!tokens.is(position, TokenKind.COMMA)) {
                    break;
                }
                position++;
            }
            if (failed || !endsClause(position)) {
                return NOT_UNDERSTOOD;
            }
            return new FromClause(List.copyOf(joins), items, tokens.isKeyword(position, Keyword.WHERE), true);
        }

        /** A FROM item with the joins that follow it; returns whether it is a single table name. */
        private boolean item() {
            int start = position;
            boolean plain = primary();
            while (!failed) {
                int joinStart = position;
                int kind = joinKind();
                if (kind < 0) {
                    break;
                }
                boolean natural = tokens.isKeyword(joinStart, Keyword.NATURAL);
                Span left = new Span(tokens.start(start), tokens.end(joinStart - 1));
                int rightStart = position;
                boolean rightPlain = primary();
                if (failed) {
                    break;
                }
                Span right = new Span(tokens.start(rightStart), tokens.end(position - 1));
                List<String> using = List.of();
                if (tokens.isKeyword(position, Keyword.ON)) {
                    position++;
                    skipCondition();
                } else if (tokens.isKeyword(position, Keyword.USING)) {
                    using = usingColumns();
                }
                joins.add(new Join(kind, natural, using, left, right, plain, rightPlain));
                plain = false;
            }
            return plain;
        }

        /** The join operator at the position, consumed; -1 (nothing consumed) when there is none. */
        private int joinKind() {
            int i = position;
            if (tokens.isKeyword(i, Keyword.CROSS) && tokens.isKeyword(i + 1, Keyword.JOIN)) {
                position = i + 2;
                return CROSS;
            }
            if (tokens.isKeyword(i, Keyword.NATURAL)) {
                i++;
            }
            int kind = INNER;
            if (tokens.isKeyword(i, Keyword.INNER)) {
                i++;
            } else if (tokens.isKeyword(i, Keyword.LEFT) || tokens.isKeyword(i, Keyword.RIGHT) || tokens.isKeyword(i, Keyword.FULL)) {
                kind = tokens.isKeyword(i, Keyword.LEFT) ? LEFT : tokens.isKeyword(i, Keyword.RIGHT) ? RIGHT : FULL;
                i++;
                if (tokens.isKeyword(i, Keyword.OUTER)) {
                    i++;
                }
            }
            if (!tokens.isKeyword(i, Keyword.JOIN)) {
                return -1;
            }
            position = i + 1;
            return kind;
        }

        /** One FROM item without joins; returns whether it is a table name. */
        private boolean primary() {
            if (tokens.isKeyword(position, Keyword.LATERAL)) {
                position++;
            }
            if (tokens.is(position, TokenKind.LEFT_PAREN)) {
                int inner = position;
                while (tokens.is(inner, TokenKind.LEFT_PAREN)) {
                    inner++;
                }
                if (tokens.isKeyword(inner, Keyword.SELECT) || tokens.isKeyword(inner, Keyword.VALUES) || tokens.isKeyword(inner, Keyword.WITH)
                        || tokens.isKeyword(inner, Keyword.TABLE)) {
                    position = closing(position) + 1;
                } else {
                    position++;
                    item();
                    if (failed || !tokens.is(position, TokenKind.RIGHT_PAREN)) {
                        failed = true;
                        return false;
                    }
                    position++;
                }
                alias();
                return false;
            }
            if (tokens.isKeyword(position, Keyword.ROWS) && tokens.isKeyword(position + 1, Keyword.FROM) && tokens.is(position + 2, TokenKind.LEFT_PAREN)) {
                position = closing(position + 2) + 1;
                ordinality();
                alias();
                return false;
            }
            if (tokens.isKeyword(position, Keyword.ONLY)) {
                position++;
            }
            if (!isName(position)) {
                failed = true;
                return false;
            }
            position++;
            while (tokens.is(position, TokenKind.DOT) && isName(position + 1)) {
                position += 2;
            }
            if (tokens.is(position, TokenKind.LEFT_PAREN)) {
                position = closing(position) + 1;
                ordinality();
                alias();
                return false;
            }
            if (tokens.isOperator(position, "*")) {
                position++;
            }
            alias();
            if (tokens.isKeyword(position, Keyword.TABLESAMPLE)) {
                position++;
                while (isName(position) || tokens.is(position, TokenKind.DOT)) {
                    position++;
                }
                skipGroup();
                if (tokens.isKeyword(position, Keyword.REPEATABLE)) {
                    position++;
                    skipGroup();
                }
            }
            return true;
        }

        private void ordinality() {
            if (tokens.isKeyword(position, Keyword.WITH) && tokens.isKeyword(position + 1, Keyword.ORDINALITY)) {
                position += 2;
            }
        }

        /** {@code [AS] alias [(column, ...)]}. */
        private void alias() {
            if (tokens.isKeyword(position, Keyword.AS)) {
                position++;
                if (position >= tokens.size() || !tokens.kind(position).isIdentifier()) {
                    failed = true;
                    return;
                }
                position++;
            } else if (tokens.is(position, TokenKind.QUOTED_IDENTIFIER) || tokens.is(position, TokenKind.UNICODE_IDENTIFIER)
                    || tokens.is(position, TokenKind.IDENTIFIER) && tokens.keyword(position).isColumnIdentifier()) {
                position++;
            } else {
                return;
            }
            if (tokens.is(position, TokenKind.LEFT_PAREN)) {
                skipGroup();
            }
        }

        private List<String> usingColumns() {
            position++;
            if (!tokens.is(position, TokenKind.LEFT_PAREN)) {
                failed = true;
                return List.of();
            }
            int close = closing(position);
            List<String> result = new ArrayList<>(2);
            for (int i = position + 1; i < close; i++) {
                if (tokens.kind(i).isIdentifier()) {
                    result.add(tokens.identifier(i));
                }
            }
            position = close + 1;
            if (tokens.isKeyword(position, Keyword.AS)) {
                position += 2;
            }
            return List.copyOf(result);
        }

        /** Skips an ON condition: up to the next join, comma, closing parenthesis or clause end at its own depth. */
        private void skipCondition() {
            int depth = 0;
            for (int n = tokens.size(); position < n; position++) {
                TokenKind kind = tokens.kind(position);
                if (kind == TokenKind.LEFT_PAREN || kind == TokenKind.LEFT_BRACKET) {
                    depth++;
                } else if (kind == TokenKind.RIGHT_PAREN || kind == TokenKind.RIGHT_BRACKET) {
                    if (depth == 0) {
                        return;
                    }
                    depth--;
                } else if (depth == 0 && (kind == TokenKind.COMMA || endsClause(position) || startsJoin(position))) {
                    return;
                }
            }
        }

        private boolean startsJoin(int i) {
            if (tokens.isKeyword(i, Keyword.JOIN) || tokens.isKeyword(i, Keyword.CROSS) || tokens.isKeyword(i, Keyword.NATURAL)
                    || tokens.isKeyword(i, Keyword.INNER)) {
                return true;
            }
            return (tokens.isKeyword(i, Keyword.LEFT) || tokens.isKeyword(i, Keyword.RIGHT) || tokens.isKeyword(i, Keyword.FULL))
                    && (tokens.isKeyword(i + 1, Keyword.JOIN) || tokens.isKeyword(i + 1, Keyword.OUTER));
        }

        private boolean endsClause(int i) {
            if (i >= tokens.size() || tokens.is(i, TokenKind.SEMICOLON) || tokens.is(i, TokenKind.RIGHT_PAREN)) {
                return true;
            }
            return switch (tokens.keyword(i)) {
                case WHERE, GROUP, HAVING, WINDOW, ORDER, LIMIT, OFFSET, FETCH, FOR, UNION, INTERSECT, EXCEPT, RETURNING, ON, WHEN -> true;
                default -> false;
            };
        }

        private boolean isName(int i) {
            return tokens.is(i, TokenKind.QUOTED_IDENTIFIER) || tokens.is(i, TokenKind.UNICODE_IDENTIFIER)
                    || tokens.is(i, TokenKind.IDENTIFIER) && tokens.keyword(i).category() != Keyword.Category.RESERVED;
        }

        private void skipGroup() {
            if (tokens.is(position, TokenKind.LEFT_PAREN)) {
                position = closing(position) + 1;
            }
        }

        /** The index of the parenthesis closing the one at {@code open}; fails the reader when there is none. */
        private int closing(int open) {
            int depth = 0;
            for (int i = open, n = tokens.size(); i < n; i++) {
                if (tokens.is(i, TokenKind.LEFT_PAREN)) {
                    depth++;
                } else if (tokens.is(i, TokenKind.RIGHT_PAREN) && --depth == 0) {
                    return i;
                }
            }
            failed = true;
            return tokens.size();
        }
    }
}
