package io.ashlar.backend.session;

import io.ashlar.parser.SqlText;
import io.ashlar.backend.datasource.BackendConnection;
import io.ashlar.backend.execute.ErrorFields;
import io.ashlar.backend.execute.QueryResult;
import io.ashlar.backend.execute.StatementFailure;
import io.ashlar.backend.sharding.TagResult;
import io.ashlar.backend.transaction.TwoPhaseCommit;
import io.ashlar.parser.statement.AnalyzedStatement;
import io.ashlar.parser.statement.TransactionCommand;
import io.ashlar.parser.statement.TransactionStatement;
import java.util.ArrayList;
import java.util.List;

/**
 * The transaction of a sharded session, which the session keeps over its data sources: its
 * {@link TransactionState}, and what a data source that joins late must be given.
 *
 * <p>The client's BEGIN is kept here, not sent: each data source joins the transaction when a
 * statement first uses it. A plain BEGIN travels with that statement; anything more (BEGIN's
 * isolation level and modes, SET TRANSACTION, the savepoints made so far) is replayed on the data
 * source first. SAVEPOINT, RELEASE, ROLLBACK TO and SET TRANSACTION go to every data source that
 * joined; the transaction ends with COMMIT or ROLLBACK on each of them. A transaction that wrote
 * to two or more data sources commits in two phases ({@link PreparedCommit}) unless server.yaml
 * chose transaction type LOCAL: then a COMMIT that fails on one data source after others committed
 * is reported as such.
 *
 * @see <a href="https://www.postgresql.org/docs/current/sql-begin.html">BEGIN</a>
 */
final class ShardedTransaction {

    private final ShardConnections connections;
    private final TwoPhaseCommit twoPhase;
    private TransactionState state = TransactionState.IDLE;
    /** The client's BEGIN when it says more than BEGIN (isolation level, READ ONLY, DEFERRABLE), else null. */
    private String beginSql;
    private final List<String> savepoints = new ArrayList<>();
    /** SET TRANSACTION statements of the block, in order. */
    private final List<String> transactionSettings = new ArrayList<>();
    /** A data source whose connection ended inside the block (its COMMIT is an error). */
    private String lostDataSource;
    /** How many transactions ended: the same number while one lasts. */
    private long transactionsEnded;

    ShardedTransaction(ShardConnections connections, TwoPhaseCommit twoPhase) {
        this.connections = connections;
        this.twoPhase = twoPhase;
    }

    TransactionState state() {
        return state;
    }

    /** How many transactions (blocks and implicit ones) ended: the same number while one lasts. */
    long ended() {
        return transactionsEnded;
    }

    /** A statement failed ({@link TransactionState#afterError}). */
    void afterError() {
        state = state.afterError();
    }

    /** A statement failed where only a block is marked ({@link TransactionState#afterErrorInBlock}). */
    void afterErrorInBlock() {
        state = state.afterErrorInBlock();
    }

    /** The proxy needs a transaction ({@link TransactionState#beginImplicit}). */
    void beginImplicit() {
        state = state.beginImplicit();
    }

    /** Opens an implicit transaction when none is in force (a statement that must be atomic); whether it did. */
    boolean beginImplicitIfIdle() {
        if (state != TransactionState.IDLE) {
            return false;
        }
        beginImplicit();
        return true;
    }

    /** The client's transaction control takes over the proxy's transaction ({@link TransactionState#becomeBlock}). */
    void becomeBlock() {
        state = state.becomeBlock();
    }

    /** A joined data source's connection ended inside the block: the block failed, and its COMMIT will say why. */
    void connectionLost(String dataSource) {
        if (state.inBlock()) {
            state = TransactionState.FAILED_BLOCK;
            lostDataSource = dataSource;
        }
    }

    /** The data source whose connection ended inside the block, or null. */
    String lostDataSource() {
        return lostDataSource;
    }

    /**
     * Whether a statement on this data source must open the transaction first (one is in force,
     * and the data source has not joined it yet). A plain BEGIN travels with the statement;
     * anything more is sent here first, and the data source has then joined.
     */
    boolean needsBegin(int dataSource) throws StatementFailure {
        if (!state.inTransaction() || connections.joined(dataSource)) {
            return false;
        }
        if (beginTravels()) {
            return true;
        }
        StringBuilder sql = new StringBuilder(beginSql == null ? "BEGIN" : beginSql);
        for (String each : transactionSettings) {
            sql.append(';').append(each);
        }
        for (String savepoint : savepoints) {
            sql.append(";SAVEPOINT ").append(SqlText.identifier(savepoint));
        }
        ShardConnections.runOn(connections.held(dataSource), sql.toString());
        connections.join(dataSource);
        return false;
    }

    /** Whether a data source joins the transaction with a plain BEGIN sent ahead of its first statement (nothing more to replay). */
    boolean beginTravels() {
        return beginSql == null && savepoints.isEmpty() && transactionSettings.isEmpty();
    }

