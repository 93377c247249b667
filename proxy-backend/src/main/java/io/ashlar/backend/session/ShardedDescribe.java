package io.ashlar.backend.session;

import io.ashlar.backend.datasource.BackendConnection;
import io.ashlar.backend.execute.BufferedResult;
import io.ashlar.backend.execute.ErrorFields;
import io.ashlar.backend.execute.StatementFailure;
import io.ashlar.backend.metadata.LogicalSession;
import io.ashlar.backend.session.BackendSession.Description;
import io.ashlar.backend.session.BackendSession.Prepared;
import io.ashlar.backend.sharding.Plan;
import io.ashlar.backend.sharding.ShardedExecution;
import io.ashlar.parser.lexer.SqlSyntaxException;
import io.ashlar.parser.statement.ExecuteStatement;
import io.ashlar.route.RecursivePlan;
import io.ashlar.route.RouteException;
import io.ashlar.route.RouteParameters;
import java.sql.SQLException;
import java.util.Optional;

/**
 * The extended protocol's Parse and Describe of a sharded session's statements, and the parameter types a Bind's values
 * are routed by: a statement is analysed once per SQL text ({@link #prepare}), described by a backend of a
 * representative shard (or of the catalog database, or as the recursive plan it runs as: {@link #describe}), and the
 * parameter types that Describe reports are learnt for later Binds ({@link #routeTypes}).
 */
final class ShardedDescribe {

    private final LogicalDatabase database;
    /** Where the parse's time is counted. */
    private final StatementTimes times;
    private final LogicalSession logical;
    private final SqlPreparedStatements sqlPrepared;
    private final ShardConnections connections;
    private final ShardedTransaction transaction;
    private final IntermediateResults intermediates;
    private final ShardedStatementEnd ends;

    ShardedDescribe(LogicalDatabase database, StatementTimes times, LogicalSession logical, SqlPreparedStatements sqlPrepared,
                    ShardConnections connections, ShardedTransaction transaction, IntermediateResults intermediates,
                    ShardedStatementEnd ends) {
        this.database = database;
        this.times = times;
        this.logical = logical;
        this.sqlPrepared = sqlPrepared;
        this.connections = connections;
        this.transaction = transaction;
        this.intermediates = intermediates;
        this.ends = ends;
    }

    /** Parse: the statement analysed (once per SQL text), its parameter types as many as it has. */
    Prepared prepare(String sql, int[] declaredTypes) throws StatementFailure {
        Plan plan;
        long parseStarted = times.parseStarted();
        try {
            plan = database.plans().get(sql);
        } catch (SqlSyntaxException e) {
            throw ShardedSession.syntaxError(e, 0);
        }
        if (parseStarted != 0) {
            times.parsed(parseStarted);
        }
        int count = Math.max(declaredTypes.length, plan.statement().parameterCount());
        int[] types = count == declaredTypes.length ? declaredTypes : java.util.Arrays.copyOf(declaredTypes, count);
        return new Prepared(sql, types, plan);
    }

    /** The name of the PREPARE that {@link #checkPrepare} runs on a shard, and deallocates at once. */
    private static final String PREPARE_CHECK = "ashlar_prepare_check";

    /**
     * SQL's {@code PREPARE name [(types)] AS statement} checked as PostgreSQL's PREPARE checks it, before the proxy keeps
     * it: the statement parsed and analysed, nothing run. The same PREPARE, under a name of the proxy's own and with
     * the statement as its representative shard runs it, then DEALLOCATE, on the session's connection of that shard;
     * its error is the client's (42601, 42703, 42P01, 42704 for a declared type, ...), at its position in the client's
     * text. Nothing is checked where no shard takes the statement alone (the route refuses it, or plans it
     * recursively: its EXECUTE reports what it meets), except a statement Ashlar could not read whole, whose syntax
     * error the catalog database gives.
     *
     * @param prepare the PREPARE statement, whose text positions count in
     * @param inner   the prepared statement's plan
     */
    void checkPrepare(io.ashlar.parser.statement.AnalyzedStatement prepare, io.ashlar.parser.statement.PrepareStatement body,
                      Plan inner) throws StatementFailure {
        int count = Math.max(body.parameterTypes().size(), inner.statement().parameterCount());
        Plan adjusted = logical.adjust(inner);
        ShardedExecution.Target target = logical.fromCatalog(adjusted) ? catalogTarget(adjusted) : representative(adjusted, count);
        boolean syntaxOnly = false;
        if (target == null) {
            if (adjusted.statement().isComplete() || database.catalog().catalogDataSource() == null) {
                return;
            }
            target = catalogTarget(adjusted);
            syntaxOnly = true;
        }
        String sql = prepare.sql();
        String check = "PREPARE " + PREPARE_CHECK + sql.substring(body.nameRange().end(), body.statement().start()) + target.sql();
        BufferedResult result = new BufferedResult();
        BackendConnection connection = connections.acquire(target.dataSource());
        try {
            connection.executeSimple(check + ";DEALLOCATE " + PREPARE_CHECK, result);
        } catch (SQLException e) {
            result.handleError(e);
        }
        ends.afterStatement();
        if (!(result.error() instanceof io.ashlar.backend.execute.BackendError error)) {
            return; // succeeded; or the connection failed, which the EXECUTE meets and reports
        }
        ErrorFields fields = error.fields();
        if (fields.sqlState().equals("42P05") || syntaxOnly && (!fields.sqlState().equals("42601") || fields.field('P').isEmpty())) {
            return;
        }
        throw logical.logical(new StatementFailure(fields.withPosition(position -> ShardedExecution.positionInStatement(sql, check, position)),
                error));
    }

