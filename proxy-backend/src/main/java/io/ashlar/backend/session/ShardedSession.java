package io.ashlar.backend.session;

import io.ashlar.backend.datasource.BackendConnection;
import io.ashlar.backend.datasource.BackendDataSource;
import io.ashlar.backend.datasource.ParameterValues;
import io.ashlar.backend.execute.BufferedResult;
import io.ashlar.backend.execute.CommandTags;
import io.ashlar.backend.execute.Batches;
import io.ashlar.backend.execute.ErrorFields;
import io.ashlar.backend.execute.QueryResult;
import io.ashlar.backend.execute.ResultSink;
import io.ashlar.backend.execute.StatementFailure;
import io.ashlar.backend.execute.TextRows;
import io.ashlar.backend.sharding.Plan;
import io.ashlar.backend.sharding.RouteValues;
import io.ashlar.backend.sharding.MergedCopyOut;
import io.ashlar.backend.sharding.ShardedCopyIn;
import io.ashlar.backend.sharding.ShardedExecution;
import io.ashlar.backend.sharding.TagResult;
import io.ashlar.parser.lexer.Lexer;
import io.ashlar.parser.lexer.SqlSyntaxException;
import io.ashlar.parser.lexer.StatementRange;
import io.ashlar.parser.lexer.StatementSplitter;
import io.ashlar.parser.lexer.TokenList;
import io.ashlar.parser.statement.AnalyzedStatement;
import io.ashlar.parser.statement.CopyStatement;
import io.ashlar.parser.statement.DeallocateStatement;
import io.ashlar.parser.statement.DiscardStatement;
import io.ashlar.parser.statement.ExecuteStatement;
import io.ashlar.parser.statement.PrepareStatement;
import io.ashlar.parser.statement.StatementKind;
import io.ashlar.parser.statement.TransactionCommand;
import io.ashlar.parser.statement.TransactionStatement;
import io.ashlar.route.RouteException;
import io.ashlar.route.RouteParameters;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import io.ashlar.backend.execute.CopyStream;

/**
 * The backend side of a session on a sharded logical database: each statement is analysed
 * (once per SQL text), routed, rewritten per shard, run on the data sources it needs and its
 * results merged.
 *
 * <p>Transactions: the client's BEGIN is kept by the session; each data source joins the
 * transaction when a statement first uses it (its BEGIN travels with that statement, or is
 * replayed with the isolation level, SET TRANSACTION and savepoints the session has); COMMIT
 * and ROLLBACK go to every data source that joined. After an error inside the block, the session
 * refuses statements with 25P02 until ROLLBACK, as PostgreSQL does, whatever data source the next
 * statement would use. A write that spans several data sources outside a block runs in an
 * implicit transaction across them. There is no two-phase commit: a COMMIT that fails on one data
 * source after others committed is reported as such.
 *
 * <p>Connections: one per data source at most, held for the length of a statement, of a
 * transaction, or for good once the session made state only that connection has.
 */
public final class ShardedSession implements BackendSession {

    private final LogicalDatabase database;
    private final BackendConnection[] held;
    private final boolean[] joined;
    private final boolean[] bound;
    private final List<String> savepoints = new ArrayList<>();
    private final List<String> transactionSettings = new ArrayList<>();
    private final Map<String, SqlPrepared> sqlPrepared = new HashMap<>();
    private final SettingsTracker settings;
    /** The client's event loop: the session's backend connections are borrowed there. */
    private final io.netty.channel.EventLoop loop;
    private boolean explicit;
    /** Whether the statement running now came in a simple query (its units then go to the backends as simple queries). */
    private boolean simpleQuery;
    /** A data source whose connection ended inside the explicit transaction (its COMMIT is an error). */
    private String lostDataSource;
    private boolean failed;
    private String beginSql;
    private boolean implicit;
    private boolean implicitFailed;
    private boolean settingsDirty;
    private boolean copying;
    private ShardedCopyIn shardedCopy;
    private boolean copyOpenedTransaction;
    private boolean closed;
    /** The logical schema's part: catalog queries, session values, logical names, DDL to read again. */
    private final io.ashlar.backend.metadata.LogicalSession logical;

    ShardedSession(LogicalDatabase database, SessionSettings startupSettings, io.netty.channel.EventLoop loop,
                   SessionIdentity identity) {
        this.loop = loop;
        this.database = database;
        this.settings = new SettingsTracker(startupSettings);
        this.logical = new io.ashlar.backend.metadata.LogicalSession(database, identity);
        int n = database.connectionSlots();
        this.held = new BackendConnection[n];
        this.joined = new boolean[n];
        this.bound = new boolean[n];
    }

    // ------------------------------------------------------------------ simple protocol

    @Override
    public void executeSimple(String sql, ResultSink sink) throws StatementFailure {
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
        if (several && !explicit) {
            implicit = true;
        }
        simpleQuery = true;
        try {
            for (StatementRange range : ranges) {
                Plan plan;
                try {
                    plan = database.plans().get(sql, tokens, range);
                } catch (SqlSyntaxException e) {
                    throw syntaxError(e, range.start());
                }
                stream(run(plan, ParameterValues.NONE, sink), sink);
            }
        } catch (StatementFailure failure) {
            if (several && implicit) {
                implicit = false;
                try {
                    endTransaction(false);
                } catch (StatementFailure ignored) {
                    // The statement's own error is the one the client gets.
                }
            }
            throw failure;
        } finally {
            simpleQuery = false;
        }
        if (several && implicit) {
            implicit = false;
            endTransaction(true);
        }
    }

    private static void stream(QueryResult result, ResultSink sink) throws StatementFailure {
        for (ErrorFields notice : result.notices()) {
            sink.notice(notice);
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
        }
        sink.complete(result.tag());
        result.close();
    }

