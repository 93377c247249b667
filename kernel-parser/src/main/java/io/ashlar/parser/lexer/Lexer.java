package io.ashlar.parser.lexer;

import java.util.Arrays;

/**
 * A hand-written PostgreSQL lexer following
 * <a href="https://www.postgresql.org/docs/current/sql-syntax-lexical.html">4.1. Lexical Structure</a>
 * and {@code src/backend/parser/scan.l} of PostgreSQL 16: identifiers (unquoted, {@code "quoted"},
 * {@code U&"unicode"} with {@code UESCAPE}), string constants ({@code '...'}, {@code E'...'},
 * {@code U&'...'}, {@code N'...'}, {@code B'...'}, {@code X'...'}, dollar quoting, and continuation
 * of adjacent strings separated by a newline), numbers (with {@code 0x}/{@code 0o}/{@code 0b}
 * prefixes and {@code _} digit separators), operators (including the rule that a multi-character
 * operator ends in {@code +} or {@code -} only if it also holds one of {@code ~ ! @ # % ^ & | ` ?}),
 * {@code ::}, {@code $n} parameters, nested comments and punctuation.
 *
 * <p>JDBC-style {@code ?} markers are recognised only when asked for, with pgjdbc's convention that
 * {@code ??} stands for a literal {@code ?} inside an operator; otherwise {@code ?} is an operator
 * character, as in PostgreSQL (jsonb's {@code ?}, {@code ?|}, {@code ?&}).
 *
 * <p>Deliberate differences from PostgreSQL: no {@code standard_conforming_strings = off} mode; a
 * number directly followed by letters ({@code 123abc}) is a number and a word, as before PostgreSQL
 * 15, instead of the "trailing junk" error; invalid escapes inside {@code U&} and {@code E} strings are
 * left to the server to reject.
 */
public final class Lexer {
    private final String sql;
    private final int length;
    private final boolean jdbcMarkers;
    private byte[] kinds;
    private int[] starts;
    private int[] ends;
    private int[] extras;
    private int size;
    private int jdbcOrdinal;

    private Lexer(String sql, boolean jdbcMarkers) {
        this.sql = sql;
        this.length = sql.length();
        this.jdbcMarkers = jdbcMarkers;
        int capacity = Math.max(16, length / 4);
        kinds = new byte[capacity];
        starts = new int[capacity];
        ends = new int[capacity];
        extras = new int[capacity];
    }

    /** Tokenizes {@code sql}, treating {@code ?} as an operator character, as PostgreSQL does. */
    public static TokenList tokenize(String sql) {
        return tokenize(sql, false);
    }

    /**
     * Tokenizes {@code sql}.
     *
     * @param jdbcMarkers whether a {@code ?} outside quotes and comments is a parameter marker
     * @throws SqlSyntaxException on an unterminated quoted string, identifier, dollar quote or comment
     */
    public static TokenList tokenize(String sql, boolean jdbcMarkers) {
        Lexer lexer = new Lexer(sql, jdbcMarkers);
        lexer.run();
        return new TokenList(sql, lexer.kinds, lexer.starts, lexer.ends, lexer.extras, lexer.size);
    }

    private void run() {
        int p = 0;
        while (p < length) {
            char c = sql.charAt(p);
            switch (c) {
                case ' ', '\t', '\n', '\r', '\f', '\u000B' -> p++;
                case '-' -> p = charAt(p + 1) == '-' ? skipLineComment(p) : operator(p);
                case '/' -> p = charAt(p + 1) == '*' ? skipBlockComment(p) : operator(p);
                case '\'' -> p = quotedString(p, p + 1, TokenKind.STRING);
                case '"' -> p = quotedIdentifier(p, p + 1, TokenKind.QUOTED_IDENTIFIER);
                case '$' -> p = dollar(p);
                case '(' -> p = single(p, TokenKind.LEFT_PAREN);
                case ')' -> p = single(p, TokenKind.RIGHT_PAREN);
                case '[' -> p = single(p, TokenKind.LEFT_BRACKET);
                case ']' -> p = single(p, TokenKind.RIGHT_BRACKET);
                case ',' -> p = single(p, TokenKind.COMMA);
                case ';' -> p = single(p, TokenKind.SEMICOLON);
                case '.' -> {
                    if (isDigit(charAt(p + 1))) {
                        p = number(p);
                    } else if (charAt(p + 1) == '.') {
                        add(TokenKind.DOT_DOT, p, p + 2, 0);
                        p += 2;
                    } else {
                        p = single(p, TokenKind.DOT);
                    }
                }
                case ':' -> {
                    char next = charAt(p + 1);
                    if (next == ':') {
                        add(TokenKind.TYPECAST, p, p + 2, 0);
                        p += 2;
                    } else if (next == '=') {
                        add(TokenKind.COLON_EQUALS, p, p + 2, 0);
                        p += 2;
                    } else {
                        p = single(p, TokenKind.COLON);
                    }
                }
                case '?' -> {
                    if (jdbcMarkers && charAt(p + 1) != '?') {
                        add(TokenKind.JDBC_PARAMETER, p, p + 1, ++jdbcOrdinal);
                        p++;
                    } else {
                        p = operator(p);
                    }
                }
                default -> {
                    if (isDigit(c)) {
                        p = number(p);
                    } else if (isIdentifierStart(c)) {
                        p = word(p);
                    } else if (isOperatorChar(c)) {
                        p = operator(p);
                    } else {
                        p = single(p, TokenKind.OTHER);
                    }
                }
            }
        }
    }