    /**
     * The first unit of a statement routed with unknown parameter values, as a Describe routes it; null where the
     * route refuses it.
     */
    private ShardedExecution.Target representative(Plan adjusted, int parameterCount) {
        try {
            return ShardedExecution.representative(database, adjusted, new UnknownParameters(parameterCount, null));
        } catch (RouteException unroutable) {
            // Some routes refuse a NULL sharding value (an INSERT's key): a value every algorithm of integers places.
            try {
                return ShardedExecution.representative(database, adjusted, new UnknownParameters(parameterCount, 0));
            } catch (RouteException e) {
                return null;
            }
        }
    }

    /** Where the catalog database describes the statement's own text. */
    private ShardedExecution.Target catalogTarget(Plan adjusted) {
        return new ShardedExecution.Target(database.catalogSlot(), adjusted.statement().sql(), Optional.empty());
    }

    /**
     * A Parse and Describe of {@code sql} on the session's connection of {@code slot}, into {@code result} (its error
     * there too); the parameter types the backend described, or {@code declaredTypes} when it failed.
     */
    private int[] describeOn(int slot, String sql, int[] declaredTypes, BufferedResult result) throws StatementFailure {
        BackendConnection connection = connections.acquire(slot);
        int[] types = declaredTypes;
        try {
            types = connection.describe(sql, declaredTypes, result);
        } catch (SQLException e) {
            result.handleError(e);
        }
        ends.afterStatement();
        return types;
    }

    /** PostgreSQL's "could not determine data type of parameter $n". */
    private static boolean isUntypedParameter(SQLException error) {
        return error instanceof io.ashlar.backend.execute.BackendError backend && backend.fields().sqlState().equals("42P18");
    }

    /**
     * For a statement Ashlar's parser could not read whole (so that the route refuses it over several shards): the
     * error PostgreSQL gives its text, from a Parse and Describe (nothing runs) in the catalog database, which has the
     * logical tables: a syntax error with its position, an unknown column or function (SQLSTATE class 42). Null when
     * PostgreSQL takes the text (the proxy's refusal stands), or there is no catalog database to ask. PostgreSQL's
     * 42601 "syntax error at end of input" was Ashlar's 0A000 "statement not understood".
     */
    StatementFailure postgresError(Plan plan, int[] declaredTypes) throws StatementFailure {
        return plan.statement().isComplete() ? null : catalogError(plan, declaredTypes, "42");
    }

    /**
     * PostgreSQL's own data error for a statement whose sharding value the rules cannot use ({@code user_id = 'abc'} into
     * an integer column), or whose LIMIT or OFFSET the proxy cannot read ({@code LIMIT 'x'}): a literal that does not
     * convert to its column's type fails PostgreSQL's Parse already (22P02
     * with its position), which the catalog database, holding the logical tables, answers as any shard would. Null where
     * its Parse succeeds (the value comes later, as a parameter) or fails otherwise.
     */
    StatementFailure dataError(Plan plan, int[] declaredTypes) throws StatementFailure {
        return catalogError(plan, declaredTypes, "22");
    }

