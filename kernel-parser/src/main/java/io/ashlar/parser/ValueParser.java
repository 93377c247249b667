package io.ashlar.parser;

import io.ashlar.parser.lexer.Keyword;
import io.ashlar.parser.lexer.TokenKind;
import io.ashlar.parser.statement.ColumnReference;
import io.ashlar.parser.statement.LiteralKind;
import io.ashlar.parser.statement.LiteralValue;
import io.ashlar.parser.statement.ParameterValue;
import io.ashlar.parser.statement.SourceRange;
import io.ashlar.parser.statement.SqlValue;
import java.math.BigInteger;
import java.util.Optional;

/**
 * Recognises the operands a router can use: plain column references and values that are literals or
 * parameters, possibly signed, parenthesised or cast ({@code -5}, {@code ('5')}, {@code '5'::int8},
 * {@code CAST($1 AS bigint)}, {@code DATE '2024-01-01'}). Anything else is not a value (null here),
 * which makes the enclosing condition unusable, never wrong.
 */
final class ValueParser {
    private final ParseContext c;

    ValueParser(ParseContext context) {
        this.c = context;
    }

    /** The column tokens {@code [from, to)} name, or null: {@code col}, {@code t.col}, {@code s.t.col}. */
    ColumnReference column(int from, int to) {
        int count = to - from;
        if (count == 1 && c.isName(from)) {
            return new ColumnReference(Optional.empty(), Optional.empty(), c.name(from), c.range(from, to));
        }
        if (count == 3 && c.isName(from) && c.is(from + 1, TokenKind.DOT) && c.isWord(from + 2)) {
            return new ColumnReference(Optional.empty(), Optional.of(c.name(from)), c.name(from + 2),
                    c.range(from, to));
        }
        if (count == 5 && c.isName(from) && c.is(from + 1, TokenKind.DOT) && c.isWord(from + 2)
                && c.is(from + 3, TokenKind.DOT) && c.isWord(from + 4)) {
            return new ColumnReference(Optional.of(c.name(from)), Optional.of(c.name(from + 2)), c.name(from + 4),
                    c.range(from, to));
        }
        return null;
    }

    /** The value tokens {@code [from, to)} spell, or null. */
    SqlValue value(int from, int to) {
        int a = from;
        int b = to;
        while (a < b && c.is(a, TokenKind.LEFT_PAREN) && c.close(a) == b - 1 && !c.startsQuery(a + 1)) {
            a++;
            b--;
        }
        if (a >= b) {
            return null;
        }
        int firstCast = b;
        int lastCast = -1;
        for (int i = a; i < b; i = c.skip(i, b)) {
            if (c.is(i, TokenKind.TYPECAST)) {
                if (firstCast == b) {
                    firstCast = i;
                }
                if (lastCast >= 0 && lastCast + 1 == i) {
                    return null;
                }
                lastCast = i;
            }
        }
        String cast = null;
        if (lastCast >= 0) {
            if (lastCast + 1 >= b) {
                return null;
            }
            cast = c.typeText(lastCast + 1, b);
        }
        return base(a, firstCast, cast, c.range(from, to));
    }

