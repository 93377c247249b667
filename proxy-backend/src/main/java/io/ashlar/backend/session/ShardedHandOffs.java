package io.ashlar.backend.session;

import io.ashlar.backend.datasource.BackendConnection;
import io.ashlar.backend.datasource.ParameterValues;
import io.ashlar.backend.execute.ErrorFields;
import io.ashlar.backend.execute.QueryResult;
import io.ashlar.backend.execute.ResultSink;
import io.ashlar.backend.execute.StatementFailure;
import io.ashlar.backend.metadata.LogicalSession;
import io.ashlar.backend.metadata.LogicalTable;
import io.ashlar.backend.sharding.Plan;
import io.ashlar.parser.statement.AnalyzedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The parts a sharded session hands whole statements to, and what each needs of the session (a small interface of
 * its own): the foreign keys the proxy enforces across data sources ({@link ShardedForeignKeys}) and statements about
 * sequences over several data sources ({@link ShardedSequences}), each made when the first statement it takes comes;
 * INSERT ... SELECT the route cannot run on each target shard ({@link ShardedInsertSelect}); and COPY
 * ({@link ShardedCopy}, which the session makes with {@link #copySession}).
 */
final class ShardedHandOffs {

    /** Runs the statements the parts hand back: as any of the session's, or as routed. */
    private final ShardedSession session;
    private final LogicalDatabase database;
    private final ShardConnections connections;
    private final ShardedTransaction transaction;
    private final LogicalSession logical;
    private final ShardedStatementEnd ends;
    private final DirectStatements direct;
    /** Statements about sequences over several data sources; made when the first one comes. */
    private ShardedSequences sequences;
    /** The checks of foreign keys the proxy enforces across data sources; made when the first one is needed. */
    private ShardedForeignKeys foreignKeys;
    /** INSERT ... SELECT run as a read then an INSERT (two small objects: made with the session). */
    private final ShardedInsertSelect insertSelect;

    ShardedHandOffs(ShardedSession session, LogicalDatabase database, ShardConnections connections,
                    ShardedTransaction transaction, LogicalSession logical, ShardedStatementEnd ends, DirectStatements direct) {
        this.session = session;
        this.database = database;
        this.connections = connections;
        this.transaction = transaction;
        this.logical = logical;
        this.ends = ends;
        this.direct = direct;
        this.insertSelect = new ShardedInsertSelect(database, insertSelectSession());
    }

    ShardedInsertSelect insertSelect() {
        return insertSelect;
    }

    /** What INSERT ... SELECT needs of the session: statements run as any, the block's failure. */
    private ShardedInsertSelect.Session insertSelectSession() {
        return new ShardedInsertSelect.Session() {
            @Override
            public QueryResult run(Plan plan, ParameterValues parameters, ResultSink sink) throws StatementFailure {
                return session.run(plan, parameters, sink);
            }

            @Override
            public void failed() {
                transaction.afterErrorInBlock();
            }

            @Override
            public java.nio.charset.Charset text() {
                return session.textCharset();
            }
        };
    }

    ShardedForeignKeys foreignKeys() {
        ShardedForeignKeys result = foreignKeys;
        if (result == null) {
            result = new ShardedForeignKeys(database, foreignKeySession());
            foreignKeys = result;
        }
        return result;
    }

    /** What the checks of foreign keys need of the session. */
    private ShardedForeignKeys.Session foreignKeySession() {
        return new ShardedForeignKeys.Session() {
            @Override
            public QueryResult onSlot(int slot, String sql) throws StatementFailure {
                return direct.onSlot(slot, sql, ParameterValues.NONE, ResultSink.DISCARD);
            }

            @Override
            public QueryResult query(Plan plan, ParameterValues parameters) throws StatementFailure {
                return session.routed(logical.adjust(plan), parameters, parameters.types(), null, ResultSink.DISCARD);
            }

            @Override
            public void keyLocked(int slot) {
                connections.markKeyLocked(slot);
            }

            @Override
            public QueryResult write(Plan plan, ParameterValues parameters, int[] routeTypes, ResultSink sink) throws StatementFailure {
                return session.routed(plan, parameters, routeTypes, null, sink);
            }

            @Override
            public boolean beginImplicit() {
                return transaction.beginImplicitIfIdle();
            }

            @Override
            public void failed(boolean startedImplicit) {
                ends.afterFailure(startedImplicit);
            }

            @Override
            public void commitImplicit(ResultSink sink) throws StatementFailure {
                ends.endTransaction(true, sink);
            }

            @Override
            public void ranDdl(AnalyzedStatement statement) {
                database.plans().schemaChanged();
                logical.ranDdl(statement, false);
            }

            @Override
            public boolean inTransaction() {
                return transaction.state().inTransaction();
            }

            @Override
            public Map<String, LogicalTable> readInTransaction(List<String> tables)
                    throws StatementFailure {
                try {
                    return database.catalog().readInTransaction(tables, slot -> {
                        try {
                            // Joins the transaction on that data source when it has not yet.
                            direct.onSlot(slot, "SELECT 1", ParameterValues.NONE, ResultSink.DISCARD).close();
                        } catch (StatementFailure failure) {
                            throw new SQLException(failure.fields().message(), failure.fields().sqlState(), failure);
                        }
                        return connections.held(slot);
                    });
                } catch (RuntimeException e) {
                    throw new StatementFailure(ErrorFields.error("XX000", "the tables of the transaction could not be read: " + e.getMessage()), e);
                }
            }

            @Override
            public java.nio.charset.Charset text() {
                return session.textCharset();
            }
        };
    }

    ShardedSequences sequences() {
        ShardedSequences result = sequences;
        if (result == null) {
            result = new ShardedSequences(database, sequenceSession());
            sequences = result;
        }
        return result;
    }

    /** CREATE TEMP SEQUENCE: the sequence is the session's, on its own connections. */
    private static final Pattern TEMPORARY = Pattern.compile("\\s*create\\s+temp(orary)?\\s",
            Pattern.CASE_INSENSITIVE);

    /** What statements about sequences need of the session: statements on one data source, queries, the transaction. */
    private ShardedSequences.Session sequenceSession() {
        return new ShardedSequences.Session() {
            @Override
            public QueryResult onSlot(int slot, String sql, ParameterValues parameters, ResultSink sink) throws StatementFailure {
                return direct.onSlot(slot, sql, parameters, sink);
            }

            @Override
            public QueryResult query(Plan plan, ParameterValues parameters) throws StatementFailure {
                return session.run(plan, parameters, ResultSink.DISCARD);
            }

            @Override
            public boolean beginImplicit() {
                return transaction.beginImplicitIfIdle();
            }

            @Override
            public void failed(boolean startedImplicit) {
                ends.afterFailure(startedImplicit);
            }

            @Override
            public void commitImplicit(int[] written, ResultSink sink) throws StatementFailure {
                connections.markWritten(written);
                ends.endTransaction(true, sink);
            }

            @Override
            public void written(int[] slots) {
                connections.markWritten(slots);
            }

            @Override
            public boolean bound(int slot) {
                return connections.bound(slot);
            }

            @Override
            public BackendConnection held(int slot) {
                return connections.held(slot);
            }

            @Override
            public long transaction() {
                return transaction.state().inTransaction() ? transaction.ended() : -1;
            }

            @Override
            public void changedSequence(Plan plan, boolean mirror) {
                database.plans().schemaChanged();
                AnalyzedStatement statement = plan.statement();
                if (TEMPORARY.matcher(statement.sql()).lookingAt()) {
                    return; // the session's own, in no catalog
                }
                logical.ranDdl(statement, false);
                // The client's text is the logical definition (the copies' is interleaved): the block's catalog queries
                // see it at once; outside a block the catalog reads it back from the copies when the statement ends.
                if (mirror && transaction.state().inBlock() && database.catalog().catalogDataSource() != null) {
                    direct.mirrorDdlOnCatalog(statement.sql());
                }
            }

            @Override
            public void keep(int slot) throws StatementFailure {
                connections.markBound(slot);
                connections.acquire(slot).keepsSessionState();
            }

            @Override
            public java.nio.charset.Charset text() {
                return session.textCharset();
            }
        };
    }

    /** What a COPY needs of the session: queries run as any, the transaction's end, connections given back. */
    ShardedCopy.Session copySession() {
        return new ShardedCopy.Session() {
            @Override
            public QueryResult query(Plan select) throws StatementFailure {
                return session.run(select, ParameterValues.NONE, ResultSink.DISCARD);
            }

            @Override
            public void endTransaction(boolean commit) throws StatementFailure {
                ends.endTransaction(commit);
            }

            @Override
            public void afterStatement() {
                ends.afterStatement();
            }

            @Override
            public io.ashlar.backend.execute.ClientEncoding encoding() {
                return session.clientEncoding();
            }
        };
    }
}