    /** The catalog database's error of the statement's Parse and Describe when it is of {@code errorClass}, else null. */
    private StatementFailure catalogError(Plan plan, int[] declaredTypes, String errorClass) throws StatementFailure {
        if (database.catalog().catalogDataSource() == null) {
            return null;
        }
        BufferedResult result = new BufferedResult();
        describeOn(database.catalogSlot(), plan.statement().sql(), declaredTypes, result);
        if (result.error() == null) {
            return null;
        }
        ErrorFields fields = ErrorFields.from(result.error());
        return fields.sqlState().startsWith(errorClass) ? logical.logical(new StatementFailure(fields, result.error())) : null;
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
    int[] routeTypes(Prepared statement) throws StatementFailure {
        int[] known = knownRouteTypes(statement);
        if (known != null) {
            return known;
        }
        int[] declared = statement.parameterTypes();
        try {
            int[] result = describe(statement).parameterTypes();
            return result.length == declared.length ? result : declared;
        } catch (StatementFailure failure) {
            if (failure.getCause() == null) {
                return declared;
            }
            ends.afterFailure(false);
            throw failure;
        }
    }

    /** {@link #routeTypes} when they are known without asking a backend; else null. */
    int[] knownRouteTypes(Prepared statement) {
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
        return learnt != Plan.NOT_LEARNT ? learnt : null;
    }

    /** Describe: the statement's parameter types and columns, as a backend of the shard it would go to describes it. */
    Description describe(Prepared statement) throws StatementFailure {
        Plan plan = (Plan) statement.analysis();
        if (plan.statement().body() instanceof ExecuteStatement execute) {
            // EXECUTE returns what its prepared statement returns (PostgreSQL describes it so).
            Plan executed = sqlPrepared.contains(execute.name()) ? sqlPrepared.executed(plan.statement(), execute) : null;
            return executed == null ? new Description(statement.parameterTypes(), Optional.empty())
                    : describe(new Prepared(executed.statement().sql(), new int[0], executed));
        }
        long schemaEpoch = database.plans().schemaEpoch();
        Plan adjusted = logical.adjust(plan);
        ShardedExecution.Target target = logical.fromCatalog(adjusted) ? catalogTarget(adjusted) : null;
        if (target == null) try {
            target = ShardedExecution.representative(database, adjusted, new UnknownParameters(statement.parameterTypes().length, null));
        } catch (RouteException unroutable) {
            // Some routes refuse a NULL sharding value (an INSERT's key); any shard describes the
            // statement as well as another, so try a value every algorithm of integers places.
            try {
                target = ShardedExecution.representative(database, adjusted, new UnknownParameters(statement.parameterTypes().length, 0));
            } catch (RouteException e) {
                RecursivePlan recursive = unroutable.plannable()
                        ? intermediates.plan(adjusted, new UnknownParameters(statement.parameterTypes().length, null)) : null;
                if (recursive == null) {
                    StatementFailure postgres = postgresError(adjusted, statement.parameterTypes());
                    throw postgres != null ? postgres : new StatementFailure(IntermediateResults.refusal(plan.statement(), unroutable));
                }
                return describeRecursive(recursive, statement, plan, schemaEpoch);
            }
        }
        BufferedResult result = new BufferedResult();
        int[] types = describeOn(target.dataSource(), target.sql(), statement.parameterTypes(), result);
        if (result.error() != null && !target.sql().equals(adjusted.statement().sql()) && isUntypedParameter(result.error())
                && database.catalog().catalogDataSource() != null) {
            // The shard's text lacks what typed a parameter (HAVING and OFFSET are the proxy's over several shards):
            // the catalog database describes the client's own text, as PostgreSQL would.
            target = catalogTarget(adjusted);
            result = new BufferedResult();
            types = describeOn(target.dataSource(), target.sql(), statement.parameterTypes(), result);
        }
        if (result.error() != null) {
            ErrorFields fields = ErrorFields.from(result.error());
            String sql = adjusted.statement().sql();
            String unitSql = target.sql();
            if (!unitSql.equals(sql)) {
                fields = fields.withPosition(position -> ShardedExecution.positionInStatement(sql, unitSql, position));
            }
            throw logical.logical(new StatementFailure(fields, result.error()));
        }
        plan.learnParameterTypes(statement.parameterTypes(), types, schemaEpoch);
        return new Description(types, result.hasRows()
                ? Optional.of(logical.logicalColumns(target.dataSource(), target.visible(result.columns()))) : Optional.empty());
    }

    /**
     * Describes a statement that runs as a recursive plan: on its coordinator, over empty intermediate results made for
     * the purpose and undone at once (a transaction of its own outside a block, a savepoint inside one).
     */
    private Description describeRecursive(RecursivePlan recursive, Prepared statement, Plan plan, long schemaEpoch) throws StatementFailure {
        int slot = intermediates.coordinator(recursive);
        BackendConnection connection = connections.acquire(slot);
        boolean inBlock = transaction.state().inTransaction();
        if (inBlock && transaction.needsBegin(slot)) {
            ShardConnections.runOn(connection, "BEGIN");
            connections.join(slot);
        }
        StringBuilder ddl = new StringBuilder(inBlock ? "SAVEPOINT ashlar_describe" : "BEGIN");
        for (RecursivePlan.Intermediate each : recursive.intermediates()) {
            ddl.append(';').append(each.createSql());
        }
        String keys = intermediates.primaryKeys(recursive);
        if (!keys.isEmpty()) {
            ddl.append(';').append(keys);
        }
        BufferedResult result = new BufferedResult();
        int[] types = statement.parameterTypes();
        try {
            ShardConnections.runOn(connection, ddl.toString());
            try {
                types = connection.describe(recursive.finishingSql(), statement.parameterTypes(), result);
            } catch (SQLException e) {
                result.handleError(e);
            }
            if (result.error() == null && result.hasRows()) {
                result.columns(intermediates.logicalColumns(recursive, connection, result.columns()));
            }
        } finally {
            ShardConnections.runOn(connection, inBlock ? "ROLLBACK TO SAVEPOINT ashlar_describe;RELEASE SAVEPOINT ashlar_describe" : "ROLLBACK");
            ends.afterStatement();
        }
        if (result.error() != null) {
            throw logical.logical(new StatementFailure(ErrorFields.from(result.error()).withPosition(recursive::clientPosition), result.error()));
        }
        plan.learnParameterTypes(statement.parameterTypes(), types, schemaEpoch);
        return new Description(types, result.hasRows() ? Optional.of(logical.logicalColumns(slot, result.columns())) : Optional.empty());
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
}
