package io.ashlar.backend.session;

import io.ashlar.backend.datasource.BackendConnection;
import io.ashlar.backend.execute.CopyStream;
import io.ashlar.backend.execute.ErrorFields;
import io.ashlar.backend.execute.QueryResult;
import io.ashlar.backend.execute.StatementFailure;
import io.ashlar.backend.metadata.LogicalSession;
import io.ashlar.backend.sharding.MergedCopyOut;
import io.ashlar.backend.sharding.Plan;
import io.ashlar.backend.sharding.ShardedCopyIn;
import io.ashlar.backend.sharding.ShardedExecution;
import io.ashlar.parser.lexer.SqlSyntaxException;
import io.ashlar.parser.statement.CopyStatement;
import io.ashlar.route.RouteException;
import java.sql.SQLException;
import java.util.List;

/**
 * A sharded session's {@code COPY ... FROM STDIN} and {@code TO STDOUT}, from its start to its end
 * ({@link #start}, then {@link #end} whatever happened). A COPY of one data source's table runs
 * there, inside the session's transaction (its BEGIN sent first: it cannot travel with a COPY);
 * COPY FROM STDIN into a table of several shards splits the rows by their sharding values, all
 * the shards' COPYs in one transaction (the client's, or one opened for it and ended with it), so
 * that a bad row leaves no row anywhere; COPY FROM STDIN into a broadcast table sends the data to every data
 * source's copy, in one transaction likewise; COPY TO STDOUT of what spans several shards runs the
 * equivalent SELECT, merged, and writes its rows in COPY's format.
 *
 * @see <a href="https://www.postgresql.org/docs/current/sql-copy.html">COPY</a>
 */
final class ShardedCopy {

    /** What the COPY needs of the session it runs in. */
    interface Session {
        /** Runs a query as the session runs any, its rows merged. */
        QueryResult query(Plan select) throws StatementFailure;

        /** Ends the session's transaction on every data source that joined it. */
        void endTransaction(boolean commit) throws StatementFailure;

        /** Gives back the connections no transaction or session state keeps. */
        void afterStatement();

        /** The session's client_encoding: the rows read are in it, and a COPY writes in it unless it names another. */
        default io.ashlar.backend.execute.ClientEncoding encoding() {
            return io.ashlar.backend.execute.ClientEncoding.UTF8;
        }
    }

    private final LogicalDatabase database;
    private final ShardedTransaction transaction;
    private final ShardConnections connections;
    private final LogicalSession logical;
    private final Session session;
    /** A COPY runs: {@link #end} ends it. */
    private boolean copying;
    /** Whether the COPY split over shards or copied to every data source succeeded; null for a COPY on one data source. */
    private java.util.function.BooleanSupplier splitCopy;
    /** The COPY opened the transaction it runs in, and ends it. */
    private boolean openedTransaction;

    ShardedCopy(LogicalDatabase database, ShardedTransaction transaction, ShardConnections connections, LogicalSession logical,
                Session session) {
        this.database = database;
        this.transaction = transaction;
        this.connections = connections;
        this.logical = logical;
        this.session = session;
    }

    /** Starts a COPY FROM STDIN or TO STDOUT: the caller drives it, then calls {@link #end}. */
    CopyStream start(String sql) throws StatementFailure {
        if (transaction.state() == TransactionState.FAILED_BLOCK) {
            throw new StatementFailure(ErrorFields.inFailedTransaction());
        }
        Plan plan;
        try {
            plan = database.plans().get(sql);
        } catch (SqlSyntaxException e) {
            throw ShardedSession.syntaxError(e, 0);
        }
        if (plan.statement().body() instanceof CopyStatement into && into.from()) {
            ShardedForeignKeys.refuseCopy(database.catalog().schema(), plan.statement());
        }
        if (ShardedCopyIn.handles(database.rules(), plan.statement())) {
            return logical.logical(startSharded(plan, false));
        }
        if (io.ashlar.backend.sharding.BroadcastCopyIn.handles(database.rules(), plan.statement())) {
            return logical.logical(startSharded(plan, true));
        }
        ShardedExecution.Target target;
        try {
            target = ShardedExecution.copyTarget(database, plan);
        } catch (RouteException e) {
            if (plan.statement().body() instanceof CopyStatement copy && !copy.from() && copy.stdio()) {
                return logical.logical(binary(plan, copy) ? concatenatedOut(plan, copy) : mergedOut(plan, copy));
            }
            throw new StatementFailure(ErrorFields.error(e.sqlState(), e.getMessage()));
        }
        BackendConnection connection = transaction.joinFirst(target.dataSource());
        copying = true;
        try {
            return logical.logical(connection.startCopy(target.sql()));
        } catch (SQLException e) {
            end();
            transaction.afterErrorInBlock();
            throw logical.logical(new StatementFailure(inStatement(ErrorFields.from(e), sql, target.sql()), e));
        }
    }

    /** An error's position in {@code unitSql}, the text a shard ran for the COPY, as one in the client's {@code sql}. */
    private static ErrorFields inStatement(ErrorFields fields, String sql, String unitSql) {
        return unitSql.equals(sql) ? fields : fields.withPosition(position -> ShardedExecution.positionInStatement(sql, unitSql, position));
    }

