package io.ashlar.backend.session;

import io.ashlar.backend.datasource.BackendConnection;
import io.ashlar.backend.datasource.ParameterValues;
import io.ashlar.backend.execute.BufferedResult;
import io.ashlar.backend.execute.CommandTags;
import io.ashlar.backend.execute.ErrorFields;
import io.ashlar.backend.execute.QueryResult;
import io.ashlar.backend.execute.ResultSink;
import io.ashlar.backend.execute.StatementFailure;
import io.ashlar.parser.statement.AnalyzedStatement;
import java.sql.SQLException;

/**
 * Statements a sharded session runs as they are on one data source (or on its catalog database), in its transaction,
 * their result passed through: SHOW and other statements for the default data source, settings (SET, RESET, DISCARD:
 * on the default data source and every connection the session holds), catalog queries, the statements sequences
 * and foreign-key checks send to one data source, and DDL of temporary tables mirrored on the catalog database. What
 * such a statement changes (settings, session state kept on its connection) is noted as it ends.
 */
final class DirectStatements {

    private final LogicalDatabase database;
    private final ShardConnections connections;
    private final ShardedTransaction transaction;
    private final SettingsTracker settings;
    private final ShardedStatementEnd ends;

    DirectStatements(LogicalDatabase database, ShardConnections connections, ShardedTransaction transaction,
                     SettingsTracker settings, ShardedStatementEnd ends) {
        this.database = database;
        this.connections = connections;
        this.transaction = transaction;
        this.settings = settings;
        this.ends = ends;
    }

    /**
     * SET, RESET, DISCARD: run on the default data source (which checks the value and answers)
     * and on every connection the session holds, so that all of them agree; the settings are
     * read back when the transaction ends and replayed on connections used later.
     */
    QueryResult setting(AnalyzedStatement statement, ResultSink sink) throws StatementFailure {
        int defaultIndex = database.dataSourceIndex(database.defaultDataSource().name());
        QueryResult result = onDefault(statement.sql(), sink);
        for (int i = 0; i < connections.slots(); i++) {
            BackendConnection held = connections.held(i);
            if (i != defaultIndex && held != null) {
                ShardConnections.runOn(held, statement.sql());
                if (transaction.state() == TransactionState.IDLE) {
                    // A RESET or DISCARD took this connection back to its own startup values (client_encoding UTF8,
                    // not the session's), which the default data source's read-back restored there only: it is given
                    // the session's settings as read back.
                    held.settings(SessionSettings.UNKNOWN);
                    try {
                        settings.give(held);
                    } catch (SQLException e) {
                        throw new StatementFailure(ErrorFields.from(e), e);
                    }
                }
            }
        }
        return result;
    }

    /** Runs a statement as is on the default data source, passing its result through. */
    QueryResult onDefault(String sql, ResultSink sink) throws StatementFailure {
        return onSlot(database.dataSourceIndex(database.defaultDataSource().name()), sql, ParameterValues.NONE, sink);
    }

    /** Runs a statement as is on the data source (or the catalog database) of a connection slot. */
    QueryResult onSlot(int index, String sql, ParameterValues parameters, ResultSink sink) throws StatementFailure {
        BackendConnection connection = connections.acquire(index);
        boolean begin = transaction.needsBegin(index);
        BufferedResult result = new BufferedResult();
        try {
            connection.execute(sql, parameters, result, begin);
        } catch (SQLException e) {
            result.handleError(e);
        }
        if (begin && connection.status() != 'I') {
            connections.join(index);
        }
        if (connections.bound(index)) {
            connection.relayNotifications(sink);
        }
        CommandTags.Effect effect = CommandTags.combine(CommandTags.effect(result.tag()), CommandTags.textEffect(sql));
        if (effect == CommandTags.Effect.SETTINGS) {
            if (transaction.state() == TransactionState.IDLE) {
                settings.readBack(connection);
            } else {
                ends.settingsChanged();
                connections.settingsPending(index);
            }
            settings.report(connection, sink);
        } else if (effect == CommandTags.Effect.SESSION_STATE) {
            connections.markBound(index);
            connection.keepsSessionState();
        }
        if (result.error() != null) {
            transaction.afterErrorInBlock();
            ends.afterStatement();
            throw new StatementFailure(ErrorFields.from(result.error()), result.error());
        }
        ends.afterStatement();
        return result;
    }

    /**
     * Runs DDL of the session's temporary tables on its catalog database connection too, which the session then
     * keeps: its catalog queries see its temporary tables, as on PostgreSQL. A failure there leaves the catalog
     * without the table and the session's statement as it went (inside a transaction, a savepoint undoes it).
     */
    void mirrorOnCatalog(String sql) {
        mirrorOnCatalog(sql, true);
    }

    /**
     * Runs DDL on the session's catalog database connection too: in a transaction block, in the same block, so that
     * the catalog queries that follow in it see what it changed, as on PostgreSQL (a Django migration looks up the
     * constraint it is to drop after making its table in the same transaction, and found none), and the block's end
     * commits or rolls back both; outside one (DDL of types), at once. The shells are brought in step after it as
     * after any DDL.
     */
    void mirrorDdlOnCatalog(String sql) {
        mirrorOnCatalog(sql, false);
    }

    private void mirrorOnCatalog(String sql, boolean bind) {
        int slot = database.catalogSlot();
        try {
            BackendConnection connection = connections.acquire(slot);
            boolean begin = transaction.needsBegin(slot);
            boolean inBlock = begin || connections.joined(slot);
            try {
                ShardConnections.runOn(connection, (begin ? "BEGIN;" : "")
                        + (inBlock ? "SAVEPOINT ashlar_shell;" + sql + ";RELEASE SAVEPOINT ashlar_shell" : sql));
            } catch (StatementFailure failure) {
                if (inBlock && connection.status() == 'E') {
                    ShardConnections.runOn(connection, "ROLLBACK TO SAVEPOINT ashlar_shell;RELEASE SAVEPOINT ashlar_shell");
                }
            }
            if (begin && connection.status() != 'I') {
                connections.join(slot);
            }
            if (bind) {
                connections.markBound(slot);
            }
        } catch (StatementFailure ignored) {
            // Without a catalog connection the session's catalog queries do not see the table; its statements do.
        }
    }
}