    private static StatementFailure syntaxError(SqlSyntaxException e, int offset) {
        return new StatementFailure(new ErrorFields(new byte[] {'S', 'V', 'C', 'M', 'P'},
                new String[] {ErrorFields.ERROR, ErrorFields.ERROR, e.sqlState(), e.getMessage(),
                        Integer.toString(offset + e.position())}));
    }

    // ------------------------------------------------------------------ extended protocol

    @Override
    public Prepared prepare(String sql, int[] declaredTypes) throws StatementFailure {
        Plan plan;
        try {
            plan = database.plans().get(sql);
        } catch (SqlSyntaxException e) {
            throw syntaxError(e, 0);
        }
        int count = Math.max(declaredTypes.length, plan.statement().parameterCount());
        int[] types = count == declaredTypes.length ? declaredTypes : java.util.Arrays.copyOf(declaredTypes, count);
        return new Prepared(sql, types, plan);
    }

    @Override
    public QueryResult execute(Prepared statement, ParameterValues parameters, ResultSink statusSink,
                               boolean implicitTransaction) throws StatementFailure {
        int[] routeTypes = routeTypes(statement);
        if (implicitTransaction && !explicit) {
            implicit = true;
        }
        return run((Plan) statement.analysis(), parameters, routeTypes, statusSink);
    }

    /**
     * The types the parameters' values are read with to route the statement: PostgreSQL's. The
     * declared ones when the client declared every type; else what a backend's Describe of the
     * statement reported (its ParameterDescription: for {@code user_id = $1} the column's type),
     * learnt once per SQL text and declared types for all sessions, and asked for here when no
     * Describe happened yet (a Bind of an unnamed statement with no Describe before it). Without
     * this, asyncpg's binary int4 of unspecified type read as garbage text and its rows all went
     * to one shard. A Describe refused by the route (stand-in values) leaves the types unknown:
     * text is then considered both as text and as number, binary is unreadable.
     */
    private int[] routeTypes(Prepared statement) throws StatementFailure {
        int[] declared = statement.parameterTypes();
        boolean unspecified = false;
        for (int each : declared) {
            unspecified |= each == 0;
        }
        Plan plan = (Plan) statement.analysis();
        if (!unspecified || plan.statement().tables().isEmpty()) {
            return declared;
        }
        int[] learnt = plan.parameterTypes(declared, database.plans().schemaEpoch());
        if (learnt != Plan.NOT_LEARNT) {
            return learnt;
        }
        try {
            int[] result = describe(statement).parameterTypes();
            return result.length == declared.length ? result : declared;
        } catch (StatementFailure failure) {
            if (failure.getCause() == null) {
                return declared;
            }
            afterFailure(false);
            throw failure;
        }
    }

