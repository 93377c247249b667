package io.ashlar.backend.session;

import io.ashlar.backend.datasource.BackendConnection;
import io.ashlar.backend.datasource.BackendDataSource;
import io.ashlar.backend.datasource.ParameterValues;
import io.ashlar.backend.execute.BackendError;
import io.ashlar.backend.execute.Batches;
import io.ashlar.backend.execute.BufferedResult;
import io.ashlar.backend.execute.ColumnDescription;
import io.ashlar.backend.execute.CommandTags;
import io.ashlar.backend.execute.CopyStream;
import io.ashlar.backend.execute.ErrorFields;
import io.ashlar.backend.execute.QueryResult;
import io.ashlar.backend.execute.ResultSink;
import io.ashlar.backend.execute.StatementFailure;
import io.ashlar.backend.metadata.LogicalSession;
import io.ashlar.backend.sharding.Plan;
import io.ashlar.backend.sharding.RouteValues;
import io.ashlar.backend.sharding.ShardedExecution;
import io.ashlar.backend.sharding.TagResult;
import io.ashlar.parser.GuardedDoBlock;
import io.ashlar.parser.lexer.Lexer;
import io.ashlar.parser.lexer.SqlSyntaxException;
import io.ashlar.parser.lexer.StatementRange;
import io.ashlar.parser.lexer.StatementSplitter;
import io.ashlar.parser.lexer.TokenList;
import io.ashlar.parser.statement.AnalyzedStatement;
import io.ashlar.parser.statement.DeallocateStatement;
import io.ashlar.parser.statement.DiscardStatement;
import io.ashlar.parser.statement.ExecuteStatement;
import io.ashlar.parser.statement.PrepareStatement;
import io.ashlar.parser.statement.StatementKind;
import io.ashlar.parser.statement.TransactionCommand;
import io.ashlar.parser.statement.TransactionStatement;
import io.ashlar.route.RecursivePlan;
import io.ashlar.route.RouteException;
import io.netty.channel.EventLoop;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The backend side of a session on a sharded logical database: each statement is analysed
 * (once per SQL text), routed, rewritten per shard, run on the data sources it needs and its
 * results merged.
 *
 * <p>This class runs statements: it takes each by its kind to the part that runs it, and runs a routed one
 * itself (route, acquire the connections, run, keep its effects, finish). Its parts keep the session's state or do
 * one job each: the transaction and its replay on data sources that join late ({@link ShardedTransaction}, in the
 * states of {@link TransactionState}), its control statements ({@link TransactionStatements}), what follows each
 * statement up to the transaction's end ({@link ShardedStatementEnd}), the connections ({@link ShardConnections}),
 * statements run as they are on one data source ({@link DirectStatements}), Parse and Describe
 * ({@link ShardedDescribe}), SQL's PREPARE ({@link SqlPreparedStatements}), client batches ({@link ShardedBatch}),
 * reads finished by PostgreSQL over intermediate results ({@link IntermediateResults}), the parts whole statements are
 * handed to: foreign keys, sequences, INSERT ... SELECT ({@link ShardedHandOffs}), COPY ({@link ShardedCopy}), results
 * still streaming ({@link StreamedResult}), settings ({@link SettingsTracker}), times for metrics and the slow-query
 * log ({@link StatementTimes}) and the logical schema ({@link LogicalSession}).
 *
 * <p>Transactions: after an error inside the client's block, the session refuses statements with
 * 25P02 until ROLLBACK, as PostgreSQL does, whatever data source the next statement would use. A
 * write that spans several data sources outside a block runs in an implicit transaction across
 * them, and so do a pipeline's Executes before one Sync and a query string of several statements.
 *
 * <p>Connections: one per data source at most, held for the length of a statement, of a
 * transaction, or for good once the session made state only that connection has.
 */
public final class ShardedSession implements BackendSession {

    private final LogicalDatabase database;
    private final ShardConnections connections;
    private final ShardedTransaction transaction;
    /** What follows each statement: connections given back, a failure's rollback, the transaction's end. */
    private final ShardedStatementEnd ends;
    /** Statements run as they are on one data source: SHOW, settings, catalog queries. */
    private final DirectStatements direct;
    /** BEGIN, COMMIT, ROLLBACK, savepoints, SET TRANSACTION. */
    private final TransactionStatements transactionStatements;
    /** Parse and Describe, and the parameter types a Bind routes by. */
    private final ShardedDescribe describer;
    private final SqlPreparedStatements sqlPrepared;
    private final SettingsTracker settings;
    /** The logical schema's part: catalog queries, session values, logical names, DDL to read again. */
    private final LogicalSession logical;
    /** Whether the statement running now came in a simple query (its units then go to the backends as simple queries). */
    private boolean simpleQuery;
    private final ShardedCopy copy;
    /** Reads that span shards, planned recursively ({@link RecursivePlan}) after the route refused them. */
    private final IntermediateResults intermediates;
    /** Statements of this session being run now (a stream that ends meanwhile leaves its connections to them). */
    private int running;
    /** Told when a {@link StreamedResult} ends: made once, not per statement. */
    private final StreamedResult.End streamEnd = new StreamedResult.End() {
        @Override
        public void ended(boolean failure) {
            streamEnded(failure);
        }

        @Override
        public StatementFailure failure(StatementFailure failure) {
            return logical.logical(timer.failure(failure));
        }
    };
    private boolean closed;
    /**
     * The plans of the last two simple queries the loop ran that were texts of a literal shape, of two shapes: the next
     * one is tried against those shapes first, unlexed (PlanCache.ofShape). Two, since a key written with one digit
     * more or less is another shape (pgbench's aids are 5 digits or 6). Only the loop reads and writes them.
     */
    private Plan lastShaped;
    private Plan shapedBefore;
    /** The parse's and the route's times for metrics, and the last routed statement for the slow-query log. */
    private final StatementTimes times;
    /** Foreign keys, sequences and INSERT ... SELECT the statements are handed to, and what COPY needs of the session. */
    private final ShardedHandOffs handOffs;
    /** statement_timeout over statements whose units share a data source. */
    private final StatementTimer timer;
    /** What the frontend keeps of the session's objects (Parse's statements, cursors), for their views; null until it says. */
    private SessionObjects frontendObjects;

