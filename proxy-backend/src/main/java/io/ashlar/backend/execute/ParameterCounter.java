package io.ashlar.backend.execute;

/**
 * Counts the {@code $n} parameters of a statement (the highest n), skipping string constants,
 * quoted identifiers, dollar-quoted strings and comments, as PostgreSQL's lexer would. Used to
 * size a statement's parameter list before the backend has described it.
 */
public final class ParameterCounter {

    private ParameterCounter() {
    }

    public static int count(String sql) {
        if (startsWithKeyword(sql, "prepare")) {
            // PREPARE name AS ...: the $n belong to the statement being prepared, not to this one.
            return 0;
        }
        int result = 0;
        int n = sql.length();
        int i = 0;
        while (i < n) {
            char c = sql.charAt(i);
            if (c == '\'' || c == '"') {
                i = skipQuoted(sql, i, c);
            } else if (c == '-' && i + 1 < n && sql.charAt(i + 1) == '-') {
                int end = sql.indexOf('\n', i);
                i = end < 0 ? n : end + 1;
            } else if (c == '/' && i + 1 < n && sql.charAt(i + 1) == '*') {
                i = skipBlockComment(sql, i);
            } else if (c == '$') {
                int j = i + 1;
                if (j < n && Character.isDigit(sql.charAt(j))) {
                    int value = 0;
                    while (j < n && Character.isDigit(sql.charAt(j)) && value < 100_000) {
                        value = value * 10 + (sql.charAt(j) - '0');
                        j++;
                    }
                    if (i == 0 || !isIdentifierPart(sql.charAt(i - 1))) {
                        result = Math.max(result, value);
                    }
                    i = j;
                } else {
                    i = skipDollarQuoted(sql, i);
                }
            } else {
                i++;
            }
        }
        return result;
    }

    /** Whether the statement's first word (after blanks and comments) is the keyword. */
    public static boolean startsWithKeyword(String sql, String keyword) {
        int i = 0;
        int n = sql.length();
        while (i < n) {
            char c = sql.charAt(i);
            if (Character.isWhitespace(c)) {
                i++;
            } else if (c == '-' && i + 1 < n && sql.charAt(i + 1) == '-') {
                int end = sql.indexOf('\n', i);
                i = end < 0 ? n : end + 1;
            } else if (c == '/' && i + 1 < n && sql.charAt(i + 1) == '*') {
                int end = sql.indexOf("*/", i + 2);
                i = end < 0 ? n : end + 2;
            } else {
                break;
            }
        }
        int end = i + keyword.length();
        return end <= n && sql.regionMatches(true, i, keyword, 0, keyword.length())
                && (end == n || !Character.isLetterOrDigit(sql.charAt(end)) && sql.charAt(end) != '_');
    }

    private static boolean isIdentifierPart(char c) {
        return Character.isLetterOrDigit(c) || c == '_' || c == '$';
    }

    private static int skipQuoted(String sql, int start, char quote) {
        boolean backslashEscapes = quote == '\'' && start > 0 && (sql.charAt(start - 1) == 'E' || sql.charAt(start - 1) == 'e')
                && (start < 2 || !isIdentifierPart(sql.charAt(start - 2)));
        int i = start + 1;
        int n = sql.length();
        while (i < n) {
            char c = sql.charAt(i);
            if (backslashEscapes && c == '\\') {
                i += 2;
            } else if (c == quote) {
                if (i + 1 < n && sql.charAt(i + 1) == quote) {
                    i += 2;
                } else {
                    return i + 1;
                }
            } else {
                i++;
            }
        }
        return n;
    }

    private static int skipBlockComment(String sql, int start) {
        int depth = 0;
        int i = start;
        int n = sql.length();
        while (i < n) {
            if (sql.startsWith("/*", i)) {
                depth++;
                i += 2;
            } else if (sql.startsWith("*/", i)) {
                depth--;
                i += 2;
                if (depth == 0) {
                    return i;
                }
            } else {
                i++;
            }
        }
        return n;
    }

    private static int skipDollarQuoted(String sql, int start) {
        int n = sql.length();
        int j = start + 1;
        while (j < n && (Character.isLetterOrDigit(sql.charAt(j)) || sql.charAt(j) == '_')) {
            j++;
        }
        if (j >= n || sql.charAt(j) != '$' || (start > 0 && isIdentifierPart(sql.charAt(start - 1)))) {
            return start + 1;
        }
        String tag = sql.substring(start, j + 1);
        int end = sql.indexOf(tag, j + 1);
        return end < 0 ? n : end + tag.length();
    }
}
