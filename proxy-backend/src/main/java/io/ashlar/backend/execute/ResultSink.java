package io.ashlar.backend.execute;

/**
 * Where a statement's results go, in the order the client must see them. The frontend
 * implements it by encoding protocol messages into the client's output buffer; the statement
 * pipeline calls it from the session's thread only.
 */
public interface ResultSink {

    /** A sink for results nobody reads (the proxy's own statements). */
    ResultSink DISCARD = new ResultSink() {
        @Override
        public void columns(ColumnDescription[] columns) {
        }

        @Override
        public void row(RowValues row) {
        }

        @Override
        public void complete(String commandTag) {
        }

        @Override
        public void empty() {
        }

        @Override
        public void notice(ErrorFields notice) {
        }

        @Override
        public void parameterStatus(String name, String value) {
        }
    };

    /** The statement returns rows with these columns (RowDescription). */
    void columns(ColumnDescription[] columns);

    /** One row; values in text format, {@code null} for SQL NULL. The array may be reused after the call. */
    void row(RowValues row);

    /** The statement finished with this command tag ({@code SELECT 3}, {@code INSERT 0 1}). */
    void complete(String commandTag);

    /** The statement was empty (EmptyQueryResponse). */
    void empty();

    /** A notice or warning from a backend, passed on as is. */
    void notice(ErrorFields notice);

    /** A GUC the client is told about changed (ParameterStatus). */
    void parameterStatus(String name, String value);

    /**
     * A NOTIFY on a channel the session listens to (NotificationResponse).
     *
     * @param self whether this session sent it (the client then sees its own process id)
     */
    default void notification(int processId, boolean self, String channel, String payload) {
    }
}