    /**
     * Rows are routed one by one (plan-cache hit, route, rewrite-cache hit); when every row lands
     * on exactly one unit, each data source gets its rows as one backend batch, the data
     * sources at the same time. A row that spans shards makes the caller run rows one by one.
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
        if (failed) {
            return new BatchOutcome(new String[0], 0, ErrorFields.error("25P02",
                    "current transaction is aborted, commands ignored until end of transaction block"));
        }
        int[] routeTypes = routeTypes(statement);
        int dataSourceCount = database.dataSources().size();
        ShardedExecution.SingleUnit[] units = new ShardedExecution.SingleUnit[rows.length];
        int[] perDataSource = new int[dataSourceCount];
        for (int i = 0; i < rows.length; i++) {
            ShardedExecution execution;
            try {
                execution = ShardedExecution.plan(database, plan, rows[i], new RouteValues(rows[i], routeTypes));
            } catch (RouteException e) {
                return null;
            }
            ShardedExecution.SingleUnit unit = execution.singleUnit();
            if (unit == null) {
                return null;
            }
            units[i] = unit;
            perDataSource[unit.dataSource()]++;
        }
        int groups = 0;
        for (int count : perDataSource) {
            if (count > 0) {
                groups++;
            }
        }
        // A batch that is the whole of its implicit transaction, on one data source, commits (or
        // rolls back) with the backend's own Sync, as PostgreSQL ends a pipeline: no BEGIN, no
        // COMMIT round trip at the client's Sync. Over several data sources, the transaction
        // spans them and ends at the client's Sync.
        boolean commitsWithSync = lastBeforeSync && !explicit && !implicit && groups == 1;
        if (!explicit && !commitsWithSync) {
            implicit = true;
        }
        int[] dataSources = new int[groups];
        for (int d = 0, g = 0; d < dataSourceCount; d++) {
            if (perDataSource[d] > 0) {
                dataSources[g++] = d;
            }
        }
        BackendConnection[] connections = new BackendConnection[groups];
        boolean[] begin = new boolean[groups];
        try {
            for (int g = 0; g < groups; g++) {
                connections[g] = acquire(dataSources[g]);
                begin[g] = needsBegin(dataSources[g]);
            }
        } catch (StatementFailure failure) {
            afterFailure(false);
            return new BatchOutcome(new String[0], 0, failure.fields());
        }
        int[][] rowIndexes = new int[groups][];
        BatchOutcome[] outcomes = new BatchOutcome[groups];
        for (int g = 0; g < groups; g++) {
            int[] indexes = new int[perDataSource[dataSources[g]]];
            for (int i = 0, k = 0; i < rows.length; i++) {
                if (units[i].dataSource() == dataSources[g]) {
                    indexes[k++] = i;
                }
            }
            rowIndexes[g] = indexes;
        }
        // Each data source gets its rows in one write before any answer is read: they work at
        // the same time, with no thread but the session's.
        BackendConnection.SentBatch[] sent = new BackendConnection.SentBatch[groups];
        for (int g = 0; g < groups; g++) {
            try {
                sent[g] = sendBatch(connections[g], begin[g], units, rowIndexes[g]);
            } catch (SQLException e) {
                outcomes[g] = new BatchOutcome(new String[0], 0, ErrorFields.from(e));
            } catch (RuntimeException e) {
                outcomes[g] = internalBatchError(e);
            }
        }
        for (int g = 0; g < groups; g++) {
            if (sent[g] != null) {
                try {
                    outcomes[g] = Batches.outcome(connections[g].receiveBatch(sent[g]));
                } catch (RuntimeException e) {
                    outcomes[g] = internalBatchError(e);
                }
            }
        }
        markJoined(dataSources, begin);
        // The client's rows in order: the first failing row (lowest index over all data sources)
        // ends the batch; the rows before it ran on their data sources before any failure there.
        String[] tags = new String[rows.length];
        int failedRow = -1;
        ErrorFields error = null;
        for (int g = 0; g < groups; g++) {
            BatchOutcome outcome = outcomes[g];
            int[] indexes = rowIndexes[g];
            for (int k = 0; k < outcome.tags().length; k++) {
                tags[indexes[k]] = outcome.tags()[k];
            }
            if (outcome.failedRow() >= 0) {
                // Past the data source's last row: its commit at Sync failed, after every row.
                int row = outcome.failedRow() < indexes.length ? indexes[outcome.failedRow()] : rows.length;
                if (failedRow < 0 || row < failedRow) {
                    failedRow = row;
                    error = outcome.error();
                }
            }
        }
        if (failedRow >= 0) {
            afterFailure(false);
            return new BatchOutcome(java.util.Arrays.copyOf(tags, failedRow), failedRow, logical.logical(error));
        }
        afterStatement();
        return new BatchOutcome(tags, -1, null);
    }

    private static BackendConnection.SentBatch sendBatch(BackendConnection connection, boolean begin,
                                                         ShardedExecution.SingleUnit[] units, int[] indexes) throws SQLException {
        String[] sqls = new String[indexes.length];
        ParameterValues[] parameters = new ParameterValues[indexes.length];
        for (int k = 0; k < indexes.length; k++) {
            sqls[k] = units[indexes[k]].sql();
            parameters[k] = units[indexes[k]].parameters();
        }
        return connection.sendBatch(sqls, parameters, begin);
    }

    private static BatchOutcome internalBatchError(RuntimeException e) {
        return new BatchOutcome(new String[0], 0, ErrorFields.error("XX000", "internal error running a shard's batch: " + e));
    }

    @Override
    public Description describe(Prepared statement) throws StatementFailure {
        Plan plan = (Plan) statement.analysis();
        if (plan.statement().body() instanceof ExecuteStatement execute) {
            // EXECUTE returns what its prepared statement returns (PostgreSQL describes it so).
            Plan executed = sqlPrepared.containsKey(execute.name()) ? executedPlan(plan.statement(), execute) : null;
            return executed == null ? new Description(statement.parameterTypes(), Optional.empty())
                    : describe(new Prepared(executed.statement().sql(), new int[0], executed));
        }
        long schemaEpoch = database.plans().schemaEpoch();
        Plan adjusted = logical.adjust(plan);
        ShardedExecution.Target target = logical.fromCatalog(adjusted)
                ? new ShardedExecution.Target(database.catalogSlot(), adjusted.statement().sql(), Optional.empty()) : null;
        if (target == null) try {
            target = ShardedExecution.representative(database, adjusted, new UnknownParameters(statement.parameterTypes().length, null));
        } catch (RouteException unroutable) {
            // Some routes refuse a NULL sharding value (an INSERT's key); any shard describes the
            // statement as well as another, so try a value every algorithm of integers places.
            try {
                target = ShardedExecution.representative(database, adjusted, new UnknownParameters(statement.parameterTypes().length, 0));
            } catch (RouteException e) {
                throw new StatementFailure(ErrorFields.error(unroutable.sqlState(), unroutable.getMessage()));
            }
        }
        BackendConnection connection = acquire(target.dataSource());
        BufferedResult result = new BufferedResult();
        int[] types = statement.parameterTypes();
        try {
            types = connection.describe(target.sql(), statement.parameterTypes(), result);
        } catch (SQLException e) {
            result.handleError(e);
        }
        afterStatement();
        if (result.error() != null) {
            throw logical.logical(new StatementFailure(ErrorFields.from(result.error()), result.error()));
        }
        plan.learnParameterTypes(statement.parameterTypes(), types, schemaEpoch);
        return new Description(types, result.hasRows()
                ? Optional.of(logical.logicalColumns(target.dataSource(), target.visible(result.columns()))) : Optional.empty());
    }

    /** Parameters of unknown value, all the same stand-in, for routing a Describe to a representative shard. */
    private record UnknownParameters(int count, Object standIn) implements RouteParameters {
        @Override
        public Object value(int index) {
            return standIn;
        }

        @Override
        public boolean placeholders() {
            return true;
        }
    }

    // ------------------------------------------------------------------ one statement

    private QueryResult run(Plan plan, ParameterValues parameters, ResultSink sink) throws StatementFailure {
        return run(plan, parameters, parameters.types(), sink);
    }

    private QueryResult run(Plan plan, ParameterValues parameters, int[] routeTypes, ResultSink sink) throws StatementFailure {
        plan = logical.adjust(plan);
        AnalyzedStatement statement = plan.statement();
        StatementKind kind = statement.kind();
        if (failed && !(kind == StatementKind.TRANSACTION && endsFailedBlock((TransactionStatement) statement.body()))) {
            throw new StatementFailure(ErrorFields.error("25P02",
                    "current transaction is aborted, commands ignored until end of transaction block"));
        }
        switch (kind) {
            case TRANSACTION:
                return transaction(statement, (TransactionStatement) statement.body(), sink);
            case DISCARD:
                if (statement.body() instanceof DiscardStatement discard
                        && (discard.target().equalsIgnoreCase("all") || discard.target().equalsIgnoreCase("plans"))) {
                    sqlPrepared.clear();
                }
                return setting(statement, sink);
            case SET:
            case RESET:
                return setting(statement, sink);
            case SHOW:
                return onDefault(statement.sql(), sink);
            case EMPTY:
                return TagResult.EMPTY;
            case PREPARE:
                return sqlPrepare(statement, (PrepareStatement) statement.body());
            case EXECUTE:
                return sqlExecute(statement, (ExecuteStatement) statement.body(), sink);
            case DEALLOCATE:
                return sqlDeallocate((DeallocateStatement) statement.body());
            default:
                if (logical.fromCatalog(plan)) {
                    return onSlot(database.catalogSlot(), statement.sql(), parameters, sink);
                }
                if (io.ashlar.backend.metadata.LogicalSession.isRefresh(statement)) {
                    return logical.refresh(statement);
                }
                return routed(plan, parameters, routeTypes, sink);
        }
    }