    /**
     * @param loop the client's event loop: the session's backend connections are borrowed there
     */
    ShardedSession(LogicalDatabase database, SessionSettings startupSettings, EventLoop loop, SessionIdentity identity) {
        this.database = database;
        this.settings = new SettingsTracker(startupSettings);
        this.logical = new LogicalSession(database, identity);
        this.connections = new ShardConnections(database, loop, settings);
        this.transaction = new ShardedTransaction(connections, database.twoPhaseCommit());
        this.ends = new ShardedStatementEnd(database, transaction, connections, settings, logical);
        this.direct = new DirectStatements(database, connections, transaction, settings, ends);
        this.transactionStatements = new TransactionStatements(database, transaction, ends, direct);
        this.sqlPrepared = new SqlPreparedStatements(database.plans());
        this.handOffs = new ShardedHandOffs(this, database, connections, transaction, logical, ends, direct);
        this.copy = new ShardedCopy(database, transaction, connections, logical, handOffs.copySession());
        this.intermediates = new IntermediateResults(database, connections, transaction);
        io.ashlar.backend.metrics.DatabaseMetrics metrics = database.metrics();
        this.times = new StatementTimes(metrics == null ? null : metrics.on(loop), database.statementLog());
        this.describer = new ShardedDescribe(database, times, logical, sqlPrepared, connections, transaction, intermediates, ends);
        this.timer = new StatementTimer(loop, connections);
        logical.sessionObjects(new SessionObjects() {
            @Override
            public List<NamedStatement> statements() {
                SessionObjects frontend = frontendObjects;
                List<NamedStatement> result = new ArrayList<>(frontend == null ? List.of() : frontend.statements());
                sqlPrepared.list(result);
                return result;
            }

            @Override
            public List<OpenCursor> cursors() {
                SessionObjects frontend = frontendObjects;
                return frontend == null ? List.of() : frontend.cursors();
            }
        });
    }

    @Override
    public void sessionObjects(SessionObjects objects) {
        this.frontendObjects = objects;
    }

    @Override
    public String lastStatement() {
        return times.lastStatement();
    }

    // ------------------------------------------------------------------ simple protocol

    @Override
    public void executeSimple(String sql, ResultSink sink) throws StatementFailure {
        times.forgetLast();
        long parseStarted = times.parseStarted();
        List<StatementRange> ranges;
        TokenList tokens;
        try {
            tokens = Lexer.tokenize(sql);
            ranges = StatementSplitter.split(tokens);
        } catch (SqlSyntaxException e) {
            throw syntaxError(e, 0);
        }
        if (ranges.isEmpty()) {
            sink.empty();
            return;
        }
        boolean several = ranges.size() > 1;
        // PostgreSQL parses a whole query string before it runs any of it: a syntax error anywhere, and nothing runs
        // (a COMMIT ahead of it included). Every statement is analysed before the first runs, and a string of several
        // is parsed by PostgreSQL too (checkSyntax).
        Plan[] plans = new Plan[ranges.size()];
        for (int i = 0; i < plans.length; i++) {
            try {
                plans[i] = database.plans().get(sql, tokens, ranges.get(i));
            } catch (SqlSyntaxException e) {
                throw syntaxError(e, ranges.get(i).start());
            }
        }
        if (parseStarted != 0) {
            times.parsed(parseStarted);
        }
        if (several) {
            checkSyntax(sql);
            transaction.beginImplicit();
        }
        simpleQuery = true;
        try {
            for (int i = 0; i < plans.length; i++) {
                StatementRange range = ranges.get(i);
                Plan plan = plans[i];
                try {
                    stream(run(plan, ParameterValues.NONE, sink), sink);
                } catch (StatementFailure failure) {
                    throw failure.shifted(range.start()); // a position in the statement is one in the client's query string
                }
            }
        } catch (StatementFailure failure) {
            if (several && transaction.state().inImplicit()) {
                try {
                    ends.endTransaction(false);
                } catch (StatementFailure ignored) {
                    // The statement's own error is the one the client gets.
                }
            }
            throw failure;
        } finally {
            simpleQuery = false;
        }
        if (several && transaction.state().inImplicit()) {
            ends.endTransaction(true);
        }
    }

    private void stream(QueryResult result, ResultSink sink) throws StatementFailure {
        List<ErrorFields> notices = result.notices();
        int sent = notices.size();
        for (int i = 0; i < sent; i++) {
            sink.notice(notices.get(i));
        }
        if (result.isEmptyQuery()) {
            sink.empty();
            return;
        }
        if (result.hasRows()) {
            sink.columns(result.columns());
            while (result.next()) {
                sink.row(result.row());
            }
            // NOTICEs a shard raised after its first row (a function called per row): after the rows, before the tag.
            notices = result.notices();
            for (int i = sent; i < notices.size(); i++) {
                sink.notice(lateNotice(notices.get(i)));
            }
        }
        sink.complete(result.tag());
        result.close();
    }

