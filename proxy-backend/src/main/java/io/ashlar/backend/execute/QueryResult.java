package io.ashlar.backend.execute;

import java.util.List;

/**
 * The result of one extended-protocol statement, read by the client in one or more Executes:
 * its columns (when it returns rows), its rows one at a time, and its command tag at the end.
 */
public interface QueryResult {

    /** Whether the statement returns rows (has a RowDescription). */
    boolean hasRows();

    /** The result columns the client sees; only when {@link #hasRows()}. */
    ColumnDescription[] columns();

    /** Moves to the next row; false at the end. */
    boolean next() throws StatementFailure;

    /** The current row, valid until the next call to {@link #next()}. */
    RowValues row();

    /** The command tag once every row was read ({@code SELECT 12}, {@code INSERT 0 3}). */
    String tag();

    /** The statement was empty (EmptyQueryResponse). */
    boolean isEmptyQuery();

    /** Notices raised while the statement ran, to pass on before its rows. */
    List<ErrorFields> notices();

    /**
     * The result format codes the rows already carry, as the client gave them in its Bind (the
     * backend was asked for them and produced them: rows go out as they are, binary included);
     * null when the rows are text, as the proxy reads them, and the frontend converts the columns
     * the client asked for in binary. A result that wraps another answers what the other answers.
     */
    default short[] rowFormats() {
        return null;
    }

    /** Releases what the result holds (open shard cursors); idempotent. */
    default void close() {
    }
}
