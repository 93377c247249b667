package io.ashlar.backend.datasource;

import io.ashlar.parser.lexer.Keyword;
import io.ashlar.parser.lexer.Lexer;
import io.ashlar.parser.lexer.SqlSyntaxException;
import io.ashlar.parser.lexer.TokenKind;
import io.ashlar.parser.lexer.TokenList;

/**
 * pgjdbc's {@code reWriteBatchedInserts}, for batches the proxy runs: an
 * {@code INSERT ... VALUES (...)} of one row, run for many rows, becomes one INSERT of many
 * rows ({@code VALUES ($1, $2), ($3, $4), ...}), so the backend parses, plans and answers once
 * per chunk instead of once per row. Only a statement whose single VALUES row ends it (no
 * ON CONFLICT, no RETURNING) and whose markers are {@code $1..$n} qualifies. The text is read by
 * the project's lexer, so quotes, E'' strings, dollar quotes and comments are what PostgreSQL
 * says they are.
 */
final class InsertRowsRewrite {

    /** pgjdbc's limit on rows per rewritten statement; the backend's limit is 65535 parameters. */
    private static final int MAX_ROWS = 128;
    private static final int MAX_PARAMETERS = 32767;

    private final String head;
    /** The VALUES row between its markers: {@code pieces[k]}, marker {@code markers[k]}, ..., the last piece. */
    private final String[] pieces;
    private final int[] markers;
    private final int parameterCount;
    private final String[] bySize = new String[MAX_ROWS + 1];

    private InsertRowsRewrite(String head, String[] pieces, int[] markers, int parameterCount) {
        this.head = head;
        this.pieces = pieces;
        this.markers = markers;
        this.parameterCount = parameterCount;
    }

    /** The rewrite of this statement, or null when it does not qualify. */
    static InsertRowsRewrite of(String sql, int parameterCount) {
        if (parameterCount == 0) {
            return null;
        }
        TokenList tokens;
        try {
            tokens = Lexer.tokenize(sql);
        } catch (SqlSyntaxException e) {
            return null;
        }
        int size = tokens.size();
        if (size == 0 || !tokens.isKeyword(0, Keyword.INSERT)) {
            return null;
        }
        int values = -1;
        int depth = 0;
        for (int i = 0; i < size; i++) {
            TokenKind kind = tokens.kind(i);
            if (kind == TokenKind.LEFT_PAREN) {
                depth++;
            } else if (kind == TokenKind.RIGHT_PAREN) {
                depth--;
            } else if (depth == 0 && tokens.isKeyword(i, Keyword.VALUES)) {
                values = i;
            }
        }
        int open = values + 1;
        if (values < 0 || open >= size || tokens.kind(open) != TokenKind.LEFT_PAREN) {
            return null;
        }
        int close = -1;
        depth = 0;
        for (int i = open; i < size && close < 0; i++) {
            if (tokens.kind(i) == TokenKind.LEFT_PAREN) {
                depth++;
            } else if (tokens.kind(i) == TokenKind.RIGHT_PAREN && --depth == 0) {
                close = i;
            }
        }
        if (close < 0) {
            return null;
        }
        for (int i = close + 1; i < size; i++) {
            if (tokens.kind(i) != TokenKind.SEMICOLON) {
                return null; // ON CONFLICT, RETURNING, a second row: left as it is
            }
        }
        java.util.List<String> pieces = new java.util.ArrayList<>();
        java.util.List<Integer> markers = new java.util.ArrayList<>();
        int from = tokens.start(open);
        for (int i = open + 1; i < close; i++) {
            if (tokens.kind(i) == TokenKind.JDBC_PARAMETER) {
                return null;
            }
            if (tokens.kind(i) == TokenKind.PARAMETER) {
                int n = tokens.parameterNumber(i);
                if (n < 1 || n > parameterCount) {
                    return null;
                }
                pieces.add(sql.substring(from, tokens.start(i)));
                markers.add(n);
                from = tokens.end(i);
            }
        }
        pieces.add(sql.substring(from, tokens.end(close)));
        int[] numbers = new int[markers.size()];
        for (int k = 0; k < numbers.length; k++) {
            numbers[k] = markers.get(k);
        }
        return new InsertRowsRewrite(sql.substring(0, tokens.start(open)), pieces.toArray(new String[0]), numbers,
                parameterCount);
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
        StringBuilder out = new StringBuilder(head.length() + rows * 16 * (pieces.length + 1)).append(head);
        for (int k = 0; k < rows; k++) {
            if (k > 0) {
                out.append(", ");
            }
            int offset = k * parameterCount;
            for (int m = 0; m < markers.length; m++) {
                out.append(pieces[m]).append('$').append(markers[m] + offset);
            }
            out.append(pieces[markers.length]);
        }
        String result = out.toString();
        bySize[rows] = result;
        return result;
    }
}