    /**
     * The connection to a data source inside the transaction for a statement whose BEGIN cannot
     * travel with it (a COPY): the BEGIN runs first. The data source counts as written.
     */
    BackendConnection joinFirst(int dataSource) throws StatementFailure {
        BackendConnection connection = connections.acquire(dataSource);
        if (needsBegin(dataSource)) {
            ShardConnections.runOn(connection, beginSql == null ? "BEGIN" : beginSql);
            connections.join(dataSource);
        }
        if (state.inTransaction()) {
            connections.markWritten(dataSource);
        }
        return connection;
    }

    /** What a COMMIT or ROLLBACK AND CHAIN carries into the next block: the BEGIN's modes and the SET TRANSACTIONs after it. */
    record Characteristics(String beginSql, List<String> transactionSettings) {
    }

    /** The modes of the block in force, for {@link #chain}. */
    Characteristics characteristics() {
        List<String> settings = new ArrayList<>(transactionSettings.size());
        for (String each : transactionSettings) {
            if (!each.toLowerCase(java.util.Locale.ROOT).contains("snapshot")) {
                settings.add(each); // a snapshot imported into the ended transaction is not the next one's
            }
        }
        return new Characteristics(beginSql, settings);
    }

    /**
     * COMMIT or ROLLBACK AND CHAIN, the transaction just ended: a new block begins at once with the same modes
     * (isolation level, read only, deferrable), as PostgreSQL's does; its data sources join it as a BEGIN's do.
     */
    void chain(Characteristics modes) {
        state = state.begin();
        beginSql = modes.beginSql();
        transactionSettings.addAll(modes.transactionSettings());
    }

    /** BEGIN or START TRANSACTION: kept, with its modes, for the data sources to join. */
    QueryResult begin(AnalyzedStatement statement, TransactionStatement body) {
        List<ErrorFields> notices = new ArrayList<>(1);
        if (state.inBlock()) {
            notices.add(warning("25001", "there is already a transaction in progress"));
        } else {
            // A data source already in the implicit transaction of this pipeline stays in it.
            state = state.begin();
            boolean plain = body.isolationLevel().isEmpty() && body.readOnly().isEmpty() && body.deferrable().isEmpty();
            beginSql = plain ? null : statement.sql();
        }
        return new TagResult(body.command() == TransactionCommand.BEGIN ? "BEGIN" : "START TRANSACTION", notices);
    }

    /** SET TRANSACTION inside the block: on the data sources that joined, and replayed on those that join later. */
    QueryResult setTransaction(String sql) throws StatementFailure {
        connections.runOnJoined(sql);
        transactionSettings.add(sql);
        return new TagResult("SET", new ArrayList<>(1));
    }

    /** SAVEPOINT, RELEASE SAVEPOINT, ROLLBACK TO SAVEPOINT: on every data source that joined. */
    QueryResult savepoint(AnalyzedStatement statement, TransactionStatement body) throws StatementFailure {
        String name = body.name().orElse("");
        if (!state.inBlock()) {
            String command = body.command() == TransactionCommand.SAVEPOINT ? "SAVEPOINT"
                    : body.command() == TransactionCommand.RELEASE_SAVEPOINT ? "RELEASE SAVEPOINT" : "ROLLBACK TO SAVEPOINT";
            throw new StatementFailure(ErrorFields.error("25P01", command + " can only be used in transaction blocks"));
        }
        int index = savepoints.lastIndexOf(name);
        if (body.command() != TransactionCommand.SAVEPOINT && index < 0) {
            state = TransactionState.FAILED_BLOCK;
            throw new StatementFailure(ErrorFields.error("3B001", "savepoint \"" + name + "\" does not exist"));
        }
        try {
            connections.runOnJoined(statement.sql());
        } catch (StatementFailure failure) {
            state = TransactionState.FAILED_BLOCK;
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
                state = state.rolledBackToSavepoint();
                return new TagResult("ROLLBACK", List.of());
            }
        }
    }

    /**
     * Ends the transaction on every data source that joined it: COMMIT, or ROLLBACK. A COMMIT of a
     * transaction that lost a data source's connection rolls back everywhere instead; a failed
     * COMMIT rolls back the data sources not yet committed. Either way the transaction is over.
     *
     * @return the failure to report, or null
     */
    StatementFailure end(boolean commit) {
        StatementFailure first = null;
        if (commit) {
            String broken = connections.brokenJoined();
            if (broken != null) {
                // A data source's part of the transaction is gone with its connection: committing
                // the others would keep half of it. All roll back, and the client is told.
                first = new StatementFailure(ErrorFields.error("08006", "the transaction was rolled back: the"
                        + " connection to data source " + broken + " ended before COMMIT"));
                commit = false;
            }
        }
        int[] writers = commit ? PreparedCommit.writers(connections, twoPhase) : null;
        StatementFailure ended = writers != null ? PreparedCommit.commit(connections, twoPhase, writers)
                : connections.endJoined(commit);
        over();
        return first != null ? first : ended;
    }

    /**
     * The transaction is over on every data source that joined it (their COMMIT or ROLLBACK ran, as {@link #end} runs
     * them or the event loop ran the only one's): the session is outside a transaction again.
     */
    void over() {
        state = state.end();
        transactionsEnded++;
        lostDataSource = null;
        beginSql = null;
        savepoints.clear();
        transactionSettings.clear();
    }

    static ErrorFields warning(String sqlState, String message) {
        return ErrorFields.of("WARNING", sqlState, message);
    }

}
