package io.ashlar.backend.session;

import io.ashlar.backend.datasource.BackendConnection;
import io.ashlar.backend.datasource.BackendDataSource;
import io.ashlar.backend.datasource.ParameterValues;
import io.ashlar.backend.execute.BufferedResult;
import io.ashlar.backend.execute.CommandTags;
import io.ashlar.backend.execute.ParameterCounter;
import io.ashlar.backend.execute.QueryResult;
import io.ashlar.backend.execute.BackendError;
import io.ashlar.backend.execute.ErrorFields;
import io.ashlar.backend.execute.ResultSink;
import io.ashlar.backend.execute.StatementFailure;
import io.ashlar.backend.execute.StreamingHandler;
import io.ashlar.backend.execute.TextRows;
import java.sql.SQLException;
import io.ashlar.backend.execute.CopyStream;

/**
 * The backend side of one client session: which backend connection it holds, its settings, its
 * transaction.
 *
 * <p>State machine: <b>idle</b> (no connection held; each statement borrows one from the pool,
 * gives it the session's settings if it does not carry them already, and returns it after the
 * statement) → <b>pinned</b> (the backend reported a transaction open or failed, or the session
 * made state only that connection has: the connection stays with the session until the
 * transaction ends, or for good) → back to idle. Settings changed by SET/RESET are read back
 * from the backend when the transaction that made them ends, so that the next connection gets
 * exactly what PostgreSQL would have kept (a rolled-back SET is gone, SET LOCAL never stays).
 * The transaction is the backend's; the session follows it as a {@link TransactionState} (from the
 * backend's status after each statement), and knows which transaction it opened itself for a
 * pipeline (implicit, ended at the client's Sync).
 *
 * <p>A transaction block whose connection is lost (the backend terminated, the server gone) is over, and the
 * client has been told so by the statement that found out: the session then answers as PostgreSQL answers in a
 * failed transaction, 25P02 until the client's ROLLBACK (a COMMIT is refused with 08006), so that nothing the
 * client meant for the transaction runs on its own on another connection.
 *
 * <p>Used by one thread at a time (the session's), except {@link #cancel()}.
 */
public final class PassthroughSession implements BackendSession {

    private final LogicalDatabase database;
    private final BackendDataSource dataSource;
    private final SettingsTracker settings;
    private final io.netty.channel.EventLoop loop;
    /**
     * The session's transaction as the backend last reported it, and whether the proxy opened it
     * (an implicit transaction, which the client's Sync ends).
     */
    private TransactionState state = TransactionState.IDLE;
    private BackendConnection pinned;
    private volatile BackendConnection running;
    private boolean bound;
    private boolean settingsDirty;
    private boolean closed;
    /** Why the client's transaction block ended with its connection, until the client ends the block; else null. */
    private String lostTransaction;
    /** Told when the connection kept for the session's state (a LISTEN) gets a notification while idle; null: nobody. */
    private Runnable asyncSignal;

    /**
     * @param startupSettings settings the client asked for in its startup packet, applied to every
     *        backend connection the session uses
     */
    public PassthroughSession(LogicalDatabase database, SessionSettings startupSettings) {
        this(database, startupSettings, null);
    }

    /**
     * @param loop the event loop whose connections the session borrows; null for any of the proxy's
     */
    PassthroughSession(LogicalDatabase database, SessionSettings startupSettings, io.netty.channel.EventLoop loop) {
        this.loop = loop;
        this.database = database;
        this.dataSource = database.defaultDataSource();
        this.settings = new SettingsTracker(startupSettings);
    }

    public LogicalDatabase database() {
        return database;
    }

    /**
     * Runs a simple-protocol query string (one statement or several) and streams every result to
     * the sink as it arrives.
     */
    @Override
    public void executeSimple(String sql, ResultSink sink) throws StatementFailure {
        if (lostTransaction != null) {
            sink.complete(inLostTransaction(sql));
            return;
        }
        BackendConnection connection = acquire();
        StreamingHandler handler = new StreamingHandler(sink);
        running = connection;
        try {
            connection.executeSimple(sql, handler);
        } catch (SQLException e) {
            handler.handleError(e);
        } finally {
            running = null;
        }
        CommandTags.Effect text = CommandTags.textEffect(sql);
        after(connection, handler.settingsChanged() || text == CommandTags.Effect.SETTINGS,
                handler.sessionBound() || text == CommandTags.Effect.SESSION_STATE
                        || createsTemporaryObject(handler.lastTag(), sql), sink);
        if (handler.error() != null) {
            throw new StatementFailure(ErrorFields.from(handler.error()), handler.error());
        }
    }

