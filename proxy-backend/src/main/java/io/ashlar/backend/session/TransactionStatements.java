package io.ashlar.backend.session;

import io.ashlar.backend.execute.ErrorFields;
import io.ashlar.backend.execute.QueryResult;
import io.ashlar.backend.execute.ResultSink;
import io.ashlar.backend.execute.StatementFailure;
import io.ashlar.backend.sharding.TagResult;
import io.ashlar.parser.statement.AnalyzedStatement;
import io.ashlar.parser.statement.TransactionCommand;
import io.ashlar.parser.statement.TransactionStatement;
import java.util.ArrayList;
import java.util.List;

/**
 * A sharded session's transaction-control statements (BEGIN, COMMIT, ROLLBACK, savepoints, SET TRANSACTION, SET
 * SESSION CHARACTERISTICS) against the states of {@link TransactionState}: BEGIN, savepoints and SET TRANSACTION in a
 * block are kept by {@link ShardedTransaction}, COMMIT and ROLLBACK end the transaction on every data source that
 * joined it ({@link ShardedStatementEnd}), the session's default modes are a setting ({@link DirectStatements}), and
 * two-phase commit's statements are refused.
 */
final class TransactionStatements {

    private final LogicalDatabase database;
    private final ShardedTransaction transaction;
    private final ShardedStatementEnd ends;
    private final DirectStatements direct;

    TransactionStatements(LogicalDatabase database, ShardedTransaction transaction, ShardedStatementEnd ends,
                          DirectStatements direct) {
        this.database = database;
        this.transaction = transaction;
        this.ends = ends;
        this.direct = direct;
    }

    /** Runs a transaction-control statement. */
    QueryResult run(AnalyzedStatement statement, TransactionStatement body, ResultSink sink)
            throws StatementFailure {
        TransactionState state = transaction.state();
        switch (body.command()) {
            case BEGIN, START_TRANSACTION -> {
                return transaction.begin(statement, body);
            }
            case COMMIT -> {
                if (!state.inBlock()) {
                    return body.chain() ? chainOutsideBlock("COMMIT") : noTransaction("COMMIT");
                }
                boolean commit = state == TransactionState.BLOCK;
                String lost = transaction.lostDataSource();
                ShardedTransaction.Characteristics modes = body.chain() ? transaction.characteristics() : null;
                ends.endTransaction(commit, sink);
                // As PostgreSQL's: the next block begins when the block ended as asked (a failed block's ROLLBACK too),
                // not after a COMMIT that failed.
                if (modes != null && lost == null) {
                    transaction.chain(modes);
                }
                if (lost != null) {
                    // Not the quiet ROLLBACK of a failed transaction: the client never saw it fail.
                    throw new StatementFailure(ErrorFields.error("08006", "the transaction was rolled back: the"
                            + " connection to data source " + lost + " ended before COMMIT"));
                }
                return new TagResult(commit ? "COMMIT" : "ROLLBACK", new ArrayList<>(1));
            }
            case ROLLBACK -> {
                if (!state.inBlock()) {
                    return body.chain() ? chainOutsideBlock("ROLLBACK") : noTransaction("ROLLBACK");
                }
                ShardedTransaction.Characteristics modes = body.chain() ? transaction.characteristics() : null;
                ends.endTransaction(false, sink);
                if (modes != null) {
                    transaction.chain(modes);
                }
                return new TagResult("ROLLBACK", new ArrayList<>(1));
            }
            case SAVEPOINT, RELEASE_SAVEPOINT, ROLLBACK_TO_SAVEPOINT -> {
                return transaction.savepoint(statement, body);
            }
            case SET_SESSION_CHARACTERISTICS -> {
                // The session's default transaction modes: a setting like any other.
                return direct.setting(statement, sink);
            }
            case SET_TRANSACTION -> {
                return state.inBlock() ? transaction.setTransaction(statement.sql()) : direct.onDefault(statement.sql(), sink);
            }
            default -> throw new StatementFailure(ErrorFields.error("0A000", statement.command().toUpperCase()
                    + " (two-phase commit) is not supported on the sharded logical database " + database.name()));
        }
    }

    /** COMMIT or ROLLBACK AND CHAIN outside a block: PostgreSQL's error. */
    private static QueryResult chainOutsideBlock(String command) throws StatementFailure {
        throw new StatementFailure(ErrorFields.error("25P01", command + " AND CHAIN can only be used in transaction blocks"));
    }

    /** COMMIT or ROLLBACK outside a block: PostgreSQL's warning, and the tag. */
    private static QueryResult noTransaction(String tag) {
        List<ErrorFields> notices = new ArrayList<>(1);
        notices.add(ShardedTransaction.warning("25P01", "there is no transaction in progress"));
        return new TagResult(tag, notices);
    }

    /** Whether the statement is one a failed block accepts: it ends the block, or goes back to a savepoint. */
    static boolean endsFailedBlock(TransactionStatement statement) {
        TransactionCommand command = statement.command();
        return command == TransactionCommand.ROLLBACK || command == TransactionCommand.COMMIT
                || command == TransactionCommand.ROLLBACK_TO_SAVEPOINT;
    }
}