    /**
     * PostgreSQL's syntax error in a query string of several statements, from a Parse of the whole string on a
     * connection of the catalog database (else of the first data source) that no transaction of the session uses:
     * PostgreSQL parses the whole text before it refuses a Parse of several commands (42601 "cannot insert multiple
     * commands into a prepared statement"), and runs nothing. A 42601 with a position is the string's syntax error, at its
     * position in the string; anything else (the data source down, a text PostgreSQL reads as one statement) lets the
     * statements run, and fail, one by one as before. Ashlar's own analysis takes grammar it needs, not all of
     * PostgreSQL's: without this, {@code BEGIN; INSERT ...; COMMIT; SELEC} committed the INSERT before the error.
     */
    @Override
    public void checkSyntax(String sql) throws StatementFailure {
        BackendDataSource source = database.catalog().catalogDataSource();
        if (source == null) {
            source = database.slotDataSource(0);
        }
        BackendConnection connection;
        try {
            connection = connections.borrowApart(source);
        } catch (SQLException e) {
            return; // the statements meet the same failure, and report it
        }
        BufferedResult result = new BufferedResult();
        try {
            connection.describe(sql, NO_TYPES, result);
        } catch (SQLException e) {
            connection.discard();
            return;
        }
        connection.release();
        // The refusal of several commands has no position; a syntax error always has one (whatever the server's
        // lc_messages says, which the message is in).
        if (result.error() instanceof BackendError error && error.fields().sqlState().equals("42601")
                && !error.fields().field('P').isEmpty()) {
            throw new StatementFailure(error.fields(), error);
        }
    }

    /** A syntax error at {@code offset} plus the error's position in the text analysed. */
    static StatementFailure syntaxError(SqlSyntaxException e, int offset) {
        String position = Integer.toString(offset + e.position());
        return new StatementFailure(e.hint().isEmpty()
                ? new ErrorFields(new byte[] {'S', 'V', 'C', 'M', 'P'},
                        new String[] {ErrorFields.ERROR, ErrorFields.ERROR, e.sqlState(), e.getMessage(), position})
                : new ErrorFields(new byte[] {'S', 'V', 'C', 'M', 'H', 'P'},
                        new String[] {ErrorFields.ERROR, ErrorFields.ERROR, e.sqlState(), e.getMessage(), e.hint(), position}));
    }

    // ------------------------------------------------------------------ extended protocol

    @Override
    public Prepared prepare(String sql, int[] declaredTypes) throws StatementFailure {
        return describer.prepare(sql, declaredTypes);
    }

    @Override
    public Description describe(Prepared statement) throws StatementFailure {
        return describer.describe(statement);
    }

    @Override
    public QueryResult execute(Prepared statement, ParameterValues parameters, ResultSink statusSink,
                               boolean implicitTransaction) throws StatementFailure {
        return execute(statement, parameters, null, statusSink, implicitTransaction);
    }

    @Override
    public QueryResult execute(Prepared statement, ParameterValues parameters, short[] resultFormats, ResultSink statusSink,
                               boolean implicitTransaction) throws StatementFailure {
        times.forgetLast();
        int[] routeTypes = describer.routeTypes(statement);
        if (implicitTransaction) {
            transaction.beginImplicit();
        }
        return run((Plan) statement.analysis(), parameters, routeTypes, resultFormats, statusSink);
    }

    /**
     * Rows are routed one by one; when every row lands on exactly one unit, each data source gets
     * its rows as one backend batch ({@link ShardedBatch}). A row that spans shards makes the
     * caller run rows one by one.
     */
    @Override
    public BatchOutcome executeBatch(Prepared statement, ParameterValues[] rows, ResultSink statusSink,
                                     boolean lastBeforeSync) throws StatementFailure {
        if (!(statement.analysis() instanceof Plan plan) || !Batches.returnsNoRows(statement.sql())) {
            return null;
        }
        StatementKind kind = plan.statement().kind();
        if (kind != StatementKind.INSERT && kind != StatementKind.UPDATE && kind != StatementKind.DELETE) {
            return null;
        }
        plan = logical.adjust(plan);
        if (transaction.state() == TransactionState.FAILED_BLOCK) {
            return new BatchOutcome(new String[0], 0, ErrorFields.inFailedTransaction());
        }
        int[] batchTypes = describer.routeTypes(statement);
        boolean checked = false;
        if (ShardedForeignKeys.concerns(database.catalog().schema(), plan.statement())) {
            if (ShardedForeignKeys.batchNeedsRows(database.catalog().schema(), plan.statement())) {
                return null;
            }
            try {
                handOffs.foreignKeys().checkBatch(plan, rows, batchTypes);
            } catch (StatementFailure failure) {
                return new BatchOutcome(new String[0], 0, failure.fields());
            }
            checked = transaction.state() != TransactionState.IDLE;
        }
        ShardedBatch batch = ShardedBatch.route(database, plan, rows, batchTypes, settings.text());
        if (batch == null) {
            return null;
        }
        int[] dataSources = batch.dataSources();
        // A batch that is the whole of its implicit transaction, on one data source, commits (or
        // rolls back) with the backend's own Sync, as PostgreSQL ends a pipeline: no BEGIN, no
        // COMMIT round trip at the client's Sync. Over several data sources, the transaction
        // spans them and ends at the client's Sync.
        boolean commitsWithSync = !checked && lastBeforeSync && transaction.state() == TransactionState.IDLE && dataSources.length == 1;
        if (!commitsWithSync) {
            transaction.beginImplicit();
        }
        BackendConnection[] held = new BackendConnection[dataSources.length];
        boolean[] begin = new boolean[dataSources.length];
        try {
            acquire(dataSources, held, begin);
        } catch (StatementFailure failure) {
            ends.afterFailure(false);
            return new BatchOutcome(new String[0], 0, failure.fields());
        }
        BatchOutcome outcome = batch.run(held, begin);
        connections.markJoined(dataSources, begin);
        if (transaction.state().inTransaction()) {
            connections.markWritten(dataSources);
        }
        if (outcome.failedRow() >= 0) {
            ends.afterFailure(false);
            return new BatchOutcome(outcome.tags(), outcome.failedRow(), logical.logical(outcome.error()));
        }
        ends.afterStatement();
        return outcome;
    }

    // ------------------------------------------------------------------ one statement

    /** Runs a statement of the session's own, its routing values read by its parameters' types. */
    QueryResult run(Plan plan, ParameterValues parameters, ResultSink sink) throws StatementFailure {
        return run(plan, parameters, parameters.types(), null, sink);
    }

