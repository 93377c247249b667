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

/**
 * A sharded session's {@code COPY ... FROM STDIN} and {@code TO STDOUT}, from its start to its end
 * ({@link #start}, then {@link #end} whatever happened). A COPY of one data source's table runs
 * there, inside the session's transaction (its BEGIN sent first: it cannot travel with a COPY);
 * COPY FROM STDIN into a table of several shards splits the rows by their sharding values, all
 * the shards' COPYs in one transaction (the client's, or one opened for it and ended with it), so
 * that a bad row leaves no row anywhere; COPY TO STDOUT of what spans several shards runs the
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
    }

    private final LogicalDatabase database;
    private final ShardedTransaction transaction;
    private final ShardConnections connections;
    private final LogicalSession logical;
    private final Session session;
    /** A COPY runs: {@link #end} ends it. */
    private boolean copying;
    private ShardedCopyIn shardedCopy;
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
            throw new StatementFailure(ErrorFields.error("25P02",
                    "current transaction is aborted, commands ignored until end of transaction block"));
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
            return logical.logical(startSharded(plan));
        }
        ShardedExecution.Target target;
        try {
            target = ShardedExecution.copyTarget(database, plan);
        } catch (RouteException e) {
            if (plan.statement().body() instanceof CopyStatement copy && !copy.from() && copy.stdio()) {
                return logical.logical(mergedOut(plan, copy));
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
            throw logical.logical(new StatementFailure(ErrorFields.from(e), e));
        }
    }

    /** COPY ... TO STDOUT of what spans several shards: the equivalent SELECT's merged rows in COPY's format. */
    private CopyStream mergedOut(Plan plan, CopyStatement copy) throws StatementFailure {
        Plan select;
        try {
            select = database.plans().get(MergedCopyOut.equivalentSelect(plan.statement()));
        } catch (SqlSyntaxException e) {
            throw ShardedSession.syntaxError(e, 0);
        }
        QueryResult merged = session.query(select);
        try {
            return MergedCopyOut.open(plan.statement().sql(), copy, merged, "UTF8");
        } catch (SQLException e) {
            merged.close();
            throw new StatementFailure(ErrorFields.from(e), e);
        }
    }

    /** COPY FROM STDIN into a table of several shards, in the session's transaction or one opened for it. */
    private CopyStream startSharded(Plan plan) throws StatementFailure {
        openedTransaction = transaction.state() == TransactionState.IDLE;
        if (openedTransaction) {
            transaction.beginImplicit();
        }
        copying = true;
        try {
            shardedCopy = ShardedCopyIn.open(database, plan, transaction::joinFirst);
            return shardedCopy;
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
        ShardedCopyIn copy = shardedCopy;
        shardedCopy = null;
        boolean succeeded = copy == null ? !connections.anyJoinedFailed() : copy.succeeded();
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