    // ------------------------------------------------------------------ SQL-level PREPARE / EXECUTE

    /** A statement prepared with SQL's PREPARE: its analysis and declared parameter types. */
    private record SqlPrepared(AnalyzedStatement statement, List<String> parameterTypes) {
    }

    private QueryResult sqlPrepare(AnalyzedStatement prepare, PrepareStatement body) throws StatementFailure {
        if (sqlPrepared.containsKey(body.name())) {
            throw new StatementFailure(ErrorFields.error("42P05", "prepared statement \"" + body.name() + "\" already exists"));
        }
        String text = prepare.sql().substring(body.statement().start(), body.statement().end());
        AnalyzedStatement inner;
        try {
            inner = database.plans().get(text).statement();
        } catch (SqlSyntaxException e) {
            throw syntaxError(e, body.statement().start());
        }
        sqlPrepared.put(body.name(), new SqlPrepared(inner, body.parameterTypes()));
        return new TagResult("PREPARE", List.of());
    }

    /**
     * EXECUTE name(arguments): the prepared statement's text with each {@code $n} replaced by its
     * argument (cast to the declared type), run as any statement: routed by the arguments' values.
     */
    private QueryResult sqlExecute(AnalyzedStatement execute, ExecuteStatement body, ResultSink sink)
            throws StatementFailure {
        return run(executedPlan(execute, body), ParameterValues.NONE, sink);
    }

    /** The statement EXECUTE runs: the prepared text with its arguments in place of its parameters. */
    private Plan executedPlan(AnalyzedStatement execute, ExecuteStatement body) throws StatementFailure {
        SqlPrepared prepared = sqlPrepared.get(body.name());
        if (prepared == null) {
            throw new StatementFailure(ErrorFields.error("26000", "prepared statement \"" + body.name() + "\" does not exist"));
        }
        AnalyzedStatement inner = prepared.statement();
        int expected = Math.max(inner.parameterCount(), prepared.parameterTypes().size());
        if (body.arguments().size() != expected) {
            throw new StatementFailure(new ErrorFields(new byte[] {'S', 'V', 'C', 'M', 'D'}, new String[] {
                    ErrorFields.ERROR, ErrorFields.ERROR, "42601",
                    "wrong number of parameters for prepared statement \"" + body.name() + "\"",
                    "Expected " + expected + " parameters but got " + body.arguments().size() + "."}));
        }
        String sql = inner.sql();
        StringBuilder text = new StringBuilder(sql.length() + 16 * expected);
        int at = 0;
        for (var marker : inner.parameters()) {
            text.append(sql, at, marker.range().start());
            int index = marker.number() - 1;
            String argument = execute.sql().substring(body.arguments().get(index).start(), body.arguments().get(index).end());
            if (index < prepared.parameterTypes().size()) {
                text.append("CAST(").append(argument).append(" AS ").append(prepared.parameterTypes().get(index)).append(')');
            } else {
                text.append('(').append(argument).append(')');
            }
            at = marker.range().end();
        }
        text.append(sql, at, sql.length());
        try {
            return database.plans().get(text.toString());
        } catch (SqlSyntaxException e) {
            throw syntaxError(e, 0);
        }
    }

    private QueryResult sqlDeallocate(DeallocateStatement body) throws StatementFailure {
        if (body.name().isEmpty()) {
            sqlPrepared.clear();
            return new TagResult("DEALLOCATE ALL", List.of());
        }
        if (sqlPrepared.remove(body.name().get()) == null) {
            throw new StatementFailure(ErrorFields.error("26000", "prepared statement \"" + body.name().get() + "\" does not exist"));
        }
        return new TagResult("DEALLOCATE", List.of());
    }

    private static boolean endsFailedBlock(TransactionStatement statement) {
        TransactionCommand command = statement.command();
        return command == TransactionCommand.ROLLBACK || command == TransactionCommand.COMMIT
                || command == TransactionCommand.ROLLBACK_TO_SAVEPOINT;
    }