    /** @param resultFormats the client's result format codes, asked of the backend when one unit answers (null: text) */
    private QueryResult run(Plan plan, ParameterValues parameters, int[] routeTypes, short[] resultFormats, ResultSink sink)
            throws StatementFailure {
        plan = logical.adjust(plan);
        AnalyzedStatement statement = plan.statement();
        StatementKind kind = statement.kind();
        if (transaction.state() == TransactionState.FAILED_BLOCK
                && !(kind == StatementKind.TRANSACTION && TransactionStatements.endsFailedBlock((TransactionStatement) statement.body()))) {
            throw new StatementFailure(ErrorFields.inFailedTransaction());
        }
        switch (kind) {
            case TRANSACTION:
                return transactionStatements.run(statement, (TransactionStatement) statement.body(), sink);
            case DISCARD:
                if (statement.body() instanceof DiscardStatement discard) {
                    boolean all = discard.target().equalsIgnoreCase("all");
                    if (all || discard.target().equalsIgnoreCase("plans")) {
                        sqlPrepared.clear();
                    }
                    if (all || discard.target().equalsIgnoreCase("sequences")) {
                        handOffs.sequences().discarded();
                    }
                }
                return direct.setting(statement, sink);
            case SET:
            case RESET:
                return direct.setting(statement, sink);
            case SHOW:
                return direct.onDefault(statement.sql(), sink);
            case EMPTY:
                return TagResult.EMPTY;
            case PREPARE:
                return sqlPrepared.prepare(statement, (PrepareStatement) statement.body(), describer::checkPrepare);
            case EXECUTE:
                return run(sqlPrepared.executed(statement, (ExecuteStatement) statement.body()), ParameterValues.NONE, sink);
            case DEALLOCATE:
                return sqlPrepared.deallocate((DeallocateStatement) statement.body());
            default:
                if (logical.fromCatalog(plan)) {
                    return direct.onSlot(database.catalogSlot(), statement.sql(), parameters, sink);
                }
                if (LogicalSession.isRefresh(statement)) {
                    return logical.refresh(statement);
                }
                if (plan.sequence() != null && (database.dataSources().size() > 1 || plan.sequence().perActualTable())) {
                    QueryResult result = handOffs.sequences().run(plan, plan.sequence(), parameters, sink);
                    if (result != null) {
                        return result;
                    }
                }
                if (ShardedForeignKeys.concerns(database.catalog().schema(), statement)) {
                    QueryResult result = handOffs.foreignKeys().run(plan, parameters, routeTypes, sink);
                    if (result != null) {
                        return result;
                    }
                }
                return routed(plan, parameters, routeTypes, resultFormats, sink);
        }
    }

    /** Runs a statement as routed; a statement the route refuses goes to what runs it instead. */
    QueryResult routed(Plan plan, ParameterValues parameters, int[] routeTypes, short[] resultFormats, ResultSink sink)
            throws StatementFailure {
        ShardedExecution execution;
        try {
            execution = route(plan, parameters, routeTypes);
        } catch (RouteException e) {
            return refused(plan, parameters, routeTypes, e, sink);
        }
        if (execution.isSession()) {
            return direct.onDefault(plan.statement().sql(), sink);
        }
        if (simpleQuery) {
            execution.useSimpleProtocol();
        }
        execution.clientFormats(resultFormats);
        if (plan.textEffect() == CommandTags.Effect.NONE) {
            execution.streamRows();
        }
        // Units that share a data source run there one after another, each timed alone by its backend: the
        // statement's own timeout is the proxy's to keep (StatementTimer).
        long timeout = execution.unitCount() > execution.dataSources().length ? settings.statementTimeoutMillis() : 0;
        if (timeout == 0) {
            return run(plan, execution, parameters, routeTypes, sink);
        }
        timer.start(timeout);
        QueryResult result = null;
        try {
            result = run(plan, execution, parameters, routeTypes, sink);
            return result;
        } catch (StatementFailure failure) {
            throw timer.failure(failure);
        } finally {
            if (!(result instanceof StreamedResult)) {
                timer.stop(); // else when its last row is read (streamEnded)
            }
        }
    }

    private QueryResult run(Plan plan, ShardedExecution execution, ParameterValues parameters, int[] routeTypes,
                            ResultSink sink) throws StatementFailure {
        int[] dataSources = execution.dataSources();
        boolean atomic = (execution.isWrite() && (dataSources.length > 1 || execution.unitCount() > 1) || execution.keepsRowsInPlace())
                && !execution.refusesTransaction();
        boolean startedImplicit = atomic && transaction.beginImplicitIfIdle();
        BackendConnection[] held = new BackendConnection[dataSources.length];
        boolean[] begin = new boolean[dataSources.length];
        try {
            acquire(dataSources, held, begin);
        } catch (StatementFailure failure) {
            ends.afterFailure(startedImplicit);
            throw failure;
        }
        QueryResult result;
        running++;
        long runStarted = times.runStarted();
        try {
            result = logical.logical(execution.run(held, begin, settings.shortestFloats(), settings.mergeStyles()), dataSources[0]);
            if (runStarted != 0) {
                times.ran(runStarted);
            }
        } catch (StatementFailure failure) {
            connections.markJoined(dataSources, begin);
            RecursivePlan recursive = !startedImplicit && unmergeable(failure) ? intermediates.plan(plan, new RouteValues(parameters, routeTypes, settings.text())) : null;
            if (recursive != null) {
                // The merge refused the shards' answers by their column types (AVG of real, SUM of interval, floats
                // at a low extra_float_digits) before anything reached the client: PostgreSQL finishes it instead.
                return recursive(recursive, parameters, sink);
            }
            ends.afterFailure(startedImplicit);
            throw logical.logical(failure);
        } finally {
            running--;
        }
        connections.markJoined(dataSources, begin);
        markWritten(plan, dataSources);
        if (plan.sequence() != null) {
            try {
                handOffs.sequences().after(plan, plan.sequence(), dataSources, result);
            } catch (StatementFailure failure) {
                result.close();
                ends.afterFailure(startedImplicit);
                throw logical.logical(failure);
            }
        }
        if (execution.streams()) {
            result = new StreamedResult(result, streamEnd);
        }
        keepEffects(plan, execution, dataSources, held, sink);
        finish(startedImplicit, dataSources, sink);
        return result;
    }

