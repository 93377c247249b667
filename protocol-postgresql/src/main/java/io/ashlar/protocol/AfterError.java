package io.ashlar.protocol;

/**
 * What PostgreSQL does after it raised an ERROR for a client's message of a given type, before
 * running anything of it: the message's body did not read ({@link FrontendMessage.Malformed}), or
 * the message was too large to keep ({@link FrontendMessage.TooLarge}). From {@code postgres.c}:
 * {@code SocketBackend} marks the extended-query messages ({@code doing_extended_query_message}),
 * an error during one of them starts the skip to Sync ({@code ignore_till_sync}), any other error
 * is followed by ReadyForQuery, and CopyData, CopyDone and CopyFail outside a COPY are dropped
 * unread.
 *
 * @see <a href="https://www.postgresql.org/docs/current/protocol-flow.html#PROTOCOL-FLOW-EXT-QUERY">Extended Query</a>
 */
public enum AfterError {

    /** Parse, Bind, Describe, Execute, Close, Flush (and openGauss's batch bind): skip to the next Sync. */
    SKIP_TO_SYNC,
    /** A simple Query or a FunctionCall: ReadyForQuery now. */
    READY_FOR_QUERY,
    /** A Sync: it ends any skipping, and ReadyForQuery follows its error. */
    SYNC,
    /** CopyData, CopyDone or CopyFail outside a COPY: PostgreSQL does not read them, so no error at all. */
    NOTHING;

    /** The recovery after an error for a message of {@code type}. */
    public static AfterError of(byte type) {
        return switch (type) {
            case Query.TYPE, FunctionCall.TYPE -> READY_FOR_QUERY;
            case Sync.TYPE -> SYNC;
            case CopyData.TYPE, CopyDone.TYPE, CopyFail.TYPE, Terminate.TYPE -> NOTHING;
            default -> SKIP_TO_SYNC;
        };
    }
}
