package io.ashlar.parser.lexer;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Turns the source text of identifier and string tokens into the values PostgreSQL gives them: case
 * folding and truncation of names (<a href="https://www.postgresql.org/docs/current/sql-syntax-lexical.html#SQL-SYNTAX-IDENTIFIERS">4.1.1</a>),
 * quote doubling, C-style and Unicode escapes, and continuation of adjacent string segments
 * (<a href="https://www.postgresql.org/docs/current/sql-syntax-lexical.html#SQL-SYNTAX-CONSTANTS">4.1.2</a>).
 * Called only on demand, never per token while lexing.
 */
final class TokenText {
    /** NAMEDATALEN - 1: the longest identifier PostgreSQL keeps, in bytes. */
    static final int MAX_IDENTIFIER_BYTES = 63;

    private TokenText() {
    }

    static String identifier(String sql, TokenKind kind, int start, int end) {
        return switch (kind) {
            case IDENTIFIER -> truncate(downcase(sql, start, end));
            case QUOTED_IDENTIFIER -> truncate(undouble(sql, start + 1, end - 1, '"'));
            case UNICODE_IDENTIFIER -> {
                int close = closingQuote(sql, start + 3, '"');
                yield truncate(unicodeUnescape(undouble(sql, start + 3, close, '"'), escapeChar(sql, close + 1, end)));
            }
            default -> sql.substring(start, end);
        };
    }

    static String stringValue(String sql, TokenKind kind, int start, int end) {
        return switch (kind) {
            case STRING -> segments(sql, start, end, kind);
            case NATIONAL_STRING, ESCAPE_STRING, BIT_STRING, HEX_STRING -> segments(sql, start + 1, end, kind);
            case UNICODE_STRING -> {
                String raw = segments(sql, start + 2, end, kind);
                yield unicodeUnescape(raw, escapeChar(sql, lastSegmentEnd(sql, start + 2, end), end));
            }
            case DOLLAR_STRING -> {
                int delimiter = sql.indexOf('$', start + 1) + 1 - start;
                yield sql.substring(start + delimiter, end - delimiter);
            }
            default -> sql.substring(start, end);
        };
    }

    private static String downcase(String sql, int start, int end) {
        int i = start;
        while (i < end) {
            char c = sql.charAt(i);
            if (c >= 'A' && c <= 'Z') {
                break;
            }
            i++;
        }
        if (i == end) {
            return sql.substring(start, end);
        }
        char[] chars = new char[end - start];
        for (int j = start; j < end; j++) {
            char c = sql.charAt(j);
            chars[j - start] = c >= 'A' && c <= 'Z' ? (char) (c + ('a' - 'A')) : c;
        }
        return new String(chars);
    }

    /** Truncates to {@value #MAX_IDENTIFIER_BYTES} bytes of UTF-8 on a character boundary, as PostgreSQL does. */
    static String truncate(String name) {
        if (name.length() <= MAX_IDENTIFIER_BYTES / 4) {
            return name;
        }
        int bytes = 0;
        for (int i = 0; i < name.length(); ) {
            int codePoint = name.codePointAt(i);
            int width = codePoint < 0x80 ? 1 : codePoint < 0x800 ? 2 : codePoint < 0x10000 ? 3 : 4;
            if (bytes + width > MAX_IDENTIFIER_BYTES) {
                return name.substring(0, i);
            }
            bytes += width;
            i += Character.charCount(codePoint);
        }
        return name;
    }

    private static String undouble(String sql, int start, int end, char quote) {
        int first = sql.indexOf(quote, start);
        if (first < 0 || first >= end) {
            return sql.substring(start, end);
        }
        StringBuilder result = new StringBuilder(end - start);
        for (int i = start; i < end; i++) {
            char c = sql.charAt(i);
            result.append(c);
            if (c == quote && i + 1 < end && sql.charAt(i + 1) == quote) {
                i++;
            }
        }
        return result.toString();
    }

    private static int closingQuote(String sql, int from, char quote) {
        int i = from;
        while (i < sql.length()) {
            if (sql.charAt(i) == quote) {
                if (i + 1 < sql.length() && sql.charAt(i + 1) == quote) {
                    i += 2;
                    continue;
                }
                return i;
            }
            i++;
        }
        return sql.length();
    }

    /** The escape character of a {@code U&} token: from {@code UESCAPE 'c'} in {@code [from, end)}, else backslash. */
    private static char escapeChar(String sql, int from, int end) {
        int quote = sql.indexOf('\'', from);
        if (quote < 0 || quote + 1 >= end) {
            return '\\';
        }
        return sql.charAt(quote + 1);
    }