    private static final int[] NO_TYPES = new int[0];
    private static final boolean[] NO_BEGIN = {false};
    private static final boolean[] BEGAN = {true};

    /**
     * The statement as one its client's event loop may run itself ({@link LoopStatement}), its connection at hand;
     * null when it is not one, with nothing done. It is a statement routed to exactly one unit whose answer the client
     * gets as the shard sends it: a read outside a transaction, on a connection lent at once that carries the session's
     * settings; or a read or a write (without sequences, foreign keys the proxy enforces, or a key moved) inside the
     * client's transaction block, on the connection that already runs the block there (or, for the block's first
     * statement on that data source, on a connection lent at once with a plain BEGIN sent ahead of it); or transaction
     * control ({@link #controlOnLoop}). Its routing values' types are
     * known, no setting waits to be read back, and nothing of the session's runs meanwhile (no result still streams).
     * Everything else (and this too, when it is not so) runs on the session's thread ({@link #execute}), which may wait.
     *
     * @param backendFormats the result formats to ask the shard for: the client's, per column
     */
    @Override
    public LoopStatement loopStatement(Prepared statement, ParameterValues parameters, short[] backendFormats) {
        if (!(statement.analysis() instanceof Plan original) || !idleForLoop()) {
            return null;
        }
        int[] routeTypes = describer.knownRouteTypes(statement);
        if (routeTypes == null) {
            return null;
        }
        return onLoop(original, parameters, routeTypes, backendFormats, false, 0);
    }

    /**
     * A simple query of one statement as one the event loop may run itself ({@link #loopStatement}), its text analysed
     * (the plan cache keeps it for the session's thread where it is not one); null when it is not one.
     */
    @Override
    public LoopStatement loopQuery(String sql) {
        if (!idleForLoop()) {
            return null;
        }
        long parseStarted = times.parseStarted();
        int offset = 0;
        Plan plan = lastShaped == null ? null : database.plans().ofShape(sql, lastShaped);
        if (plan == null && shapedBefore != null) {
            plan = database.plans().ofShape(sql, shapedBefore);
            if (plan != null) {
                shapedBefore = lastShaped;
                lastShaped = plan;
            }
        }
        if (plan == null) {
            try {
                TokenList tokens = Lexer.tokenize(sql);
                List<StatementRange> ranges = StatementSplitter.split(tokens);
                if (ranges.size() != 1) {
                    return null;
                }
                StatementRange range = ranges.get(0);
                offset = range.start();
                plan = database.plans().get(sql, tokens, range);
            } catch (RuntimeException | StackOverflowError e) {
                return null; // the session's thread reports it (a SqlSyntaxException, or what failed)
            }
            if (plan.shaped()) {
                if (lastShaped == null || !plan.sameShape(lastShaped)) {
                    shapedBefore = lastShaped;
                }
                lastShaped = plan;
            }
        }
        LoopStatement result = onLoop(plan, ParameterValues.NONE, ParameterValues.NONE.types(), null, true, offset);
        if (result != null && parseStarted != 0) {
            times.parsed(parseStarted); // (counted once: a statement the loop leaves is parsed again, and counted, there)
        }
        return result;
    }

    /**
     * Whether nothing of the session runs or waits to be done that a statement run on the loop would pass by, and no
     * result still streams (closing one, as a new unnamed portal does the one it replaces, may wait for its backend).
     */
    private boolean idleForLoop() {
        TransactionState state = transaction.state();
        return !closed && !simpleQuery && running == 0 && !ends.settingsDirty()
                && (state == TransactionState.BLOCK && !connections.anyStreaming()
                    || state == TransactionState.IDLE && connections.holdsNone());
    }

    /**
     * @param simple whether it came in a simple query (its unit goes to the shard as one)
     * @param offset where the statement starts in the client's text (errors' positions are moved by it)
     */
    private LoopStatement onLoop(Plan original, ParameterValues parameters, int[] routeTypes, short[] backendFormats,
                                 boolean simple, int offset) {
        boolean inBlock = transaction.state() == TransactionState.BLOCK;
        if (original.statement().kind() == StatementKind.TRANSACTION) {
            return controlOnLoop(original, inBlock);
        }
        if (!loopKind(original.statement().kind(), inBlock)) {
            return null;
        }
        Plan plan;
        try {
            plan = logical.adjustOnLoop(original);
        } catch (StatementFailure | RuntimeException failure) {
            return null; // the session's thread reports it
        }
        if (plan == null) {
            return null;
        }
        AnalyzedStatement analyzed = plan.statement();
        if (!loopKind(analyzed.kind(), inBlock) || plan.textEffect() != CommandTags.Effect.NONE || plan.sequence() != null
                || logical.fromCatalogOrUnknownOnLoop(plan) || LogicalSession.isRefresh(analyzed)
                || ShardedForeignKeys.concerns(database.catalog().schema(), analyzed)) {
            return null;
        }
        ShardedExecution execution;
        BackendConnection.Statement unit;
        long routeStarted = times.routeStarted();
        try {
            execution = ShardedExecution.plan(database, plan, parameters, new RouteValues(parameters, routeTypes, settings.text()));
            if (execution.isSession() || execution.unitCount() != 1 || execution.dataSources().length != 1
                    || execution.keepsRowsInPlace() || execution.isWrite()) {
                return null;
            }
            if (simple) {
                execution.useSimpleProtocol();
            }
            execution.clientFormats(backendFormats);
            unit = execution.onlyUnit();
        } catch (RuntimeException e) {
            return null; // the session's thread reports what the route refuses (RouteException), or fails at
        }
        int dataSource = execution.dataSources()[0];
        BackendConnection connection = inBlock ? connections.inBlock(dataSource) : connections.lendNow(dataSource);
        boolean begins = false;
        if (connection == null && inBlock && !connections.joined(dataSource) && transaction.beginTravels()) {
            // The block's first statement on this data source: a plain BEGIN goes ahead of it, as on the session's thread.
            connection = connections.lendNow(dataSource);
            begins = true;
        }
        if (connection == null) {
            return null;
        }
        // Timed and kept for the slow-query log once it runs here (a statement left to the session's thread is routed there).
        times.forgetLast();
        if (routeStarted != 0) {
            times.routed(routeStarted, plan, execution);
        }
        return new LoopStatement(this, plan, execution, unit, connection, dataSource, !inBlock, begins, offset, times.runStarted());
    }