    private char charAt(int i) {
        return i < length ? sql.charAt(i) : '\0';
    }

    private void add(TokenKind kind, int start, int end, int extra) {
        if (size == kinds.length) {
            int capacity = size * 2;
            kinds = Arrays.copyOf(kinds, capacity);
            starts = Arrays.copyOf(starts, capacity);
            ends = Arrays.copyOf(ends, capacity);
            extras = Arrays.copyOf(extras, capacity);
        }
        kinds[size] = (byte) kind.ordinal();
        starts[size] = start;
        ends[size] = end;
        extras[size] = extra;
        size++;
    }

    private int single(int p, TokenKind kind) {
        add(kind, p, p + 1, 0);
        return p + 1;
    }

    // ---- comments

    private int skipLineComment(int p) {
        int q = p + 2;
        while (q < length) {
            char c = sql.charAt(q);
            if (c == '\n' || c == '\r') {
                break;
            }
            q++;
        }
        return q;
    }

    private int skipBlockComment(int p) {
        int depth = 1;
        int q = p + 2;
        while (q < length) {
            char c = sql.charAt(q);
            if (c == '/' && charAt(q + 1) == '*') {
                depth++;
                q += 2;
            } else if (c == '*' && charAt(q + 1) == '/') {
                q += 2;
                if (--depth == 0) {
                    return q;
                }
            } else {
                q++;
            }
        }
        throw new SqlSyntaxException("unterminated /* comment", sql, p);
    }

