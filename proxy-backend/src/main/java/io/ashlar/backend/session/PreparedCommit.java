package io.ashlar.backend.session;

import io.ashlar.backend.datasource.BackendConnection;
import io.ashlar.backend.datasource.BackendDataSource;
import io.ashlar.backend.execute.ErrorFields;
import io.ashlar.backend.execute.StatementFailure;
import io.ashlar.backend.transaction.TwoPhaseCommit;
import io.ashlar.parser.statement.AnalyzedStatement;
import io.ashlar.parser.statement.StatementKind;
import io.ashlar.parser.statement.TableReference;
import io.ashlar.parser.statement.TableRole;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The COMMIT of a transaction that wrote to several data sources, in two phases: the data sources
 * that only read commit first, in one phase each; then PREPARE TRANSACTION on each written one;
 * once all are prepared the decision is made durable ({@link TwoPhaseCommit#decideCommit}), and
 * COMMIT PREPARED runs on each. A failure before the decision rolls back every data source
 * (ROLLBACK PREPARED where it prepared) and is the client's error; a failure after it is finished
 * in the background, and the client is told COMMIT: the transaction is committed, some data
 * sources just do not show it yet.
 *
 * <p>A transaction that wrote to one data source (or none) never comes here: it commits in one
 * phase, with no log write and no extra round trip.
 *
 * @see <a href="https://www.postgresql.org/docs/current/sql-prepare-transaction.html">PREPARE TRANSACTION</a>
 */
final class PreparedCommit {

    private PreparedCommit() {
    }

    /**
     * The slots whose connections wrote in the transaction and can still commit it, when there are
     * two or more and two-phase commit is on; else null (one phase does).
     */
    static int[] writers(ShardConnections connections, TwoPhaseCommit twoPhase) {
        if (!twoPhase.enabled()) {
            return null;
        }
        int count = 0;
        for (int i = 0; i < connections.slots(); i++) {
            if (writes(connections, i)) {
                count++;
            }
        }
        if (count < 2) {
            return null;
        }
        int[] result = new int[count];
        for (int i = 0, n = 0; i < connections.slots(); i++) {
            if (writes(connections, i)) {
                result[n++] = i;
            }
        }
        return result;
    }

    private static boolean writes(ShardConnections connections, int slot) {
        BackendConnection connection = connections.held(slot);
        return connection != null && connections.joined(slot) && connections.written(slot) && connection.status() == 'T';
    }

    /**
     * Commits the transaction on every joined data source, the {@code writers} in two phases.
     *
     * @return the failure to report (the transaction then rolled back everywhere), or null
     */
    static StatementFailure commit(ShardConnections connections, TwoPhaseCommit twoPhase, int[] writers) {
        for (int slot : writers) {
            BackendDataSource dataSource = connections.held(slot).dataSource();
            if (twoPhase.refusesPrepare(dataSource)) {
                connections.endJoined(false);
                return new StatementFailure(ErrorFields.error("55000", "the transaction was rolled back: it wrote to several"
                        + " data sources, and data source " + dataSource.name() + " cannot prepare transactions"
                        + " (max_prepared_transactions is 0)", "Set max_prepared_transactions above 0 on " + dataSource.name()
                        + " and restart it, or choose commits one data source after another, not atomic, with"
                        + " transaction: defaultType: LOCAL in server.yaml."));
            }
        }
        // Data sources that only read: one phase. A failure here still rolls everything back.
        for (int i = 0; i < connections.slots(); i++) {
            BackendConnection connection = connections.held(i);
            if (connection == null || !connections.joined(i) || contains(writers, i)) {
                continue;
            }
            try {
                ShardConnections.runOn(connection, connection.status() == 'T' ? "COMMIT" : "ROLLBACK");
            } catch (StatementFailure failure) {
                connections.endJoined(false);
                return failure;
            }
            connections.leave(i);
        }
        String transaction = twoPhase.nextGid();
        List<Integer> prepared = new ArrayList<>(writers.length);
        StatementFailure failure = null;
        for (int slot : writers) {
            BackendConnection connection = connections.held(slot);
            try {
                ShardConnections.runOn(connection, "PREPARE TRANSACTION '" + gid(transaction, slot) + "'");
                prepared.add(slot);
            } catch (StatementFailure e) {
                failure = e;
                if (connection.isBroken()) {
                    // It may have prepared before its connection went: rolled back from elsewhere.
                    prepared.add(slot);
                }
            }
            // PREPARE TRANSACTION ends the transaction on its connection, prepared or, failing, rolled back.
            connections.leave(slot);
            if (failure != null) {
                break;
            }
        }
        if (failure == null) {
            boolean carryOn;
            try {
                carryOn = twoPhase.decideCommit(transaction);
            } catch (IOException e) {
                rollBackPrepared(connections, twoPhase, transaction, prepared);
                return new StatementFailure(ErrorFields.error("58030", "the transaction was rolled back: its commit decision"
                        + " could not be written to the transaction log: " + e.getMessage()), e);
            }
            if (!carryOn) {
                return new StatementFailure(ErrorFields.error("57P01", "terminating connection due to administrator command"));
            }
            commitPrepared(connections, twoPhase, transaction, prepared);
            return null;
        }
        connections.endJoined(false);
        rollBackPrepared(connections, twoPhase, transaction, prepared);
        return failure;
    }

    private static void commitPrepared(ShardConnections connections, TwoPhaseCommit twoPhase, String transaction,
                                       List<Integer> prepared) {
        List<BackendDataSource> left = new ArrayList<>();
        List<String> gids = new ArrayList<>();
        for (int slot : prepared) {
            BackendConnection connection = connections.held(slot);
            String gid = gid(transaction, slot);
            try {
                if (connection.isBroken()) {
                    throw new StatementFailure(ErrorFields.error("08006", "connection lost"));
                }
                ShardConnections.runOn(connection, "COMMIT PREPARED '" + gid + "'");
            } catch (StatementFailure e) {
                left.add(connection.dataSource());
                gids.add(gid);
            }
        }
        if (left.isEmpty()) {
            twoPhase.finished(transaction);
        } else {
            twoPhase.finishLater(transaction, left, gids, true);
        }
    }

    private static void rollBackPrepared(ShardConnections connections, TwoPhaseCommit twoPhase, String transaction,
                                         List<Integer> prepared) {
        List<BackendDataSource> left = new ArrayList<>();
        List<String> gids = new ArrayList<>();
        for (int slot : prepared) {
            BackendConnection connection = connections.held(slot);
            String gid = gid(transaction, slot);
            try {
                if (connection.isBroken()) {
                    throw new StatementFailure(ErrorFields.error("08006", "connection lost"));
                }
                ShardConnections.runOn(connection, "ROLLBACK PREPARED '" + gid + "'");
            } catch (StatementFailure e) {
                if (!"42704".equals(e.fields().sqlState())) {
                    left.add(connection.dataSource());
                    gids.add(gid);
                }
            }
        }
        if (!left.isEmpty()) {
            twoPhase.finishLater(transaction, left, gids, false);
        }
    }

    /**
     * Whether a statement counts as a write of its data sources: anything but a query or a
     * cursor's, and a query that writes (a data-modifying WITH, SELECT INTO). A SELECT of a
     * function that writes counts as a read.
     */
    static boolean changesData(AnalyzedStatement statement) {
        StatementKind kind = statement.kind();
        if (kind == StatementKind.CURSOR) {
            return false;
        }
        if (kind != StatementKind.SELECT) {
            return true;
        }
        List<TableReference> tables = statement.tables();
        for (int i = 0, n = tables.size(); i < n; i++) {
            TableRole role = tables.get(i).role();
            if (role == TableRole.DML_TARGET || role == TableRole.DDL_TARGET) {
                return true;
            }
        }
        return false;
    }

    private static String gid(String transaction, int slot) {
        return transaction + "_" + slot;
    }

    private static boolean contains(int[] slots, int slot) {
        for (int each : slots) {
            if (each == slot) {
                return true;
            }
        }
        return false;
    }
}
