package io.ashlar.backend.session;

import io.ashlar.backend.datasource.ParameterValues;
import io.ashlar.backend.execute.ColumnDescription;
import io.ashlar.backend.execute.ErrorFields;
import io.ashlar.backend.execute.QueryResult;
import io.ashlar.backend.execute.ResultSink;
import io.ashlar.backend.execute.StatementFailure;
import java.util.Optional;
import io.ashlar.backend.execute.CopyStream;

/**
 * The backend side of one client session, as the frontend drives it: statements in, results
 * out, transaction status for ReadyForQuery. Two kinds: {@link PassthroughSession} for a logical
 * database without rules (every statement goes to its one data source unchanged) and
 * {@link ShardedSession} (statements are analysed, routed, rewritten and merged).
 *
 * <p>Used by one thread at a time (the session's), except {@link #cancel()}.
 */
public sealed interface BackendSession extends AutoCloseable permits PassthroughSession, ShardedSession {

    /** Opens the right kind of session for the database. */
    /**
     * @param loop the event loop of the client's connection: the session's backend connections live
     *        there too (its statements then run on that loop's thread, see the frontend's LoopThreads)
     * @param identity who the client is, for the session values a sharded database answers ({@code current_user},
     *        {@code current_database()}, {@code inet_server_port()})
     */
    static BackendSession open(LogicalDatabase database, SessionSettings startupSettings, io.netty.channel.EventLoop loop,
                               SessionIdentity identity) {
        return database.rules().isEmpty() ? new PassthroughSession(database, startupSettings, loop)
                : new ShardedSession(database, startupSettings, loop, identity);
    }

    /** Runs a simple-protocol query string (one statement or several), streaming results to the sink. */
    void executeSimple(String sql, ResultSink sink) throws StatementFailure;

    /**
     * Fails with PostgreSQL's syntax error when a query string of several statements has one anywhere, before any of
     * them runs (for a caller that runs them one by one itself); nothing where the backend reads the whole string.
     */
    default void checkSyntax(String sql) throws StatementFailure {
    }

    /**
     * Where the session finds what its client made that the frontend keeps (statements named with Parse, cursors), for
     * the views that list a session's own objects ({@code pg_prepared_statements}, {@code pg_cursors}) where the backend
     * connections would list theirs; nothing where the session's backend connection is its own for as long as they live.
     */
    default void sessionObjects(SessionObjects objects) {
    }

    /** What the frontend keeps of a session's objects, listed as PostgreSQL's per-session views list them. */
    interface SessionObjects {

        /** The statements the client prepared by name with Parse (not the unnamed one). */
        java.util.List<NamedStatement> statements();

        /** The cursors the client declared and has open. */
        java.util.List<OpenCursor> cursors();
    }

    /**
     * A cursor the client declared, as {@code pg_cursors} lists it.
     *
     * @param statement the DECLARE statement's text
     * @param createdAtMillis when it was declared (System.currentTimeMillis)
     */
    record OpenCursor(String name, String statement, boolean holdable, boolean binary, boolean scrollable, long createdAtMillis) {
    }

    /**
     * Prepares a statement for the extended protocol (Parse): what can be known from the text
     * alone is worked out once here. Fails on text that cannot be a statement.
     */
    Prepared prepare(String sql, int[] declaredTypes) throws StatementFailure;

    /**
     * Runs a prepared statement with bound parameters.
     *
     * @param statusSink where ParameterStatus changes go
     * @param implicitTransaction whether, outside a transaction block, the statement opens a
     *        transaction that {@link #endImplicitTransaction()} ends at the client's Sync
     */
    QueryResult execute(Prepared statement, ParameterValues parameters, ResultSink statusSink, boolean implicitTransaction)
            throws StatementFailure;

    /**
     * Runs a prepared statement as {@link #execute(Prepared, ParameterValues, ResultSink, boolean)}
     * does, asking the backend for the client's result format codes (its Bind's) where the rows
     * can go to the client as the backend sends them; {@link QueryResult#rowFormats()} of the result
     * tells whether they do. By default the rows come back in text.
     */
    default QueryResult execute(Prepared statement, ParameterValues parameters, short[] resultFormats, ResultSink statusSink,
                                boolean implicitTransaction) throws StatementFailure {
        return execute(statement, parameters, statusSink, implicitTransaction);
    }