    /** Skips whitespace and comments; an unterminated comment is left for the main loop to report. */
    private int skipSpace(int p) {
        int q = p;
        while (q < length) {
            char c = sql.charAt(q);
            if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\u000B') {
                q++;
            } else if (c == '-' && charAt(q + 1) == '-') {
                q = skipLineComment(q);
            } else if (c == '/' && charAt(q + 1) == '*') {
                int depth = 1;
                int r = q + 2;
                while (r < length && depth > 0) {
                    if (sql.charAt(r) == '/' && charAt(r + 1) == '*') {
                        depth++;
                        r += 2;
                    } else if (sql.charAt(r) == '*' && charAt(r + 1) == '/') {
                        depth--;
                        r += 2;
                    } else {
                        r++;
                    }
                }
                if (depth > 0) {
                    return q;
                }
                q = r;
            } else {
                break;
            }
        }
        return q;
    }

    // ---- words, quoted identifiers and prefixed strings

    private int word(int p) {
        char c = sql.charAt(p);
        char next = charAt(p + 1);
        if (next == '\'') {
            switch (c) {
                case 'e', 'E' -> {
                    return quotedString(p, p + 2, TokenKind.ESCAPE_STRING);
                }
                case 'b', 'B' -> {
                    return quotedString(p, p + 2, TokenKind.BIT_STRING);
                }
                case 'x', 'X' -> {
                    return quotedString(p, p + 2, TokenKind.HEX_STRING);
                }
                case 'n', 'N' -> {
                    return quotedString(p, p + 2, TokenKind.NATIONAL_STRING);
                }
                default -> {
                    // an identifier directly followed by a string: handled below
                }
            }
        }
        if ((c == 'u' || c == 'U') && next == '&') {
            char quote = charAt(p + 2);
            if (quote == '\'') {
                return quotedString(p, p + 3, TokenKind.UNICODE_STRING);
            }
            if (quote == '"') {
                return quotedIdentifier(p, p + 3, TokenKind.UNICODE_IDENTIFIER);
            }
        }
        int q = p + 1;
        while (q < length && isIdentifierPart(sql.charAt(q))) {
            q++;
        }
        add(TokenKind.IDENTIFIER, p, q, Keyword.lookup(sql, p, q).ordinal());
        return q;
    }

    private int quotedIdentifier(int tokenStart, int contentStart, TokenKind kind) {
        int q = contentStart;
        while (true) {
            if (q >= length) {
                throw new SqlSyntaxException("unterminated quoted identifier", sql, tokenStart);
            }
            if (sql.charAt(q) == '"') {
                if (charAt(q + 1) == '"') {
                    q += 2;
                    continue;
                }
                break;
            }
            q++;
        }
        if (q == contentStart) {
            throw new SqlSyntaxException("zero-length delimited identifier", sql, tokenStart);
        }
        int end = q + 1;
        if (kind == TokenKind.UNICODE_IDENTIFIER) {
            end = uescape(end);
        }
        add(kind, tokenStart, end, 0);
        return end;
    }

    private int quotedString(int tokenStart, int contentStart, TokenKind kind) {
        boolean backslashEscapes = kind == TokenKind.ESCAPE_STRING;
        boolean doubledQuotes = kind != TokenKind.BIT_STRING && kind != TokenKind.HEX_STRING;
        int q = contentStart;
        while (true) {
            while (true) {
                if (q >= length) {
                    throw new SqlSyntaxException(unterminatedMessage(kind), sql, tokenStart);
                }
                char c = sql.charAt(q);
                if (c == '\\' && backslashEscapes) {
                    q += 2;
                } else if (c == '\'') {
                    if (doubledQuotes && charAt(q + 1) == '\'') {
                        q += 2;
                    } else {
                        q++;
                        break;
                    }
                } else {
                    q++;
                }
            }
            int continuation = continuation(q);
            if (continuation < 0) {
                break;
            }
            q = continuation + 1;
        }
        int end = q;
        if (kind == TokenKind.UNICODE_STRING) {
            end = uescape(end);
        }
        add(kind, tokenStart, end, 0);
        return end;
    }

    private static String unterminatedMessage(TokenKind kind) {
        return switch (kind) {
            case BIT_STRING -> "unterminated bit string literal";
            case HEX_STRING -> "unterminated hexadecimal string literal";
            default -> "unterminated quoted string";
        };
    }

    /**
     * The offset of the quote that continues a string constant ending at {@code p}, or -1. SQL joins
     * two string constants separated only by whitespace that holds at least one newline (and
     * {@code --} comments); see {@code quotecontinue} in scan.l.
     */
    int continuation(int p) {
        int q = p;
        boolean newline = false;
        while (q < length) {
            char c = sql.charAt(q);
            if (c == ' ' || c == '\t' || c == '\f' || c == '\u000B') {
                q++;
            } else if (c == '\n' || c == '\r') {
                newline = true;
                q++;
            } else if (c == '-' && charAt(q + 1) == '-') {
                q = skipLineComment(q);
            } else {
                break;
            }
        }
        return newline && q < length && sql.charAt(q) == '\'' ? q : -1;
    }

    /** Extends a {@code U&} token over a following {@code UESCAPE 'c'} clause, if there is one. */
    private int uescape(int end) {
        int q = skipSpace(end);
        if (q + 7 > length || !sql.regionMatches(true, q, "uescape", 0, 7) || isIdentifierPart(charAt(q + 7))) {
            return end;
        }
        int r = skipSpace(q + 7);
        if (charAt(r) != '\'') {
            return end;
        }
        int s = r + 1;
        while (s < length) {
            if (sql.charAt(s) == '\'') {
                if (charAt(s + 1) == '\'') {
                    s += 2;
                    continue;
                }
                return s + 1;
            }
            s++;
        }
        return end;
    }

    // ---- dollar: parameters and dollar quotes

    private int dollar(int p) {
        char next = charAt(p + 1);
        if (isDigit(next)) {
            int q = p + 1;
            long value = 0;
            while (q < length && isDigit(sql.charAt(q))) {
                value = Math.min(Integer.MAX_VALUE, value * 10 + (sql.charAt(q) - '0'));
                q++;
            }
            add(TokenKind.PARAMETER, p, q, (int) value);
            return q;
        }
        int tagEnd;
        if (next == '$') {
            tagEnd = p + 1;
        } else if (isDollarTagStart(next)) {
            int q = p + 2;
            while (q < length && isDollarTagPart(sql.charAt(q))) {
                q++;
            }
            if (charAt(q) != '$') {
                return single(p, TokenKind.OTHER);
            }
            tagEnd = q;
        } else {
            return single(p, TokenKind.OTHER);
        }
        int delimiterLength = tagEnd + 1 - p;
        int q = tagEnd + 1;
        while (q < length) {
            if (sql.charAt(q) == '$' && sql.regionMatches(q, sql, p, delimiterLength)) {
                int end = q + delimiterLength;
                add(TokenKind.DOLLAR_STRING, p, end, 0);
                return end;
            }
            q++;
        }
        throw new SqlSyntaxException("unterminated dollar-quoted string", sql, p);
    }

    // ---- numbers

    private int number(int p) {
        if (sql.charAt(p) == '0') {
            char prefix = charAt(p + 1);
            int radix = switch (prefix) {
                case 'x', 'X' -> 16;
                case 'o', 'O' -> 8;
                case 'b', 'B' -> 2;
                default -> 0;
            };
            if (radix != 0) {
                int q = p + 2;
                if (charAt(q) == '_') {
                    q++;
                }
                if (isRadixDigit(charAt(q), radix)) {
                    q = radixDigits(q, radix);
                    add(TokenKind.INTEGER, p, q, 0);
                    return q;
                }
            }
        }
        TokenKind kind = TokenKind.INTEGER;
        int q = p;
        if (isDigit(sql.charAt(q))) {
            q = radixDigits(q, 10);
            if (charAt(q) == '.') {
                if (charAt(q + 1) == '.') {
                    add(TokenKind.INTEGER, p, q, 0);
                    return q;
                }
                q++;
                kind = TokenKind.DECIMAL;
                if (isDigit(charAt(q))) {
                    q = radixDigits(q, 10);
                }
            }
        } else {
            kind = TokenKind.DECIMAL;
            q = radixDigits(q + 1, 10);
        }
        char e = charAt(q);
        if (e == 'e' || e == 'E') {
            int r = q + 1;
            char sign = charAt(r);
            if (sign == '+' || sign == '-') {
                r++;
            }
            if (isDigit(charAt(r))) {
                q = radixDigits(r, 10);
                kind = TokenKind.DECIMAL;
            }
        }
        add(kind, p, q, 0);
        return q;
    }

    /** Consumes digits with single underscores between them, starting at a digit. */
    private int radixDigits(int p, int radix) {
        int q = p + 1;
        while (q < length) {
            char c = sql.charAt(q);
            if (isRadixDigit(c, radix)) {
                q++;
            } else if (c == '_' && isRadixDigit(charAt(q + 1), radix)) {
                q += 2;
            } else {
                break;
            }
        }
        return q;
    }

    private static boolean isRadixDigit(char c, int radix) {
        return switch (radix) {
            case 2 -> c == '0' || c == '1';
            case 8 -> c >= '0' && c <= '7';
            case 10 -> isDigit(c);
            default -> isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
        };
    }

    // ---- operators

    private int operator(int p) {
        int q = p;
        while (q < length) {
            char c = sql.charAt(q);
            if (!isOperatorChar(c)) {
                break;
            }
            if (q > p && ((c == '-' && charAt(q + 1) == '-') || (c == '/' && charAt(q + 1) == '*'))) {
                break;
            }
            if (c == '?' && jdbcMarkers) {
                if (charAt(q + 1) == '?') {
                    q += 2;
                    continue;
                }
                break;
            }
            q++;
        }
        int end = q;
        if (end - p > 1 && isPlusOrMinus(sql.charAt(end - 1))) {
            boolean unusual = false;
            for (int i = p; i < end; i++) {
                if ("~!@#^&|`?%".indexOf(sql.charAt(i)) >= 0) {
                    unusual = true;
                    break;
                }
            }
            if (!unusual) {
                while (end - p > 1 && isPlusOrMinus(sql.charAt(end - 1))) {
                    end--;
                }
            }
        }
        add(TokenKind.OPERATOR, p, end, 0);
        return end;
    }

    private static boolean isPlusOrMinus(char c) {
        return c == '+' || c == '-';
    }

    // ---- character classes (scan.l)

    static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    static boolean isIdentifierStart(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80;
    }

    static boolean isIdentifierPart(char c) {
        return isIdentifierStart(c) || isDigit(c) || c == '$';
    }

    private static boolean isDollarTagStart(char c) {
        return isIdentifierStart(c);
    }

    private static boolean isDollarTagPart(char c) {
        return isIdentifierStart(c) || isDigit(c);
    }

    static boolean isOperatorChar(char c) {
        return switch (c) {
            case '~', '!', '@', '#', '^', '&', '|', '`', '?', '+', '-', '*', '/', '%', '<', '>', '=' -> true;
            default -> false;
        };
    }
}