    private QueryResult routed(Plan plan, ParameterValues parameters, int[] routeTypes, ResultSink sink) throws StatementFailure {
        ShardedExecution execution;
        try {
            execution = ShardedExecution.plan(database, plan, parameters, new RouteValues(parameters, routeTypes));
        } catch (RouteException e) {
            throw new StatementFailure(ErrorFields.error(e.sqlState(), e.getMessage()));
        }
        if (execution.isSession()) {
            return onDefault(plan.statement().sql(), sink);
        }
        if (simpleQuery) {
            execution.useSimpleProtocol();
        }
        if (plan.textEffect() == CommandTags.Effect.NONE) {
            execution.streamRows();
        }
        int[] dataSources = execution.dataSources();
        boolean atomic = !explicit && execution.isWrite() && (dataSources.length > 1 || execution.unitCount() > 1)
                && !execution.refusesTransaction();
        boolean startedImplicit = false;
        if (atomic && !implicit) {
            implicit = true;
            startedImplicit = true;
        }
        BackendConnection[] connections = new BackendConnection[dataSources.length];
        boolean[] begin = new boolean[dataSources.length];
        try {
            for (int i = 0; i < dataSources.length; i++) {
                connections[i] = acquire(dataSources[i]);
                begin[i] = needsBegin(dataSources[i]);
            }
        } catch (StatementFailure failure) {
            afterFailure(startedImplicit);
            throw failure;
        }
        QueryResult result;
        running++;
        try {
            result = logical.logical(execution.run(connections, begin, settings.shortestFloats()), dataSources[0]);
        } catch (StatementFailure failure) {
            markJoined(dataSources, begin);
            afterFailure(startedImplicit);
            throw logical.logical(failure);
        } finally {
            running--;
        }
        markJoined(dataSources, begin);
        if (execution.streams()) {
            result = new StreamedResult(result);
        }
        for (int dataSource : dataSources) {
            if (bound[dataSource] && held[dataSource] != null) {
                held[dataSource].relayNotifications(sink);
            }
        }
        if (execution.changesRules()) {
            database.updateRules(execution::rulesAfter);
        }
        if (plan.statement().kind() == StatementKind.DDL) {
            database.plans().schemaChanged();
            if (logical.ranDdl(plan.statement(), execution.boundSession())) {
                mirrorOnCatalog(plan.statement().sql());
            }
        }
        CommandTags.Effect text = plan.textEffect();
        for (int i = 0; i < dataSources.length; i++) {
            if (execution.boundSession() || text == CommandTags.Effect.SESSION_STATE) {
                bound[dataSources[i]] = true;
                connections[i].keepsSessionState();
            } else if (text == CommandTags.Effect.SETTINGS) {
                // set_config ran on these connections: whatever it set, the next session to
                // borrow them starts from a reset; this session's own settings are read back at
                // the end of its transaction (or now) from the default data source.
                connections[i].settings(SessionSettings.UNKNOWN);
                settingsDirty = true;
            }
        }
        if (startedImplicit) {
            implicit = false;
            endTransaction(true, sink);
        }
        if (settingsDirty && !explicit && !implicit) {
            settingsAfterTransaction(sink);
        } else if (settings.takeApplied() && dataSources.length > 0 && held[dataSources[0]] != null) {
            settings.report(held[dataSources[0]], sink);
        }
        afterStatement();
        return result;
    }

    /** Statements of this session being run now (a stream that ends meanwhile leaves its connections to them). */
    private int running;

    /**
     * A result that still reads its backend connections after {@link #routed} returned: when it
     * ends (read to the end, closed, or failed on the way) the connections it read go back to their
     * pools as after any statement, and a failure fails the session's transaction as any
     * statement's does (the backend's part of it failed: a COMMIT must not commit the others).
     */
    private final class StreamedResult implements QueryResult {
        private final QueryResult result;
        private boolean ended;

        StreamedResult(QueryResult result) {
            this.result = result;
        }

        private void ended(boolean failure) {
            if (ended) {
                return;
            }
            ended = true;
            if (failure) {
                if (explicit) {
                    failed = true;
                } else if (implicit) {
                    implicitFailed = true;
                }
            }
            if (running == 0 && !closed) {
                afterStatement();
            }
        }

        @Override
        public boolean hasRows() {
            return result.hasRows();
        }

        @Override
        public io.ashlar.backend.execute.ColumnDescription[] columns() {
            return result.columns();
        }

        @Override
        public boolean next() throws StatementFailure {
            boolean more;
            try {
                more = result.next();
            } catch (StatementFailure failure) {
                result.close();
                ended(true);
                throw failure;
            }
            if (!more) {
                result.close();
                ended(false);
            }
            return more;
        }

        @Override
        public io.ashlar.backend.execute.RowValues row() {
            return result.row();
        }

        @Override
        public String tag() {
            return result.tag();
        }

        @Override
        public boolean isEmptyQuery() {
            return result.isEmptyQuery();
        }

        @Override
        public List<ErrorFields> notices() {
            return result.notices();
        }

        @Override
        public void close() {
            result.close();
            ended(false);
        }
    }

    /**
     * Runs DDL of the session's temporary tables on its catalog database connection too, which the session then
     * keeps: its catalog queries see its temporary tables, as on PostgreSQL. A failure there leaves the catalog
     * without the table and the session's statement as it went (inside a transaction, a savepoint undoes it).
     */
    private void mirrorOnCatalog(String sql) {
        int slot = database.catalogSlot();
        try {
            BackendConnection connection = acquire(slot);
            boolean begin = needsBegin(slot);
            boolean inBlock = begin || joined[slot];
            try {
                runOn(connection, (begin ? "BEGIN;" : "") + (inBlock ? "SAVEPOINT ashlar_shell;" + sql + ";RELEASE SAVEPOINT ashlar_shell" : sql));
            } catch (StatementFailure failure) {
                if (inBlock && connection.status() == 'E') {
                    runOn(connection, "ROLLBACK TO SAVEPOINT ashlar_shell;RELEASE SAVEPOINT ashlar_shell");
                }
            }
            if (begin && connection.status() != 'I') {
                joined[slot] = true;
            }
            bound[slot] = true;
        } catch (StatementFailure ignored) {
            // Without a catalog connection the session's catalog queries do not see the table; its statements do.
        }
    }

    private void markJoined(int[] dataSources, boolean[] begin) {
        for (int i = 0; i < dataSources.length; i++) {
            if (begin[i] && held[dataSources[i]] != null
                    && held[dataSources[i]].status() != 'I') {
                joined[dataSources[i]] = true;
            }
        }
    }

    private void afterFailure(boolean startedImplicit) {
        if (explicit) {
            failed = true;
        } else if (implicit) {
            implicitFailed = true;
            if (startedImplicit) {
                implicit = false;
                implicitFailed = false;
                try {
                    endTransaction(false);
                } catch (StatementFailure ignored) {
                    // The statement's own error is the one the client gets.
                }
            }
        }
        afterStatement();
    }

