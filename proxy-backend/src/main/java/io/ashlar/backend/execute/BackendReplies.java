package io.ashlar.backend.execute;

import java.sql.SQLException;

/**
 * What a backend answers one statement (or the statements of one query string), in order: the
 * row description, the rows, the command tag; notices on the way; an error instead. Called on
 * the thread that runs the statement.
 */
public interface BackendReplies {

    /** RowDescription: the statement returns rows with these columns. */
    void columns(ColumnDescription[] columns);

    /** One DataRow, values in text format; the view is valid during the call only. */
    void row(RowValues row);

    /** CommandComplete. */
    void complete(String tag);

    /** EmptyQueryResponse. */
    void empty();

    /** NoticeResponse. */
    void notice(ErrorFields notice);

    /** ErrorResponse (a {@link BackendError}), or a failure of the connection itself. */
    void handleError(SQLException error);
}
