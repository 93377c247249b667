package io.ashlar.backend.session;

import io.ashlar.backend.datasource.BackendConnection;
import io.ashlar.backend.execute.ResultSink;
import io.ashlar.backend.execute.StatementFailure;
import io.ashlar.backend.metadata.LogicalSession;

/**
 * What follows each statement of a sharded session, and the end of its transaction: the connections no transaction or
 * session state keeps go back ({@link #afterStatement}); a failed statement fails the transaction, and an implicit
 * transaction it opened rolls back ({@link #afterFailure}); a transaction ends on every data source that joined it,
 * and the settings changed in it are read back ({@link #endTransaction}).
 */
final class ShardedStatementEnd {

    private final LogicalDatabase database;
    private final ShardedTransaction transaction;
    private final ShardConnections connections;
    private final SettingsTracker settings;
    private final LogicalSession logical;
    /** Settings changed inside the transaction: read back when it ends. */
    private boolean settingsDirty;

    ShardedStatementEnd(LogicalDatabase database, ShardedTransaction transaction, ShardConnections connections,
                        SettingsTracker settings, LogicalSession logical) {
        this.database = database;
        this.transaction = transaction;
        this.connections = connections;
        this.settings = settings;
        this.logical = logical;
    }

    /** Settings changed inside the transaction: they are read back when it ends. */
    void settingsChanged() {
        settingsDirty = true;
    }

    /** Whether settings changed that are not read back yet. */
    boolean settingsDirty() {
        return settingsDirty;
    }

    /**
     * A statement failed: the transaction it ran in failed with it; an implicit transaction the
     * statement opened itself rolls back at once.
     */
    void afterFailure(boolean startedImplicit) {
        transaction.afterError();
        if (startedImplicit && transaction.state().inImplicit()) {
            try {
                endTransaction(false);
            } catch (StatementFailure ignored) {
                // The statement's own error is the one the client gets.
            }
        }
        afterStatement();
    }

    /** {@link #endTransaction(boolean, ResultSink)} where nobody hears of settings changes. */
    void endTransaction(boolean commit) throws StatementFailure {
        endTransaction(commit, ResultSink.DISCARD);
    }

    /**
     * Ends the transaction on every data source that joined it ({@link ShardedTransaction#end}).
     * Settings changed in it are read back (and changes reported to {@code sink}) before its
     * connections go back.
     */
    void endTransaction(boolean commit, ResultSink sink) throws StatementFailure {
        StatementFailure failure = transaction.end(commit);
        try {
            settingsAfterTransaction(sink);
        } finally {
            afterStatement();
        }
        if (failure != null) {
            // A COMMIT's failure (a deferred constraint) names the shard's actual table: the client's is the logical one,
            // as the event loop's COMMIT reports it (LoopStatement).
            throw logical.logical(failure);
        }
    }

    /** Ends an implicit transaction in force (at the client's Sync): commits it, or rolls it back where a statement failed. */
    void endImplicitTransaction() throws StatementFailure {
        TransactionState state = transaction.state();
        if (!state.inImplicit()) {
            return;
        }
        boolean anyFailed = state.failed() || connections.anyJoinedFailed();
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

    /**
     * After a transaction in which settings changed: read them back from the default data
     * source's connection (a rolled-back SET is gone) and tell the client what changed.
     */
    void settingsAfterTransaction(ResultSink sink) throws StatementFailure {
        if (!settingsDirty) {
            return;
        }
        settingsDirty = false;
        // Read from the connection the session still holds (not one handed back already: another
        // session may hold it by now), or from one borrowed for the purpose.
        int index = database.dataSourceIndex(database.defaultDataSource().name());
        BackendConnection held = connections.held(index);
        connections.settingsPending(-1);
        BackendConnection current = held != null && !held.isBroken() ? held : connections.acquire(index);
        // The others may have taken the block's settings in it, which a rollback undid there: each gets the session's anew.
        connections.forgetSettings(current);
        settings.readBack(current);
        settings.report(current, sink);
    }

    /** Returns the connections no transaction or session state keeps. */
    void afterStatement() {
        boolean inTransaction = transaction.state().inTransaction();
        if (!inTransaction) {
            logical.idle();
        }
        String lost = connections.releaseUnused(inTransaction);
        if (lost != null) {
            transaction.connectionLost(lost);
        }
    }
}