    /**
     * Whether a statement on this data source must open the transaction first (the session is in
     * a block, or an implicit transaction, and the data source has not joined it yet). A plain
     * BEGIN travels with the statement; anything more is sent here first.
     */
    private boolean needsBegin(int dataSource) throws StatementFailure {
        if ((!explicit && !implicit) || joined[dataSource]) {
            return false;
        }
        if (beginSql == null && savepoints.isEmpty() && transactionSettings.isEmpty()) {
            return true;
        }
        StringBuilder sql = new StringBuilder(beginSql == null ? "BEGIN" : beginSql);
        for (String each : transactionSettings) {
            sql.append(';').append(each);
        }
        for (String savepoint : savepoints) {
            sql.append(";SAVEPOINT ").append(quoteIdentifier(savepoint));
        }
        runOn(held[dataSource], sql.toString());
        joined[dataSource] = true;
        return false;
    }

    // ------------------------------------------------------------------ transaction control

    private QueryResult transaction(AnalyzedStatement statement, TransactionStatement body, ResultSink sink)
            throws StatementFailure {
        List<ErrorFields> notices = new ArrayList<>(1);
        switch (body.command()) {
            case BEGIN, START_TRANSACTION -> {
                if (explicit) {
                    notices.add(warning("25001", "there is already a transaction in progress"));
                } else {
                    explicit = true;
                    implicit = false;
                    boolean plain = body.isolationLevel().isEmpty() && body.readOnly().isEmpty() && body.deferrable().isEmpty();
                    beginSql = plain ? null : statement.sql();
                    // A data source already in the implicit transaction of this pipeline stays in it.
                }
                return new TagResult(body.command() == TransactionCommand.BEGIN ? "BEGIN" : "START TRANSACTION", notices);
            }
            case COMMIT -> {
                if (!explicit) {
                    notices.add(warning("25P01", "there is no transaction in progress"));
                    return new TagResult("COMMIT", notices);
                }
                boolean commit = !failed;
                String lost = lostDataSource;
                endTransaction(commit, sink);
                if (lost != null) {
                    // Not the quiet ROLLBACK of a failed transaction: the client never saw it fail.
                    throw new StatementFailure(ErrorFields.error("08006", "the transaction was rolled back: the"
                            + " connection to data source " + lost + " ended before COMMIT"));
                }
                return new TagResult(commit ? "COMMIT" : "ROLLBACK", notices);
            }
            case ROLLBACK -> {
                if (!explicit) {
                    notices.add(warning("25P01", "there is no transaction in progress"));
                    return new TagResult("ROLLBACK", notices);
                }
                endTransaction(false, sink);
                return new TagResult("ROLLBACK", notices);
            }
            case SAVEPOINT, RELEASE_SAVEPOINT, ROLLBACK_TO_SAVEPOINT -> {
                return savepoint(statement, body);
            }
            case SET_SESSION_CHARACTERISTICS -> {
                // The session's default transaction modes: a setting like any other.
                return setting(statement, sink);
            }
            case SET_TRANSACTION -> {
                if (!explicit) {
                    return onDefault(statement.sql(), sink);
                }
                runOnJoined(statement.sql());
                transactionSettings.add(statement.sql());
                return new TagResult("SET", notices);
            }
            default -> throw new StatementFailure(ErrorFields.error("0A000", statement.command().toUpperCase()
                    + " (two-phase commit) is not supported on the sharded logical database " + database.name()));
        }
    }

    private QueryResult savepoint(AnalyzedStatement statement, TransactionStatement body) throws StatementFailure {
        String name = body.name().orElse("");
        if (!explicit) {
            String command = body.command() == TransactionCommand.SAVEPOINT ? "SAVEPOINT"
                    : body.command() == TransactionCommand.RELEASE_SAVEPOINT ? "RELEASE SAVEPOINT" : "ROLLBACK TO SAVEPOINT";
            throw new StatementFailure(ErrorFields.error("25P01", command + " can only be used in transaction blocks"));
        }
        int index = savepoints.lastIndexOf(name);
        if (body.command() != TransactionCommand.SAVEPOINT && index < 0) {
            failed = true;
            throw new StatementFailure(ErrorFields.error("3B001", "savepoint \"" + name + "\" does not exist"));
        }
        try {
            runOnJoined(statement.sql());
        } catch (StatementFailure failure) {
            failed = true;
            throw failure;
        }
        switch (body.command()) {
            case SAVEPOINT -> {
                savepoints.add(name);
                return new TagResult("SAVEPOINT", List.of());
            }
            case RELEASE_SAVEPOINT -> {
                savepoints.subList(index, savepoints.size()).clear();
                return new TagResult("RELEASE", List.of());
            }
            default -> {
                savepoints.subList(index + 1, savepoints.size()).clear();
                failed = false;
                return new TagResult("ROLLBACK", List.of());
            }
        }
    }

