package io.ashlar.merge.plan;

/**
 * One key of an ORDER BY (or of the order the shards return their groups in), over a column of
 * the shard rows.
 *
 * <p>NULLs sort as PostgreSQL sorts them: by default as if larger than every value, so
 * {@code NULLS LAST} for ASC and {@code NULLS FIRST} for DESC
 * (<a href="https://www.postgresql.org/docs/current/queries-order.html">Sorting Rows</a>).
 *
 * @param column zero-based column index in the shard rows
 * @param descending DESC
 * @param nullsFirst whether NULLs come before every non-NULL value in the output
 */
public record SortKey(int column, boolean descending, boolean nullsFirst) {

    public SortKey {
        if (column < 0) {
            throw new IllegalArgumentException("column must be >= 0: " + column);
        }
    }

    /** {@code ORDER BY column ASC}, NULLS LAST as PostgreSQL defaults. */
    public static SortKey ascending(int column) {
        return new SortKey(column, false, false);
    }

    /** {@code ORDER BY column DESC}, NULLS FIRST as PostgreSQL defaults. */
    public static SortKey descending(int column) {
        return new SortKey(column, true, true);
    }

    /** Prints the key as EXPLAIN shows it: {@code #2 DESC NULLS LAST}. */
    public String describe() {
        return "#" + column + (descending ? " DESC" : " ASC") + (nullsFirst ? " NULLS FIRST" : " NULLS LAST");
    }
}
