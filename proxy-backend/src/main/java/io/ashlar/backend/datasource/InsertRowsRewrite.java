package io.ashlar.backend.datasource;

/**
 * pgjdbc's {@code reWriteBatchedInserts}, for batches the proxy runs: an
 * {@code INSERT ... VALUES (...)} of one row, run for many rows, becomes one INSERT of many
 * rows ({@code VALUES ($1, $2), ($3, $4), ...}), so the backend parses, plans and answers once
 * per chunk instead of once per row. Only a statement whose single VALUES row ends it (no
 * ON CONFLICT, no RETURNING) and whose markers are plain {@code $n} qualifies.
 */
final class InsertRowsRewrite {

    /** pgjdbc's limit on rows per rewritten statement; the backend's limit is 65535 parameters. */
    private static final int MAX_ROWS = 128;
    private static final int MAX_PARAMETERS = 32767;

    private final String head;
    private final String row;
    private final int parameterCount;
    private final String[] bySize = new String[MAX_ROWS + 1];

    private InsertRowsRewrite(String head, String row, int parameterCount) {
        this.head = head;
        this.row = row;
        this.parameterCount = parameterCount;
    }

    /** The rewrite of this statement, or null when it does not qualify. */
    static InsertRowsRewrite of(String sql, int parameterCount) {
        if (parameterCount == 0 || !startsWithInsert(sql)) {
            return null;
        }
        int values = lastTopLevelValues(sql);
        if (values < 0) {
            return null;
        }
        int open = values + 6;
        while (open < sql.length() && Character.isWhitespace(sql.charAt(open))) {
            open++;
        }
        if (open >= sql.length() || sql.charAt(open) != '(') {
            return null;
        }
        int close = matchingParenthesis(sql, open);
        if (close < 0) {
            return null;
        }
        for (int i = close + 1; i < sql.length(); i++) {
            char c = sql.charAt(i);
            if (!Character.isWhitespace(c) && c != ';') {
                return null;
            }
        }
        String row = sql.substring(open, close + 1);
        if (!plainMarkers(row, parameterCount)) {
            return null;
        }
        return new InsertRowsRewrite(sql.substring(0, open), row, parameterCount);
    }

    /** Rows per rewritten statement. */
    int chunkRows() {
        return Math.min(MAX_ROWS, MAX_PARAMETERS / parameterCount);
    }

    /** The statement for {@code rows} rows: row k's {@code $n} becomes {@code $(n + k * parameterCount)}. */
    String sql(int rows) {
        String cached = bySize[rows];
        if (cached != null) {
            return cached;
        }
        StringBuilder out = new StringBuilder(head.length() + rows * (row.length() + 8)).append(head);
        for (int k = 0; k < rows; k++) {
            if (k > 0) {
                out.append(", ");
            }
            int offset = k * parameterCount;
            for (int i = 0; i < row.length(); i++) {
                char c = row.charAt(i);
                if (c == '\'' || c == '"') {
                    int end = row.indexOf(c, i + 1);
                    out.append(row, i, end + 1);
                    i = end;
                } else if (c == '$') {
                    int j = i + 1;
                    while (j < row.length() && Character.isDigit(row.charAt(j))) {
                        j++;
                    }
                    out.append('$').append(Integer.parseInt(row, i + 1, j, 10) + offset);
                    i = j - 1;
                } else {
                    out.append(c);
                }
            }
        }
        String result = out.toString();
        bySize[rows] = result;
        return result;
    }

    private static boolean startsWithInsert(String sql) {
        int i = 0;
        while (i < sql.length() && Character.isWhitespace(sql.charAt(i))) {
            i++;
        }
        return sql.regionMatches(true, i, "insert", 0, 6) && i + 6 < sql.length() && Character.isWhitespace(sql.charAt(i + 6));
    }

    /** The position of the last VALUES keyword outside quotes and parentheses, or -1. */
    private static int lastTopLevelValues(String sql) {
        int depth = 0;
        int found = -1;
        for (int i = 0; i < sql.length(); i++) {
            char c = sql.charAt(i);
            if (c == '\'' || c == '"') {
                int end = sql.indexOf(c, i + 1);
                if (end < 0) {
                    return -1;
                }
                i = end;
            } else if (c == '-' && i + 1 < sql.length() && sql.charAt(i + 1) == '-' || c == '/' && i + 1 < sql.length() && sql.charAt(i + 1) == '*') {
                return -1; // comments: leave the statement as it is
            } else if (c == '(') {
                depth++;
            } else if (c == ')') {
                depth--;
            } else if (depth == 0 && (c == 'v' || c == 'V') && sql.regionMatches(true, i, "values", 0, 6)
                    && (i == 0 || !Character.isLetterOrDigit(sql.charAt(i - 1)) && sql.charAt(i - 1) != '_')
                    && (i + 6 == sql.length() || !Character.isLetterOrDigit(sql.charAt(i + 6)) && sql.charAt(i + 6) != '_')) {
                found = i;
            }
        }
        return found;
    }

    private static int matchingParenthesis(String sql, int open) {
        int depth = 0;
        for (int i = open; i < sql.length(); i++) {
            char c = sql.charAt(i);
            if (c == '\'' || c == '"') {
                int end = sql.indexOf(c, i + 1);
                if (end < 0) {
                    return -1;
                }
                i = end;
            } else if (c == '(') {
                depth++;
            } else if (c == ')' && --depth == 0) {
                return i;
            }
        }
        return -1;
    }

    /** Whether every {@code $} in the row (outside quotes) is a marker {@code $1..$parameterCount}. */
    private static boolean plainMarkers(String row, int parameterCount) {
        for (int i = 0; i < row.length(); i++) {
            char c = row.charAt(i);
            if (c == '\'' || c == '"') {
                int end = row.indexOf(c, i + 1);
                if (end < 0) {
                    return false;
                }
                i = end;
            } else if (c == '$') {
                int j = i + 1;
                while (j < row.length() && Character.isDigit(row.charAt(j))) {
                    j++;
                }
                if (j == i + 1 || j - i > 6) {
                    return false;
                }
                int n = Integer.parseInt(row, i + 1, j, 10);
                if (n < 1 || n > parameterCount) {
                    return false;
                }
                i = j - 1;
            }
        }
        return true;
    }
}