    private SqlValue base(int a, int b, String cast, SourceRange range) {
        int count = b - a;
        if (count <= 0) {
            return null;
        }
        TokenKind kind = c.tokens.kind(a);
        if (count == 1) {
            if (kind.isNumber()) {
                return number(a, false, cast, range);
            }
            if (kind.isCharacterString()) {
                return new LiteralValue(LiteralKind.STRING, c.tokens.stringValue(a), Optional.ofNullable(cast), range);
            }
            if (kind.isParameter()) {
                return new ParameterValue(c.tokens.parameterNumber(a), Optional.ofNullable(cast), range);
            }
            if (c.kw(a, Keyword.TRUE) || c.kw(a, Keyword.FALSE)) {
                return new LiteralValue(LiteralKind.BOOLEAN, c.kw(a, Keyword.TRUE) ? "true" : "false",
                        Optional.ofNullable(cast), range);
            }
            return null;
        }
        if (count == 2 && (c.op(a, "-") || c.op(a, "+")) && c.tokens.kind(a + 1).isNumber()) {
            return number(a + 1, c.op(a, "-"), cast, range);
        }
        if (c.kw(a, Keyword.CAST) && c.is(a + 1, TokenKind.LEFT_PAREN) && c.close(a + 1) == b - 1) {
            int as = lastAs(a + 2, b - 1);
            if (as < 0 || as + 1 >= b - 1) {
                return null;
            }
            SqlValue inner = value(a + 2, as);
            String type = cast != null ? cast : c.typeText(as + 1, b - 1);
            return withType(inner, type, range);
        }
        if (c.tokens.kind(b - 1).isCharacterString() && isTypeName(a, b - 1)) {
            String type = cast != null ? cast : c.typeText(a, b - 1);
            return new LiteralValue(LiteralKind.STRING, c.tokens.stringValue(b - 1), Optional.of(type), range);
        }
        return null;
    }

    /** Words such as {@code DATE}, {@code int8}, {@code TIMESTAMP WITH TIME ZONE}, as in a typed literal. */
    private boolean isTypeName(int a, int b) {
        if (b - a > 4 || !c.is(a, TokenKind.IDENTIFIER)) {
            return false;
        }
        Keyword first = c.keyword(a);
        if (first != Keyword.NONE && first.category() == Keyword.Category.RESERVED) {
            return false;
        }
        for (int i = a; i < b; i++) {
            if (!c.is(i, TokenKind.IDENTIFIER)) {
                return false;
            }
        }
        return true;
    }

    private int lastAs(int from, int to) {
        int result = -1;
        for (int i = from; i < to; i = c.skip(i, to)) {
            if (c.kw(i, Keyword.AS)) {
                result = i;
            }
        }
        return result;
    }

    private static SqlValue withType(SqlValue inner, String type, SourceRange range) {
        if (inner instanceof LiteralValue literal) {
            return new LiteralValue(literal.kind(), literal.value(), Optional.of(type), range);
        }
        if (inner instanceof ParameterValue parameter) {
            return new ParameterValue(parameter.number(), Optional.of(type), range);
        }
        return null;
    }

    private LiteralValue number(int i, boolean negative, String cast, SourceRange range) {
        String text = c.tokens.text(i).replace("_", "");
        if (c.tokens.kind(i) == TokenKind.INTEGER) {
            if (isCanonicalDecimal(text)) {
                // already as BigInteger would print it: skip the round trip (every literal key of a simple query)
                String value = negative && !text.equals("0") ? "-" + text : text;
                return new LiteralValue(LiteralKind.INTEGER, value, Optional.ofNullable(cast), range);
            }
            BigInteger value = integer(text);
            if (negative) {
                value = value.negate();
            }
            return new LiteralValue(LiteralKind.INTEGER, value.toString(), Optional.ofNullable(cast), range);
        }
        return new LiteralValue(LiteralKind.DECIMAL, negative ? "-" + text : text, Optional.ofNullable(cast), range);
    }

    /** Decimal digits with no leading zero (or just "0"): the text {@link BigInteger#toString()} gives back unchanged. */
    private static boolean isCanonicalDecimal(String text) {
        int n = text.length();
        if (n == 0 || n > 1 && text.charAt(0) == '0') {
            return false;
        }
        for (int k = 0; k < n; k++) {
            char digit = text.charAt(k);
            if (digit < '0' || digit > '9') {
                return false;
            }
        }
        return true;
    }

    private static BigInteger integer(String text) {
        if (text.length() > 2 && text.charAt(0) == '0') {
            switch (text.charAt(1)) {
                case 'x', 'X' -> {
                    return new BigInteger(text.substring(2), 16);
                }
                case 'o', 'O' -> {
                    return new BigInteger(text.substring(2), 8);
                }
                case 'b', 'B' -> {
                    return new BigInteger(text.substring(2), 2);
                }
                default -> {
                    // decimal with leading zeros
                }
            }
        }
        return new BigInteger(text);
    }
}