    @Override
    public Prepared prepare(String sql, int[] declaredTypes) {
        int count = Math.max(declaredTypes.length, ParameterCounter.count(sql));
        int[] types = count == declaredTypes.length ? declaredTypes : java.util.Arrays.copyOf(declaredTypes, count);
        // The analysis slot carries what the text says about the session, worked out once per Parse.
        return new Prepared(sql, types, CommandTags.textEffect(sql));
    }

    @Override
    public QueryResult execute(Prepared statement, ParameterValues parameters, ResultSink statusSink,
                               boolean implicitTransaction) throws StatementFailure {
        return execute(statement, parameters, null, statusSink, implicitTransaction);
    }

    /** The backend answers in the client's result formats: its rows go to the client as they are. */
    @Override
    public QueryResult execute(Prepared statement, ParameterValues parameters, short[] resultFormats, ResultSink statusSink,
                               boolean implicitTransaction) throws StatementFailure {
        return execute(statement.sql(), parameters, resultFormats, statusSink, implicitTransaction,
                statement.analysis() instanceof CommandTags.Effect text ? text : CommandTags.textEffect(statement.sql()));
    }

    /**
     * Runs one extended-protocol statement; with {@code implicitTransaction}, outside a transaction
     * block the statement opens a transaction that {@link #endImplicitTransaction()} ends at the
     * client's Sync: several Executes before one Sync then commit or fail together, as PostgreSQL
     * runs them.
     */
    BufferedResult execute(String sql, ParameterValues parameters, short[] resultFormats, ResultSink statusSink,
                           boolean implicitTransaction, CommandTags.Effect textEffect) throws StatementFailure {
        if (lostTransaction != null) {
            BufferedResult ended = new BufferedResult();
            ended.complete(inLostTransaction(sql));
            return ended;
        }
        BackendConnection connection = acquire();
        BufferedResult result = new BufferedResult();
        boolean begin = implicitTransaction && connection.status() == 'I';
        if (begin) {
            state = state.beginImplicit();
        }
        running = connection;
        try {
            if (resultFormats == null) {
                connection.execute(sql, parameters, result, begin);
            } else {
                connection.execute(sql, parameters, resultFormats, result, begin);
                result.rowFormats(resultFormats);
            }
        } catch (SQLException e) {
            result.handleError(e);
        } finally {
            running = null;
        }
        CommandTags.Effect effect = CommandTags.combine(CommandTags.effect(result.tag()), textEffect);
        after(connection, effect == CommandTags.Effect.SETTINGS,
                effect == CommandTags.Effect.SESSION_STATE || createsTemporaryObject(result.tag(), sql), statusSink);
        if (result.error() != null) {
            throw new StatementFailure(ErrorFields.from(result.error()), result.error());
        }
        return result;
    }

    @Override
    public BatchOutcome executeBatch(Prepared statement, ParameterValues[] rows, ResultSink statusSink,
                                     boolean lastBeforeSync) throws StatementFailure {
        if (!io.ashlar.backend.execute.Batches.returnsNoRows(statement.sql())) {
            return null;
        }
        if (lostTransaction != null) {
            return new BatchOutcome(new String[0], 0, ErrorFields.inFailedTransaction());
        }
        BackendConnection connection = acquire();
        // Outside a transaction, a batch the client's Sync ends commits with the backend's Sync.
        boolean begin = connection.status() == 'I' && !lastBeforeSync;
        if (begin) {
            state = state.beginImplicit();
        }
        String[] sqls = new String[rows.length];
        java.util.Arrays.fill(sqls, statement.sql());
        running = connection;
        BatchOutcome outcome;
        try {
            outcome = io.ashlar.backend.execute.Batches.outcome(connection.executeBatch(sqls, rows, begin));
        } catch (SQLException e) {
            outcome = new BatchOutcome(new String[0], 0, ErrorFields.from(e));
        } finally {
            running = null;
        }
        after(connection, false, false, statusSink);
        return outcome;
    }

    /** Whether a transaction opened by an Execute outside a transaction block is open. */
    @Override
    public boolean inImplicitTransaction() {
        return state.inImplicit();
    }

    /**
     * The client sent Sync: a transaction the proxy opened for a run of Executes commits, or
     * rolls back if a statement in it failed.
     */
    @Override
    public void endImplicitTransaction() throws StatementFailure {
        if (!state.inImplicit()) {
            return;
        }
        state = state.end();
        BackendConnection connection = pinned;
        if (connection == null) {
            return;
        }
        StatementFailure failure = null;
        try {
            TextRows.run(connection, connection.status() == 'T' ? "COMMIT" : "ROLLBACK");
        } catch (SQLException e) {
            // The statements were answered, but a COMMIT that failed took their rows with it.
            failure = new StatementFailure(ErrorFields.from(e), e);
        }
        after(connection, false, false, null);
        if (failure != null) {
            throw failure;
        }
    }