    /**
     * Transaction control the loop runs itself: a BEGIN or START TRANSACTION outside a transaction (the session keeps
     * it, as {@link ShardedTransaction#begin} does); a COMMIT or ROLLBACK (not AND CHAIN) of a block that no data source
     * joined (answered here) or that one joined (sent to it: its answer is the client's). Null for the rest.
     */
    private LoopStatement controlOnLoop(Plan plan, boolean inBlock) {
        if (!(plan.statement().body() instanceof TransactionStatement control)) {
            return null;
        }
        switch (control.command()) {
            case BEGIN, START_TRANSACTION -> {
                if (transaction.state() != TransactionState.IDLE) {
                    return null;
                }
                times.forgetLast();
                return LoopStatement.answered(this, plan, control,
                        control.command() == TransactionCommand.BEGIN ? "BEGIN" : "START TRANSACTION");
            }
            case COMMIT, ROLLBACK -> {
                // (DDL in the block: its end reads the schema again from the data sources, which waits.)
                if (!inBlock || control.chain() || transaction.lostDataSource() != null || logical.refreshPending()) {
                    return null;
                }
                boolean commit = control.command() == TransactionCommand.COMMIT;
                int only = connections.onlyJoined();
                if (only == -2) {
                    return null;
                }
                times.forgetLast();
                if (only == -1) {
                    return LoopStatement.answered(this, plan, control, commit ? "COMMIT" : "ROLLBACK");
                }
                return LoopStatement.transactionEnd(this, plan, control, connections.held(only), only, commit);
            }
            default -> {
                return null;
            }
        }
    }

    /** The kinds of statement the loop runs: reads, and in the client's block writes too. */
    private static boolean loopKind(StatementKind kind, boolean inBlock) {
        return kind == StatementKind.SELECT
                || inBlock && (kind == StatementKind.INSERT || kind == StatementKind.UPDATE || kind == StatementKind.DELETE);
    }

    /** A {@link LoopStatement} ended: as {@link #routed} ends a statement, or {@link TransactionStatements} one of control. */
    void loopFinished(LoopStatement statement, boolean failed, ResultSink sink) {
        TransactionStatement control = statement.control();
        if (control != null) {
            if (control.command() == TransactionCommand.BEGIN || control.command() == TransactionCommand.START_TRANSACTION) {
                transaction.begin(statement.plan().statement(), control);
            } else {
                // Over whatever the answer: a COMMIT that failed rolled back, a connection that broke took it along.
                transaction.over();
                connections.leaveAll();
                ends.afterStatement();
            }
            return;
        }
        if (statement.runStarted() != 0) {
            times.ran(statement.runStarted());
        }
        int[] dataSources = {statement.dataSource()};
        connections.markJoined(dataSources, statement.begins() ? BEGAN : NO_BEGIN);
        if (failed) {
            ends.afterFailure(false);
            return;
        }
        markWritten(statement.plan(), dataSources);
        try {
            finish(false, dataSources, sink);
        } catch (StatementFailure failure) {
            // finish reads nothing back after a statement that changed no setting and opened no transaction
            ends.afterStatement();
        }
    }

    /**
     * A statement that changed data ran in a transaction on these data sources: they count as written (two-phase
     * commit prepares them), and an INSERT on one of several data sources is kept for lastval/currval in the
     * transaction (its DEFAULTs' nextval ran there).
     */
    private void markWritten(Plan plan, int[] dataSources) {
        if (transaction.state().inTransaction() && PreparedCommit.changesData(plan.statement())) {
            connections.markWritten(dataSources);
            if (dataSources.length == 1 && plan.statement().kind() == StatementKind.INSERT && database.dataSources().size() > 1) {
                handOffs.sequences().afterInsert(plan, dataSources[0]);
            }
        }
    }

    /** Columns a data source described, in logical terms. */
    ColumnDescription[] logicalColumns(int dataSource, ColumnDescription[] columns) {
        return logical.logicalColumns(dataSource, columns);
    }

    /** A data source's error in logical names, on the event loop. */
    StatementFailure logicalFailure(StatementFailure failure) {
        return logical.logicalOnLoop(failure);
    }

    /** Routes a statement: its execution, timed for metrics and kept for the slow-query log. */
    private ShardedExecution route(Plan plan, ParameterValues parameters, int[] routeTypes) throws RouteException {
        long started = times.routeStarted();
        ShardedExecution execution = ShardedExecution.plan(database, plan, parameters, new RouteValues(parameters, routeTypes, settings.text()));
        if (started != 0) {
            times.routed(started, plan, execution);
        }
        return execution;
    }