    /** Whether a COPY asks for binary format (options it cannot parse are reported by the COPY that runs). */
    private static boolean binary(Plan plan, CopyStatement copy) {
        return io.ashlar.backend.sharding.ConcatenatedCopyOut.binary(plan.statement().sql(), copy);
    }

    /**
     * COPY ... TO STDOUT (FORMAT binary) of what spans several shards: each unit's binary COPY in turn, as one file,
     * when its rows need no merge; refused (0A000) when they do, since the merge reads text.
     */
    private CopyStream concatenatedOut(Plan plan, CopyStatement copy) throws StatementFailure {
        String sql = plan.statement().sql();
        List<ShardedExecution.Target> units;
        try {
            if (copy.query().isPresent() && !ShardedExecution.iteratesOnly(database, database.plans().get(copy.query().get().text(sql)))) {
                throw new StatementFailure(ErrorFields.error("0A000", "COPY (SELECT ...) TO in binary format over several shards,"
                        + " whose rows must be merged (ORDER BY, GROUP BY, aggregates, DISTINCT, LIMIT), is not supported",
                        "use FORMAT text or FORMAT csv, or leave the merging clauses out"));
            }
            units = ShardedExecution.copyUnits(database, plan);
        } catch (SqlSyntaxException e) {
            // Only the query's own text is analysed here.
            throw ShardedSession.syntaxError(e, copy.query().isPresent() ? copy.query().get().start() : 0);
        } catch (RouteException e) {
            throw new StatementFailure(ErrorFields.error(e.sqlState(), e.getMessage()));
        }
        List<io.ashlar.backend.sharding.ConcatenatedCopyOut.Unit> parts = new java.util.ArrayList<>(units.size());
        for (ShardedExecution.Target each : units) {
            parts.add(new io.ashlar.backend.sharding.ConcatenatedCopyOut.Unit(each.dataSource(), each.sql()));
        }
        copying = true;
        try {
            return io.ashlar.backend.sharding.ConcatenatedCopyOut.open(parts, transaction::joinFirst);
        } catch (SQLException e) {
            end();
            transaction.afterErrorInBlock();
            // The units differ in their actual tables only: the first's text places the error as well as another's.
            throw new StatementFailure(inStatement(ErrorFields.from(e), sql, units.get(0).sql()), e);
        }
    }

    /**
     * COPY ... TO STDOUT of what spans several shards: the equivalent SELECT's merged rows in COPY's format. An error's
     * position in the SELECT is one in the client's COPY: {@code COPY (query)} runs the query's own text.
     */
    private CopyStream mergedOut(Plan plan, CopyStatement copy) throws StatementFailure {
        Plan select;
        String sql = plan.statement().sql();
        int offset = copy.query().isPresent() ? copy.query().get().start() : 0;
        try {
            select = database.plans().get(MergedCopyOut.equivalentSelect(plan.statement()));
        } catch (SqlSyntaxException e) {
            throw ShardedSession.syntaxError(e, offset);
        }
        QueryResult merged;
        try {
            merged = session.query(select);
        } catch (StatementFailure failure) {
            String selectSql = select.statement().sql();
            throw copy.query().isPresent() ? failure.shifted(offset)
                    : new StatementFailure(inStatement(failure.fields(), sql, selectSql), failure.getCause());
        }
        try {
            return MergedCopyOut.open(plan.statement().sql(), copy, merged, session.encoding());
        } catch (SQLException e) {
            merged.close();
            throw new StatementFailure(ErrorFields.from(e), e);
        }
    }

    /**
     * COPY FROM STDIN into a table of several shards, or with {@code broadcast} into every copy of a broadcast table,
     * in the session's transaction or one opened for it.
     */
    private CopyStream startSharded(Plan plan, boolean broadcast) throws StatementFailure {
        openedTransaction = transaction.state() == TransactionState.IDLE;
        if (openedTransaction) {
            transaction.beginImplicit();
        }
        copying = true;
        try {
            if (broadcast) {
                io.ashlar.backend.sharding.BroadcastCopyIn copy = io.ashlar.backend.sharding.BroadcastCopyIn.open(database, plan,
                        transaction::joinFirst);
                splitCopy = copy::succeeded;
                return copy;
            }
            ShardedCopyIn copy = ShardedCopyIn.open(database, plan, transaction::joinFirst);
            splitCopy = copy::succeeded;
            return copy;
        } catch (SQLException e) {
            end();
            transaction.afterErrorInBlock();
            throw new StatementFailure(ErrorFields.from(e), e);
        }
    }

    /**
     * The COPY ended (CopyDone, CopyFail or an error): a transaction it opened commits if it
     * succeeded, else rolls back; one it ran in fails if it failed.
     */
    void end() {
        if (!copying) {
            return;
        }
        copying = false;
        java.util.function.BooleanSupplier copy = splitCopy;
        splitCopy = null;
        boolean succeeded = copy == null ? !connections.anyJoinedFailed() : copy.getAsBoolean();
        if (openedTransaction) {
            openedTransaction = false;
            try {
                session.endTransaction(succeeded);
            } catch (StatementFailure ignored) {
                // The COPY's own outcome was reported to the client already.
            }
        } else if (!succeeded) {
            transaction.afterError();
        }
        session.afterStatement();
    }
}