    /** Runs a statement on every data source that joined the transaction. */
    private void runOnJoined(String sql) throws StatementFailure {
        StatementFailure first = null;
        for (int i = 0; i < held.length; i++) {
            if (joined[i] && held[i] != null) {
                try {
                    runOn(held[i], sql);
                } catch (StatementFailure failure) {
                    if (first == null) {
                        first = failure;
                    }
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    /** {@link #endTransaction(boolean, ResultSink)} where nobody hears of settings changes. */
    private void endTransaction(boolean commit) throws StatementFailure {
        endTransaction(commit, ResultSink.DISCARD);
    }

    /**
     * Ends the transaction on every data source that joined it: COMMIT, or ROLLBACK. A failed
     * COMMIT rolls back the data sources not yet committed and is reported. Settings changed in
     * it are read back (and changes reported to {@code sink}) before its connections go back.
     */
    private void endTransaction(boolean commit, ResultSink sink) throws StatementFailure {
        StatementFailure first = null;
        if (commit) {
            for (int i = 0; i < held.length; i++) {
                if (held[i] != null && joined[i] && held[i].isBroken()) {
                    // A data source's part of the transaction is gone with its connection: committing
                    // the others would keep half of it. All roll back, and the client is told.
                    first = new StatementFailure(ErrorFields.error("08006", "the transaction was rolled back: the"
                            + " connection to data source " + held[i].dataSource().name() + " ended before COMMIT"));
                    commit = false;
                    break;
                }
            }
        }
        for (int i = 0; i < held.length; i++) {
            BackendConnection connection = held[i];
            if (connection == null || !joined[i]) {
                continue;
            }
            boolean doCommit = commit && first == null && connection.status() == 'T';
            try {
                runOn(connection, doCommit ? "COMMIT" : "ROLLBACK");
            } catch (StatementFailure failure) {
                if (first == null) {
                    first = failure;
                }
            }
            joined[i] = false;
        }
        explicit = false;
        failed = false;
        lostDataSource = null;
        beginSql = null;
        savepoints.clear();
        transactionSettings.clear();
        try {
            settingsAfterTransaction(sink);
        } finally {
            afterStatement();
        }
        if (first != null) {
            throw first;
        }
    }

    private void runOn(BackendConnection connection, String sql) throws StatementFailure {
        try {
            TextRows.run(connection, sql);
        } catch (SQLException e) {
            throw new StatementFailure(ErrorFields.from(e), e);
        }
    }

    private static ErrorFields warning(String sqlState, String message) {
        return ErrorFields.of("WARNING", sqlState, message);
    }

    private static String quoteIdentifier(String name) {
        return "\"" + name.replace("\"", "\"\"") + "\"";
    }

    // ------------------------------------------------------------------ settings

    /**
     * SET, RESET, DISCARD: run on the default data source (which checks the value and answers)
     * and on every connection the session holds, so that all of them agree; the settings are
     * read back when the transaction ends and replayed on connections used later.
     */
    private QueryResult setting(AnalyzedStatement statement, ResultSink sink) throws StatementFailure {
        int defaultIndex = database.dataSourceIndex(database.defaultDataSource().name());
        QueryResult result = onDefault(statement.sql(), sink);
        for (int i = 0; i < held.length; i++) {
            if (i != defaultIndex && held[i] != null) {
                runOn(held[i], statement.sql());
            }
        }
        return result;
    }

    /** Runs a statement as is on the default data source, passing its result through. */
    private QueryResult onDefault(String sql, ResultSink sink) throws StatementFailure {
        return onSlot(database.dataSourceIndex(database.defaultDataSource().name()), sql, ParameterValues.NONE, sink);
    }

    /** Runs a statement as is on the data source (or the catalog database) of a connection slot. */
    private QueryResult onSlot(int index, String sql, ParameterValues parameters, ResultSink sink) throws StatementFailure {
        BackendConnection connection = acquire(index);
        boolean begin = needsBegin(index);
        BufferedResult result = new BufferedResult();
        try {
            connection.execute(sql, parameters, result, begin);
        } catch (SQLException e) {
            result.handleError(e);
        }
        if (begin && connection.status() != 'I') {
            joined[index] = true;
        }
        if (bound[index]) {
            connection.relayNotifications(sink);
        }
        CommandTags.Effect effect = CommandTags.combine(CommandTags.effect(result.tag()), CommandTags.textEffect(sql));
        if (effect == CommandTags.Effect.SETTINGS) {
            if (!explicit && !implicit) {
                settings.readBack(connection);
            } else {
                settingsDirty = true;
            }
            settings.report(connection, sink);
        } else if (effect == CommandTags.Effect.SESSION_STATE) {
            bound[index] = true;
            connection.keepsSessionState();
        }
        if (result.error() != null) {
            if (explicit) {
                failed = true;
            }
            afterStatement();
            throw new StatementFailure(ErrorFields.from(result.error()), result.error());
        }
        afterStatement();
        return result;
    }

    /**
     * After a transaction in which settings changed: read them back from the default data
     * source's connection (a rolled-back SET is gone) and tell the client what changed.
     */
    private void settingsAfterTransaction(ResultSink sink) throws StatementFailure {
        if (!settingsDirty) {
            return;
        }
        settingsDirty = false;
        // Read from the connection the session still holds (not one handed back already: another
        // session may hold it by now), or from one borrowed for the purpose.
        int index = database.dataSourceIndex(database.defaultDataSource().name());
        BackendConnection held = this.held[index];
        BackendConnection current = held != null && !held.isBroken() ? held : acquire(index);
        settings.readBack(current);
        settings.report(current, sink);
    }

    @Override
    public void reported(String name, String value) {
        settings.reported(name, value);
    }

    @Override
    public String reportedValue(String name) {
        return settings.reportedValue(name);
    }

    // ------------------------------------------------------------------ connections

    private BackendConnection acquire(int index) throws StatementFailure {
        if (closed) {
            throw new StatementFailure(ErrorFields.error("08003", "the session is closed"));
        }
        BackendConnection connection = held[index];
        if (connection != null) {
            return connection;
        }
        BackendDataSource dataSource = database.slotDataSource(index);
        try {
            connection = dataSource.borrow(loop);
        } catch (SQLException e) {
            throw new StatementFailure(ErrorFields.error("08006", "could not get a connection to data source "
                    + dataSource.name() + ": " + e.getMessage()), e);
        }
        try {
            settings.give(connection);
        } catch (SQLException e) {
            connection.release();
            throw new StatementFailure(ErrorFields.from(e), e);
        }
        held[index] = connection;
        return connection;
    }

    /** Returns the connections no transaction or session state keeps. */
    private void afterStatement() {
        if (!explicit && !implicit) {
            logical.idle();
        }
        for (int i = 0; i < held.length; i++) {
            BackendConnection connection = held[i];
            if (connection == null) {
                continue;
            }
            if (connection.isBroken()) {
                held[i] = null;
                if (joined[i] && explicit) {
                    failed = true;
                    lostDataSource = connection.dataSource().name();
                }
                joined[i] = false;
                connection.settings(SessionSettings.EMPTY);
                connection.release();
                continue;
            }
            if (explicit || implicit || bound[i] || joined[i] || connection.isStreaming()) {
                continue;
            }
            if (connection.status() != 'I') {
                continue;
            }
            held[i] = null;
            connection.release();
        }
    }

    // ------------------------------------------------------------------ COPY

    @Override
    public CopyStream startCopy(String sql) throws StatementFailure {
        if (failed) {
            throw new StatementFailure(ErrorFields.error("25P02",
                    "current transaction is aborted, commands ignored until end of transaction block"));
        }
        Plan plan;
        try {
            plan = database.plans().get(sql);
        } catch (SqlSyntaxException e) {
            throw syntaxError(e, 0);
        }
        if (ShardedCopyIn.handles(database.rules(), plan.statement())) {
            return logical.logical(startShardedCopy(plan));
        }
        ShardedExecution.Target target;
        try {
            target = ShardedExecution.copyTarget(database, plan);
        } catch (RouteException e) {
            if (plan.statement().body() instanceof CopyStatement copy && !copy.from() && copy.stdio()) {
                return logical.logical(mergedCopyOut(plan, copy));
            }
            throw new StatementFailure(ErrorFields.error(e.sqlState(), e.getMessage()));
        }
        BackendConnection connection = joinForCopy(target.dataSource());
        copying = true;
        try {
            return logical.logical(connection.startCopy(target.sql()));
        } catch (SQLException e) {
            endCopy();
            if (explicit) {
                failed = true;
            }
            throw logical.logical(new StatementFailure(ErrorFields.from(e), e));
        }
    }

    /**
     * COPY ... TO STDOUT of what spans several shards: the equivalent SELECT runs as any query
     * does (merged), and its rows are written in COPY's format.
     */
    private CopyStream mergedCopyOut(Plan plan, CopyStatement copy) throws StatementFailure {
        Plan select;
        try {
            select = database.plans().get(MergedCopyOut.equivalentSelect(plan.statement()));
        } catch (SqlSyntaxException e) {
            throw syntaxError(e, 0);
        }
        QueryResult merged = run(select, ParameterValues.NONE, ResultSink.DISCARD);
        try {
            return MergedCopyOut.open(plan.statement().sql(), copy, merged, "UTF8");
        } catch (SQLException e) {
            merged.close();
            throw new StatementFailure(ErrorFields.from(e), e);
        }
    }

    /**
     * COPY FROM STDIN into a table of several shards: rows are split by their sharding values; all
     * the shards' COPYs run in one transaction (the client's, or one the session opens), so that a
     * bad row leaves no row anywhere.
     */
    private CopyStream startShardedCopy(Plan plan) throws StatementFailure {
        copyOpenedTransaction = !explicit && !implicit;
        if (copyOpenedTransaction) {
            implicit = true;
        }
        copying = true;
        try {
            shardedCopy = ShardedCopyIn.open(database, plan, this::joinForCopy);
            return shardedCopy;
        } catch (SQLException e) {
            endCopy();
            if (explicit) {
                failed = true;
            }
            throw new StatementFailure(ErrorFields.from(e), e);
        }
    }

    private boolean anyJoinedFailed() {
        for (int i = 0; i < held.length; i++) {
            if (held[i] != null && joined[i] && held[i].status() == 'E') {
                return true;
            }
        }
        return false;
    }

    /** The connection to a data source inside the session's transaction, for a COPY (whose BEGIN cannot travel with it). */
    private BackendConnection joinForCopy(int dataSource) throws StatementFailure {
        BackendConnection connection = acquire(dataSource);
        if (needsBegin(dataSource)) {
            runOn(connection, beginSql == null ? "BEGIN" : beginSql);
            joined[dataSource] = true;
        }
        return connection;
    }

    @Override
    public void endCopy() {
        if (!copying) {
            return;
        }
        copying = false;
        ShardedCopyIn copy = shardedCopy;
        shardedCopy = null;
        boolean succeeded = copy == null ? !anyJoinedFailed() : copy.succeeded();
        if (copyOpenedTransaction) {
            copyOpenedTransaction = false;
            implicit = false;
            try {
                endTransaction(succeeded);
            } catch (StatementFailure ignored) {
                // The COPY's own outcome was reported to the client already.
            }
        } else if (!succeeded && explicit) {
            failed = true;
        } else if (!succeeded && implicit) {
            implicitFailed = true;
        }
        afterStatement();
    }

    // ------------------------------------------------------------------ status and end

    @Override
    public char transactionStatus() {
        return failed ? 'E' : explicit ? 'T' : 'I';
    }

    @Override
    public boolean inImplicitTransaction() {
        return implicit;
    }

    @Override
    public void endImplicitTransaction() throws StatementFailure {
        if (!implicit) {
            return;
        }
        implicit = false;
        boolean anyFailed = implicitFailed || anyJoinedFailed();
        implicitFailed = false;
        // A failed COMMIT (a deferred constraint on one data source: the others roll back) is the
        // client's error; a ROLLBACK after a failed statement reports nothing more.
        try {
            endTransaction(!anyFailed);
        } catch (StatementFailure failure) {
            if (!anyFailed) {
                throw failure;
            }
        }
    }

    @Override
    public void abortTransaction() {
        if (explicit) {
            failed = true;
        } else if (implicit) {
            implicitFailed = true;
        }
    }

    @Override
    public void forgetImplicitTransaction() {
        // The implicit transaction's data sources become the explicit block's.
        if (implicit) {
            implicit = false;
            explicit = true;
        }
    }

    @Override
    public void cancel() {
        BackendConnection[] now = held;
        for (BackendConnection connection : now) {
            if (connection != null) {
                connection.cancel();
            }
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        for (int i = 0; i < held.length; i++) {
            BackendConnection connection = held[i];
            if (connection == null) {
                continue;
            }
            held[i] = null;
            SettingsTracker.releaseAtEnd(connection, bound[i]);
        }
        closed = true;
    }

}