    /**
     * A statement the route refused runs otherwise where it can: a foreign key across data sources is the proxy's
     * to enforce, an INSERT ... SELECT runs as a read then an INSERT, a read that spans shards as a recursive plan;
     * else the client gets the route's error.
     */
    private QueryResult refused(Plan plan, ParameterValues parameters, int[] routeTypes, RouteException e, ResultSink sink)
            throws StatementFailure {
        if (e.nullShardingValue().isPresent()) {
            RouteException.NullShardingValue what = e.nullShardingValue().get();
            StatementFailure notNull = notNullViolation(what.table(), what.column(), what.omitted());
            if (notNull != null) {
                throw notNull;
            }
        }
        if (e.crossShardKey().isPresent()) {
            return handOffs.foreignKeys().add(plan, e.crossShardKey().get(), e.getMessage(), sink);
        }
        if (e.sqlState().startsWith("22")) {
            // A value the route could not use (22023) or read (LIMIT 'x', 22P02): PostgreSQL's own error, with its position.
            StatementFailure data = describer.dataError(plan, parameters.types());
            if (data != null) {
                throw data;
            }
        }
        if (ShardedInsertSelect.applies(plan.statement(), database.rules(), e)) {
            return handOffs.insertSelect().run(plan, parameters, sink);
        }
        if (SeparateDrops.applies(plan.statement(), e)) {
            return dropSeparately(plan, sink);
        }
        RecursivePlan recursive = e.plannable() ? intermediates.plan(plan, new RouteValues(parameters, routeTypes, settings.text())) : null;
        if (recursive == null) {
            StatementFailure postgres = describer.postgresError(plan, parameters.types());
            throw postgres != null ? postgres : new StatementFailure(IntermediateResults.refusal(plan.statement(), e));
        }
        return recursive(recursive, parameters, sink);
    }

    /** DROP TABLE of tables no one route can name together: a DROP TABLE per table, in one transaction ({@link SeparateDrops}). */
    private QueryResult dropSeparately(Plan plan, ResultSink sink) throws StatementFailure {
        boolean startedImplicit = transaction.beginImplicitIfIdle();
        List<ErrorFields> notices = new ArrayList<>();
        try {
            for (String each : SeparateDrops.statements(plan.statement())) {
                QueryResult result = run(database.plans().get(each), ParameterValues.NONE, ParameterValues.NONE.types(), null, sink);
                try {
                    notices.addAll(result.notices());
                } finally {
                    result.close();
                }
            }
            if (startedImplicit) {
                ends.endTransaction(true, sink);
            }
        } catch (StatementFailure failure) {
            ends.afterFailure(startedImplicit);
            throw failure;
        }
        LogicalSession.mergeDropCascades(notices);
        return new TagResult("DROP TABLE", notices);
    }

    /**
     * PostgreSQL's own error for a NULL stored into a NOT NULL column (given, or left out without a default), where that
     * column is the sharding column of the row's table (the row would fail on any shard; it has none to go to): 23502 with the schema, table and column
     * fields, as application code reads them; no detail (PostgreSQL's shows the whole row, defaults filled in). Null
     * where the column takes NULLs: such a row has no shard, which stays Ashlar's 0A000.
     */
    private StatementFailure notNullViolation(String table, String column, boolean omitted) {
        io.ashlar.backend.metadata.LogicalTable logical = database.catalog().schema().table("public." + table);
        if (logical == null) {
            return null;
        }
        for (io.ashlar.backend.metadata.ColumnMetadata each : logical.metadata().columns()) {
            // A column left out takes its default, which the proxy does not evaluate: only one without is NULL for sure.
            if (each.name().equalsIgnoreCase(column) && each.notNull() && !(omitted && (!each.defaultExpression().isEmpty() || !each.identity().isEmpty()))) {
                return new StatementFailure(new ErrorFields(new byte[] {'S', 'V', 'C', 'M', 's', 't', 'c'},
                        new String[] {ErrorFields.ERROR, ErrorFields.ERROR, "23502", "null value in column \"" + column
                                + "\" of relation \"" + table + "\" violates not-null constraint", "public", table, column}));
            }
        }
        return null;
    }

    /** The session's connections to these data sources ({@code held}), and whether each needs the transaction's BEGIN. */
    private void acquire(int[] dataSources, BackendConnection[] held, boolean[] begin) throws StatementFailure {
        connections.acquireAll(dataSources);
        for (int i = 0; i < dataSources.length; i++) {
            held[i] = connections.acquire(dataSources[i]);
            begin[i] = transaction.needsBegin(dataSources[i]);
        }
    }

    /**
     * What a routed statement that ran leaves behind: notifications on the connections the session keeps go to the
     * client, changed sharding rules and schema are taken in (DDL of temporary tables mirrored on the catalog), and
     * connections that now keep session state stay with the session, or are marked when settings changed on them.
     */
    private void keepEffects(Plan plan, ShardedExecution execution, int[] dataSources, BackendConnection[] held, ResultSink sink) {
        for (int dataSource : dataSources) {
            if (connections.bound(dataSource) && connections.held(dataSource) != null) {
                connections.held(dataSource).relayNotifications(sink);
            }
        }
        if (execution.changesRules()) {
            database.updateRules(execution::rulesAfter);
        }
        if (plan.statement().kind() == StatementKind.DDL) {
            database.plans().schemaChanged();
            if (logical.ranDdl(plan.statement(), execution.boundSession())) {
                direct.mirrorOnCatalog(plan.statement().sql());
            } else if (database.catalog().catalogDataSource() != null && (LogicalSession.changesTypes(plan.statement())
                    || transaction.state().inTransaction() && LogicalSession.shapesCatalog(plan.statement()))) {
                direct.mirrorDdlOnCatalog(plan.statement().sql());
            }
        } else if (plan.statement().kind() == StatementKind.OTHER && plan.statement().command().equals("do")
                && GuardedDoBlock.createsObjectsOnly(plan.statement().sql())) {
            // CREATE TYPE in an EXCEPTION WHEN duplicate_object block: a type DDL as any other
            database.plans().schemaChanged();
            logical.ranTypeDdl();
            if (database.catalog().catalogDataSource() != null) {
                direct.mirrorDdlOnCatalog(plan.statement().sql());
            }
        }
        CommandTags.Effect text = plan.textEffect();
        // A nextval's sequence state is read and answered by the session itself where it can be: the connection goes back.
        if (text == CommandTags.Effect.SESSION_STATE && plan.sequence() != null && dataSources.length == 1
                && plan.sequence().kind() == io.ashlar.backend.sharding.SequenceStatement.Kind.NEXTVAL
                && CommandTags.textEffect(plan.statement().sql()) != CommandTags.Effect.SESSION_STATE
                && handOffs.sequences().snapshot(plan, held[0])) {
            text = CommandTags.Effect.NONE;
        }
        for (int i = 0; i < dataSources.length; i++) {
            if (execution.boundSession() || text == CommandTags.Effect.SESSION_STATE) {
                connections.markBound(dataSources[i]);
                held[i].keepsSessionState();
            } else if (text == CommandTags.Effect.SETTINGS) {
                // set_config ran on these connections: whatever it set, the next session to
                // borrow them starts from a reset; this session's own settings are read back at
                // the end of its transaction (or now) from the default data source.
                held[i].settings(SessionSettings.UNKNOWN);
                ends.settingsChanged();
                if (transaction.state() != TransactionState.IDLE) {
                    connections.settingsPending(dataSources[i]);
                }
            }
        }
    }

