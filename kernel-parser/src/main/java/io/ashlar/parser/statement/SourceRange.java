package io.ashlar.parser.statement;

/**
 * Characters {@code [start, end)} of the analysed SQL text. Rewriting splices the user's own text
 * around these ranges, so they are always exact: they cover the tokens named and nothing else
 * (no surrounding whitespace or comments).
 *
 * @param start offset of the first character
 * @param end   offset just past the last character; {@code start == end} marks an insertion point
 */
public record SourceRange(int start, int end) {
    public SourceRange {
        if (start < 0 || end < start) {
            throw new IllegalArgumentException("bad range [" + start + ", " + end + ")");
        }
    }

    /** An empty range at {@code position}: where text may be inserted. */
    public static SourceRange at(int position) {
        return new SourceRange(position, position);
    }

    public int length() {
        return end - start;
    }

    public boolean isEmpty() {
        return start == end;
    }

    /** The covered text of {@code sql}. */
    public String text(String sql) {
        return sql.substring(start, end);
    }

    @Override
    public String toString() {
        return "[" + start + "," + end + ")";
    }
}