    /**
     * Joins the segments of a quoted string whose first quote is at {@code quote}: a segment ends at a
     * quote not doubled (nor backslash-escaped in an {@code E''} string), and the next one starts at
     * the quote after the whitespace in between.
     */
    private static String segments(String sql, int quote, int end, TokenKind kind) {
        boolean escapes = kind == TokenKind.ESCAPE_STRING;
        boolean doubled = kind != TokenKind.BIT_STRING && kind != TokenKind.HEX_STRING;
        StringBuilder result = new StringBuilder(end - quote);
        ByteArrayOutputStream bytes = null;
        int i = quote + 1;
        while (i < end) {
            char c = sql.charAt(i);
            if (c == '\'') {
                if (doubled && i + 1 < end && sql.charAt(i + 1) == '\'') {
                    result.append('\'');
                    i += 2;
                    continue;
                }
                int next = nextSegment(sql, i + 1, end);
                if (next < 0) {
                    break;
                }
                i = next + 1;
                continue;
            }
            if (c == '\\' && escapes && i + 1 < end) {
                char e = sql.charAt(i + 1);
                i += 2;
                switch (e) {
                    case 'b' -> result.append('\b');
                    case 'f' -> result.append('\f');
                    case 'n' -> result.append('\n');
                    case 'r' -> result.append('\r');
                    case 't' -> result.append('\t');
                    case 'u', 'U' -> {
                        int digits = e == 'u' ? 4 : 8;
                        int value = hexValue(sql, i, Math.min(end, i + digits));
                        if (value >= 0 && i + digits <= end && Character.isValidCodePoint(value)) {
                            result.appendCodePoint(value);
                            i += digits;
                        } else {
                            result.append(e);
                        }
                    }
                    case 'x' -> {
                        int digits = 0;
                        int value = 0;
                        while (digits < 2 && i < end && Character.digit(sql.charAt(i), 16) >= 0) {
                            value = value * 16 + Character.digit(sql.charAt(i), 16);
                            i++;
                            digits++;
                        }
                        if (digits == 0) {
                            result.append('x');
                        } else {
                            bytes = appendByte(result, bytes, value, sql, i, end);
                        }
                    }
                    default -> {
                        if (e >= '0' && e <= '7') {
                            int value = e - '0';
                            int digits = 1;
                            while (digits < 3 && i < end && sql.charAt(i) >= '0' && sql.charAt(i) <= '7') {
                                value = value * 8 + (sql.charAt(i) - '0');
                                i++;
                                digits++;
                            }
                            bytes = appendByte(result, bytes, value & 0xFF, sql, i, end);
                        } else {
                            result.append(e);
                        }
                    }
                }
                continue;
            }
            result.append(c);
            i++;
        }
        return result.toString();
    }

    /**
     * Collects bytes written as {@code \xhh} or {@code \ooo}; once the run of byte escapes ends, decodes
     * them as UTF-8 (the server encoding the proxy assumes) into {@code result}.
     */
    private static ByteArrayOutputStream appendByte(StringBuilder result, ByteArrayOutputStream pending, int value,
                                                    String sql, int next, int end) {
        ByteArrayOutputStream bytes = pending == null ? new ByteArrayOutputStream() : pending;
        bytes.write(value);
        boolean more = next + 1 < end && sql.charAt(next) == '\\'
                && (sql.charAt(next + 1) == 'x' || (sql.charAt(next + 1) >= '0' && sql.charAt(next + 1) <= '7'));
        if (more) {
            return bytes;
        }
        result.append(bytes.toString(StandardCharsets.UTF_8));
        return null;
    }

    /** The quote that continues the string after a segment ending at {@code from}, or -1. */
    private static int nextSegment(String sql, int from, int end) {
        int i = from;
        boolean newline = false;
        while (i < end) {
            char c = sql.charAt(i);
            if (c == ' ' || c == '\t' || c == '\f' || c == '\u000B') {
                i++;
            } else if (c == '\n' || c == '\r') {
                newline = true;
                i++;
            } else if (c == '-' && i + 1 < end && sql.charAt(i + 1) == '-') {
                while (i < end && sql.charAt(i) != '\n' && sql.charAt(i) != '\r') {
                    i++;
                }
            } else {
                break;
            }
        }
        return newline && i < end && sql.charAt(i) == '\'' ? i : -1;
    }

    /** Offset just past the closing quote of the last segment of a U&'' string (where UESCAPE may follow). */
    private static int lastSegmentEnd(String sql, int quote, int end) {
        int i = quote + 1;
        while (i < end) {
            if (sql.charAt(i) == '\'') {
                if (i + 1 < end && sql.charAt(i + 1) == '\'') {
                    i += 2;
                    continue;
                }
                int next = nextSegment(sql, i + 1, end);
                if (next < 0) {
                    return i + 1;
                }
                i = next + 1;
                continue;
            }
            i++;
        }
        return end;
    }

    private static int hexValue(String sql, int from, int to) {
        if (from >= to) {
            return -1;
        }
        int value = 0;
        for (int i = from; i < to; i++) {
            int digit = Character.digit(sql.charAt(i), 16);
            if (digit < 0) {
                return -1;
            }
            value = value * 16 + digit;
        }
        return value;
    }

    /** Decodes {@code \XXXX}, {@code \+XXXXXX} and a doubled escape character, as for {@code U&} constants. */
    private static String unicodeUnescape(String text, char escape) {
        if (text.indexOf(escape) < 0) {
            return text;
        }
        StringBuilder result = new StringBuilder(text.length());
        int i = 0;
        while (i < text.length()) {
            char c = text.charAt(i);
            if (c != escape) {
                result.append(c);
                i++;
                continue;
            }
            if (i + 1 < text.length() && text.charAt(i + 1) == escape) {
                result.append(escape);
                i += 2;
                continue;
            }
            int value;
            int consumed;
            if (i + 1 < text.length() && text.charAt(i + 1) == '+') {
                value = i + 8 <= text.length() ? hexValue(text, i + 2, i + 8) : -1;
                consumed = 8;
            } else {
                value = i + 5 <= text.length() ? hexValue(text, i + 1, i + 5) : -1;
                consumed = 5;
            }
            if (value < 0 || !Character.isValidCodePoint(value)) {
                result.append(c);
                i++;
                continue;
            }
            // A UTF-16 surrogate pair written as two escapes is one character.
            if (Character.isHighSurrogate((char) value) && value < 0x10000) {
                result.append((char) value);
            } else {
                result.appendCodePoint(value);
            }
            i += consumed;
        }
        return result.toString();
    }
}