    /**
     * Runs a prepared statement once per parameter row (a client's batch: a pipeline of
     * Bind/Execute pairs, or an openGauss batch bind) as one backend batch per data source
     * instead of a round trip per row, inside the implicit transaction the client's Sync ends.
     *
     * @param lastBeforeSync whether the client's Sync is its next message: the batch is then the
     *        whole of its implicit transaction, and one that opens no transaction on more than one
     *        data source commits with the backend's own Sync (no BEGIN ahead of it, no COMMIT
     *        round trip at the client's Sync), as PostgreSQL commits a pipeline
     * @return each row's outcome; null when the statement cannot run as a batch (it may return
     *         rows, or a row would run on several shards): the caller then runs the rows one by one.
     *         A failure when the backend commits (a deferred constraint) is reported after every
     *         row ({@code failedRow} is the number of rows), as PostgreSQL reports it at Sync
     */
    BatchOutcome executeBatch(Prepared statement, ParameterValues[] rows, ResultSink statusSink, boolean lastBeforeSync)
            throws StatementFailure;

    /**
     * What a batch did.
     *
     * @param tags the command tag of each row before {@code failedRow} (of every row when none failed)
     * @param failedRow the first row that failed, the number of rows when they all ran and the
     *        commit at their Sync failed, or -1
     * @param error that row's error
     */
    record BatchOutcome(String[] tags, int failedRow, io.ashlar.backend.execute.ErrorFields error) {
    }

    /** Describes a prepared statement without running it. */
    Description describe(Prepared statement) throws StatementFailure;

    /**
     * The statement as one the client's event loop may run itself, its answer relayed as the backend sends it
     * ({@link LoopStatement}); null when it must run on the session's thread ({@link #execute}). Called on the loop,
     * while the session's thread waits for the client.
     *
     * @param backendFormats the result formats to ask the backend for (the client's, one per column), or null for text
     */
    default LoopStatement loopStatement(Prepared statement, ParameterValues parameters, short[] backendFormats) {
        return null;
    }

    /** A simple query as one the client's event loop may run itself ({@link #loopStatement}), or null. */
    default LoopStatement loopQuery(String sql) {
        return null;
    }

    /** Starts a COPY FROM STDIN / TO STDOUT; the caller drives it, then calls {@link #endCopy()}. */
    CopyStream startCopy(String sql) throws StatementFailure;

    void endCopy();

    /** ReadyForQuery's transaction status: 'I', 'T' or 'E'. */
    char transactionStatus();

    boolean inImplicitTransaction();

    /**
     * The client sent Sync: a transaction the proxy opened for a run of Executes commits or rolls
     * back. A COMMIT that fails (a deferred constraint) is the client's error, reported before
     * ReadyForQuery as PostgreSQL reports the failure of a pipeline's commit: its rows are gone.
     */
    void endImplicitTransaction() throws StatementFailure;

    /** The client's own transaction control takes over from an implicit transaction. */
    void forgetImplicitTransaction();

    /**
     * An error the proxy raised itself (not a backend's) aborts the transaction it happened in, as
     * any error does in PostgreSQL: a transaction block then refuses statements until ROLLBACK, and
     * a pipeline's implicit transaction rolls back at Sync. Nothing happens outside a transaction
     * or when it has failed already.
     */
    void abortTransaction();

    /** Remembers a parameter value the client was told, so later changes are reported once. */
    void reported(String name, String value);

    /** A reported parameter's value as the client was last told it (IntervalStyle, ...), or null. */
    String reportedValue(String name);

    /**
     * Whether the session prints floats in their shortest exact form ({@code extra_float_digits} 1 or more): the
     * text the backends send then reads back as the exact value, which the proxy's binary encoders need.
     */
    default boolean shortestFloats() {
        return true;
    }

    /**
     * The session's client_encoding, which its connections carry (the frontend reads and writes its own text in it),
     * or null where the session does not track it.
     */
    default io.ashlar.backend.execute.ClientEncoding clientEncoding() {
        return null;
    }