    /** The client's own transaction control ends the proxy's implicit transaction's role. */
    @Override
    public void forgetImplicitTransaction() {
        state = state.becomeBlock();
    }

    @Override
    public Description describe(Prepared statement) throws StatementFailure {
        if (lostTransaction != null && transactionEnd(statement.sql()) == 0) {
            throw new StatementFailure(ErrorFields.inFailedTransaction());
        }
        BackendConnection connection = acquire();
        BufferedResult result = new BufferedResult();
        int[] types = statement.parameterTypes();
        try {
            types = connection.describe(statement.sql(), statement.parameterTypes(), result);
        } catch (SQLException e) {
            result.handleError(e);
        }
        after(connection, false, false, null);
        if (result.error() != null) {
            throw new StatementFailure(ErrorFields.from(result.error()), result.error());
        }
        return new Description(types, result.hasRows() ? java.util.Optional.of(result.columns()) : java.util.Optional.empty());
    }

    /**
     * Starts a COPY on the session's connection; the caller drives it, then calls
     * {@link #endCopy()} whatever happened.
     */
    @Override
    public CopyStream startCopy(String sql) throws StatementFailure {
        if (lostTransaction != null) {
            throw new StatementFailure(ErrorFields.inFailedTransaction());
        }
        BackendConnection connection = acquire();
        pinned = connection;
        running = connection;
        try {
            return connection.startCopy(sql);
        } catch (SQLException e) {
            running = null;
            after(connection, false, false, null);
            throw new StatementFailure(ErrorFields.from(e), e);
        }
    }

    /** Ends the session's COPY (after CopyDone, CopyFail or an error). */
    @Override
    public void endCopy() {
        BackendConnection connection = running;
        running = null;
        if (connection != null) {
            after(connection, false, false, null);
        }
    }

    /** ReadyForQuery's transaction status: 'I' idle, 'T' in a transaction, 'E' in a failed transaction. */
    @Override
    public char transactionStatus() {
        if (lostTransaction != null) {
            return 'E';
        }
        BackendConnection connection = pinned;
        if (connection == null) {
            return 'I';
        }
        return connection.status();
    }

    /**
     * The transaction is on the backend connection, so the backend is made to fail it: a statement
     * that cannot succeed, whose error nobody sees.
     */
    @Override
    public void abortTransaction() {
        BackendConnection connection = pinned;
        if (connection == null || connection.status() != 'T') {
            return;
        }
        try {
            TextRows.run(connection, "SELECT CAST('transaction aborted by an error Ashlar reported' AS int)");
        } catch (SQLException expected) {
            // The failure is the point: the connection's transaction is now failed.
        }
        after(connection, false, false, null);
    }

    /** Cancels the statement running now, if any (called from another thread). */
    @Override
    public long statementMemoryLimit() {
        return database.statementMemoryLimit();
    }

    @Override
    public void onAsync(Runnable signal) {
        asyncSignal = signal;
    }

    @Override
    public void relayAsync(ResultSink sink) {
        BackendConnection connection = pinned;
        if (bound && connection != null) {
            connection.relayAsync(sink);
        }
    }

    @Override
    public void cancel() {
        BackendConnection connection = running;
        if (connection != null) {
            connection.cancel();
        }
    }

    private BackendConnection acquire() throws StatementFailure {
        if (closed) {
            throw new StatementFailure(ErrorFields.error("08003", "the session is closed"));
        }
        BackendConnection connection = pinned;
        if (connection != null) {
            return connection;
        }
        try {
            connection = loop != null ? dataSource.borrow(loop) : dataSource.borrow();
        } catch (SQLException e) {
            // The pool's errors name the data source and say why (down, a login refused, none free in time).
            throw new StatementFailure(e instanceof BackendError ? ErrorFields.from(e) : ErrorFields.error("08006",
                    "could not get a connection to data source " + dataSource.name() + ": " + e.getMessage()), e);
        }
        try {
            settings.give(connection);
        } catch (SQLException e) {
            connection.release();
            throw new StatementFailure(ErrorFields.from(e), e);
        }
        return connection;
    }