    /**
     * The end of a routed statement: the implicit transaction it opened commits, settings it changed are read back
     * (outside a transaction) or those applied to its connection reported, and connections go back.
     */
    private void finish(boolean startedImplicit, int[] dataSources, ResultSink sink) throws StatementFailure {
        if (startedImplicit) {
            ends.endTransaction(true, sink);
        }
        if (ends.settingsDirty() && transaction.state() == TransactionState.IDLE) {
            ends.settingsAfterTransaction(sink);
        } else if (settings.takeApplied() && dataSources.length > 0 && connections.held(dataSources[0]) != null) {
            settings.report(connections.held(dataSources[0]), sink);
        }
        ends.afterStatement();
    }

    /** Whether a run failed because the merge cannot combine the shards' answers of the types they have. */
    private static boolean unmergeable(StatementFailure failure) {
        ErrorFields fields = failure.fields();
        return fields.sqlState().equals("0A000") && (fields.message().startsWith("cannot merge the shards' results")
                || fields.message().startsWith("float results merged across shards"));
    }

    /**
     * Runs a recursive plan ({@link IntermediateResults}) in the session's transaction; outside a block, in an implicit
     * transaction of its own, so that the intermediate results (ON COMMIT DROP) go with it. Nothing it does counts as
     * a write: the data sources it read commit in one phase.
     */
    private QueryResult recursive(RecursivePlan recursive, ParameterValues parameters, ResultSink sink) throws StatementFailure {
        boolean startedImplicit = transaction.beginImplicitIfIdle();
        int coordinator = intermediates.coordinator(recursive);
        QueryResult result;
        running++;
        try {
            result = logical.logical(intermediates.run(recursive, parameters), coordinator);
        } catch (StatementFailure failure) {
            ends.afterFailure(startedImplicit);
            throw logical.logical(failure);
        } finally {
            running--;
        }
        if (startedImplicit) {
            ends.endTransaction(true, sink);
        }
        ends.afterStatement();
        return result;
    }

    /** A {@link StreamedResult} ended: its connections may go back, and its failure fails the transaction. */
    private void streamEnded(boolean failure) {
        timer.stop();
        if (failure) {
            transaction.afterError();
        }
        if (running == 0 && !closed) {
            ends.afterStatement();
        }
    }

    // ------------------------------------------------------------------ settings

    @Override
    public void reported(String name, String value) {
        settings.reported(name, value);
    }

    @Override
    public String reportedValue(String name) {
        return settings.reportedValue(name);
    }

    @Override
    public boolean shortestFloats() {
        return settings.shortestFloats();
    }

    /** The charset of the session's client_encoding, which its connections carry: their text is read in it. */
    java.nio.charset.Charset textCharset() {
        return settings.text();
    }

    @Override
    public io.ashlar.backend.execute.ClientEncoding clientEncoding() {
        return settings.encoding();
    }

    @Override
    public boolean isoDates() {
        return settings.isoDates();
    }

    @Override
    public int userEnum(int typeOid) {
        return database.catalog().userEnum(typeOid);
    }

    @Override
    public int[] compositeFields(int typeOid) {
        return database.catalog().compositeFields(typeOid);
    }

    @Override
    public int compositeOfArray(int typeOid) {
        return database.catalog().compositeOfArray(typeOid);
    }

    // ------------------------------------------------------------------ COPY

    @Override
    public CopyStream startCopy(String sql) throws StatementFailure {
        return copy.start(sql);
    }

    @Override
    public void endCopy() {
        copy.end();
    }

    // ------------------------------------------------------------------ status and end

    @Override
    public char transactionStatus() {
        return transaction.state().status();
    }

    @Override
    public boolean inImplicitTransaction() {
        return transaction.state().inImplicit();
    }

    @Override
    public void endImplicitTransaction() throws StatementFailure {
        ends.endImplicitTransaction();
    }

    @Override
    public void abortTransaction() {
        transaction.afterError();
    }

    @Override
    public void forgetImplicitTransaction() {
        // The implicit transaction's data sources become the explicit block's.
        transaction.becomeBlock();
    }

    @Override
    public long statementMemoryLimit() {
        return database.statementMemoryLimit();
    }

    @Override
    public ErrorFields lateNotice(ErrorFields notice) {
        return logical.logicalNotice(notice);
    }

    @Override
    public void onAsync(Runnable signal) {
        connections.onAsync(signal);
    }

    @Override
    public void relayAsync(ResultSink sink) {
        connections.relayAsync(sink);
    }

    @Override
    public void cancel() {
        connections.cancel();
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        timer.stop();
        connections.close();
        closed = true;
    }
}