    /**
     * Whether the session prints dates and timestamps in ISO style (DateStyle {@code ISO, ...}), the only one the
     * proxy's merges and binary encoders read: in another, what would have to read them is refused or done otherwise.
     */
    default boolean isoDates() {
        String style = reportedValue("DateStyle");
        return style == null || style.startsWith("ISO");
    }

    /**
     * For a result type the proxy has no binary encoder of: the enum it is ({@code typeOid} itself), or the enum an
     * array type holds (its element's OID, negated); 0 for any other. In the OIDs the session describes results in.
     */
    default int userEnum(int typeOid) {
        return 0;
    }

    /**
     * For a result type the proxy has no binary encoder of: the field types (not dropped, in order) of the composite
     * type it is, or of the composite an array type holds; null for any other. In the OIDs the session describes
     * results in.
     */
    default int[] compositeFields(int typeOid) {
        return null;
    }

    /** The element type of an array type of a composite type ({@link #compositeFields}), else 0. */
    default int compositeOfArray(int typeOid) {
        return 0;
    }

    /** Cancels the statement running now, if any (called from another thread). */
    void cancel();

    /** Bytes one statement may hold in the proxy (server.yaml's proxy-statement-memory-limit): rows kept for a cursor. */
    long statementMemoryLimit();

    /**
     * Where the session's last statement went and what its stages took, for the slow-query log (kept only while that
     * log is on); empty when unknown.
     */
    default String lastStatement() {
        return "";
    }

    /**
     * Whom to tell (from an event loop) when a connection the session keeps for a LISTEN receives a notification while
     * no statement runs; set once, before the first statement.
     */
    void onAsync(Runnable signal);

    /**
     * Passes on, without waiting, what the session's kept connections received of themselves since their last
     * statement (notifications, notices): called between statements after {@link #onAsync}'s signal.
     */
    void relayAsync(ResultSink sink);

    /**
     * A notice that reached a result after its first rows, as the client is to see it (a sharded database's in logical
     * table names).
     */
    default ErrorFields lateNotice(ErrorFields notice) {
        return notice;
    }

    /** Ends the session: open transactions roll back, connections go back to their pools. */
    @Override
    void close();

    /**
     * A statement as Parse left it.
     *
     * @param sql the client's SQL
     * @param parameterTypes one type OID per parameter ($1..$n), 0 where the server infers it
     * @param analysis what the session worked out from the text (its own type), or null for none
     */
    record Prepared(String sql, int[] parameterTypes, Object analysis) {
    }

    /**
     * A statement the client prepared by name, as {@code pg_prepared_statements} lists it.
     *
     * @param name the client's name for it
     * @param statement its text (for SQL's PREPARE, the PREPARE statement)
     * @param preparedAtMillis when it was prepared (System.currentTimeMillis)
     * @param parameterTypes its parameters' types as a {@code regtype[]} literal ({@code {23,NULL}}: NULL where not known)
     * @param fromSql whether SQL's PREPARE made it (else the protocol's Parse)
     */
    record NamedStatement(String name, String statement, long preparedAtMillis, String parameterTypes, boolean fromSql) {

        /** Type OIDs as a {@code regtype[]} literal: those of PostgreSQL's own types, NULL for others and for 0 (not known). */
        public static String typeArray(int[] oids) {
            StringBuilder result = new StringBuilder(2 + oids.length * 5).append('{');
            for (int i = 0; i < oids.length; i++) {
                if (i > 0) {
                    result.append(',');
                }
                // A user type's OID clients are told may be the catalog database's own: only built-in ones are the same everywhere.
                if (oids[i] > 0 && oids[i] < FIRST_USER_OID) {
                    result.append(oids[i]);
                } else {
                    result.append("NULL");
                }
            }
            return result.append('}').toString();
        }

        /** PostgreSQL's FirstNormalObjectId: OIDs below are the system's. */
        private static final int FIRST_USER_OID = 16384;
    }

    /**
     * The answer to a Describe of a statement.
     *
     * @param parameterTypes the parameter types, resolved by a backend
     * @param columns the result columns, empty when the statement returns no rows
     */
    record Description(int[] parameterTypes, Optional<ColumnDescription[]> columns) {
    }
}