    private void after(BackendConnection connection, boolean settingsChanged, boolean sessionBound, ResultSink sink) {
        if (connection.isBroken() && (state.inBlock() || !state.inImplicit() && connection.status() != 'I')) {
            // The client's transaction block was open on it (the last ReadyForQuery said so): it is over.
            lostTransaction = "the connection to data source " + dataSource.name() + " ended inside the transaction";
        }
        state = state.backendReported(connection.isBroken() ? 'I' : connection.status());
        if (sink != null && bound) {
            connection.relayNotifications(sink);
        }
        if (settings.takeApplied() && sink != null && !settingsChanged) {
            settings.report(connection, sink);
        }
        settingsDirty |= settingsChanged;
        bound |= sessionBound;
        if (connection.isBroken()) {
            pinned = null;
            connection.settings(SessionSettings.EMPTY);
            connection.release();
            return;
        }
        if (connection.status() != 'I') {
            if (settingsChanged && sink != null) {
                settings.report(connection, sink);
            }
            pinned = connection;
            return;
        }
        if (settingsDirty) {
            // Read back (and restore the startup values RESET took away) before telling the
            // client, so that it hears the values it will see; a ROLLBACK that undid a SET is
            // reported here too, as PostgreSQL reports it.
            if (settings.readBack(connection)) {
                settingsDirty = false;
            }
            if (sink != null) {
                settings.report(connection, sink);
            }
        }
        if (bound) {
            if (asyncSignal != null) {
                connection.onAsync(asyncSignal); // a volatile write, for sessions that keep their connection only
            }
            pinned = connection;
        } else {
            pinned = null;
            connection.release();
        }
    }

    /**
     * A statement of a transaction block whose connection was lost: ROLLBACK (or ABORT) ends the block, COMMIT (or
     * END) too but as an error, since nothing of the transaction was kept; anything else is refused with 25P02.
     */
    private String inLostTransaction(String sql) throws StatementFailure {
        switch (transactionEnd(sql)) {
            case 'R' -> {
                lostTransaction = null;
                return "ROLLBACK";
            }
            case 'C' -> {
                String why = lostTransaction;
                lostTransaction = null;
                throw new StatementFailure(ErrorFields.error("08006", "the transaction was rolled back: " + why));
            }
            default -> throw new StatementFailure(ErrorFields.inFailedTransaction());
        }
    }

    /**
     * 'R' when {@code sql} is a ROLLBACK or ABORT of the whole block (not ROLLBACK TO a savepoint, nor ROLLBACK
     * PREPARED), 'C' for COMMIT or END (not COMMIT PREPARED), else 0. Only a session whose transaction was lost reads
     * its statements so.
     */
    static char transactionEnd(String sql) {
        io.ashlar.parser.lexer.TokenList tokens;
        java.util.List<io.ashlar.parser.lexer.StatementRange> ranges;
        try {
            tokens = io.ashlar.parser.lexer.Lexer.tokenize(sql);
            ranges = io.ashlar.parser.lexer.StatementSplitter.split(tokens);
        } catch (io.ashlar.parser.lexer.SqlSyntaxException e) {
            return 0;
        }
        if (ranges.size() != 1) {
            return 0;
        }
        io.ashlar.parser.lexer.StatementRange range = ranges.get(0);
        int first = range.firstToken();
        int next = first + 1 < range.endToken() ? first + 1 : -1;
        boolean qualified = next >= 0 && (tokens.textEqualsIgnoreCase(next, "to") || tokens.textEqualsIgnoreCase(next, "prepared"));
        if (qualified) {
            return 0;
        }
        if (tokens.textEqualsIgnoreCase(first, "rollback") || tokens.textEqualsIgnoreCase(first, "abort")) {
            return 'R';
        }
        return tokens.textEqualsIgnoreCase(first, "commit") || tokens.textEqualsIgnoreCase(first, "end") ? 'C' : 0;
    }

    /** Remembers what the client was told at login, so that later changes are reported once. */
    @Override
    public void reported(String name, String value) {
        settings.reported(name, value);
    }

    @Override
    public io.ashlar.backend.execute.ClientEncoding clientEncoding() {
        return settings.encoding();
    }

    @Override
    public String reportedValue(String name) {
        return settings.reportedValue(name);
    }

    private static boolean createsTemporaryObject(String tag, String sql) {
        return (tag.startsWith("CREATE") || tag.startsWith("SELECT")) && CommandTags.mentionsTemporary(sql);
    }

    /**
     * Ends the session: a transaction left open is rolled back, state bound to the connection is
     * discarded, and the connection goes back to the pool.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        BackendConnection connection = pinned;
        pinned = null;
        if (connection == null) {
            return;
        }
        SettingsTracker.releaseAtEnd(connection, bound);
    }
}
