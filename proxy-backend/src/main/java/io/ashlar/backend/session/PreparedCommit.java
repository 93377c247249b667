package io.ashlar.backend.session;

import io.ashlar.backend.datasource.BackendConnection;
import io.ashlar.backend.datasource.BackendDataSource;
import io.ashlar.backend.datasource.ParameterValues;
import io.ashlar.backend.execute.BackendReplies;
import io.ashlar.backend.execute.BufferedResult;
import io.ashlar.backend.execute.ErrorFields;
import io.ashlar.backend.execute.StatementFailure;
import io.ashlar.backend.transaction.TwoPhaseCommit;
import io.ashlar.parser.statement.AnalyzedStatement;
import io.ashlar.parser.statement.StatementKind;
import io.ashlar.parser.statement.TableReference;
import io.ashlar.parser.statement.TableRole;
import java.io.IOException;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The COMMIT of a transaction that wrote to several data sources, in two phases: the data sources
 * that only read commit first, in one phase each; then PREPARE TRANSACTION on each written one;
 * once all are prepared the decision is made durable ({@link TwoPhaseCommit#decideCommit}), and
 * COMMIT PREPARED runs on each. The PREPAREs go to every data source before any answer is read,
 * and so do the COMMIT PREPAREDs: two round trips and an fsync whatever the number of data sources. A failure before the decision rolls back every data source
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
        String transaction = twoPhase.nextGid();
        BackendConnection[] targets = new BackendConnection[writers.length];
        String[] sqls = new String[writers.length];
        for (int i = 0; i < writers.length; i++) {
            targets[i] = connections.held(writers[i]);
            sqls[i] = "PREPARE TRANSACTION '" + gid(transaction, writers[i]) + "'";
        }
        StatementFailure[] results = runEach(targets, sqls);
        StatementFailure failure = null;
        boolean[] prepared = new boolean[writers.length];
        for (int i = 0; i < writers.length; i++) {
            // PREPARE TRANSACTION ends the transaction on its connection: prepared or, failing, rolled back.
            connections.leave(writers[i]);
            if (results[i] == null) {
                prepared[i] = true;
            } else {
                if (failure == null) {
                    failure = results[i];
                }
                // It may have prepared before its connection went: rolled back (or not) from elsewhere.
                prepared[i] = targets[i].isBroken();
            }
        }
        if (failure != null) {
            finish(twoPhase, transaction, writers, targets, prepared, false, null);
            connections.endJoined(false);
            return explained(failure);
        }
        boolean carryOn;
        try {
            carryOn = twoPhase.decideCommit(transaction);
        } catch (IOException e) {
            finish(twoPhase, transaction, writers, targets, prepared, false, null);
            connections.endJoined(false);
            return new StatementFailure(ErrorFields.error("58030", "the transaction was rolled back: its commit decision"
                    + " could not be written to the transaction log: " + e.getMessage()), e);
        }
        if (!carryOn) {
            connections.endJoined(false);
            return new StatementFailure(ErrorFields.error("57P01", "terminating connection due to administrator command"));
        }
        finish(twoPhase, transaction, writers, targets, prepared, true, connections);
        // Data sources that only read (or only locked rows a write relies on: a parent row held FOR KEY SHARE for a
        // foreign key the proxy enforces) commit after the writers, in one phase: a lock is not released before the
        // rows it protects are visible. Nothing is lost if one fails now.
        connections.endJoined(true);
        return null;
    }

    /**
     * PostgreSQL refuses to prepare a transaction that touched temporary tables (0A000), which the transaction may
     * have done only through the proxy: a read across shards finished by PostgreSQL made its intermediate results
     * there. The client gets PostgreSQL's error with what it means here and what to do.
     */
    private static StatementFailure explained(StatementFailure failure) {
        ErrorFields fields = failure.fields();
        if (!fields.sqlState().equals("0A000") || !fields.message().startsWith("cannot PREPARE a transaction that has operated on temporary objects")) {
            return failure;
        }
        return new StatementFailure(ErrorFields.error("0A000", "the transaction was rolled back: it wrote to several data sources,"
                + " which commit in two phases, and PostgreSQL cannot prepare a transaction that has operated on temporary objects",
                "a read that spans shards (a subquery, CTE, join, set operation, window or aggregate finished by PostgreSQL)"
                + " makes temporary tables on one data source: run such reads outside the transaction, or in a transaction"
                + " that writes to one data source only, or create no temporary tables in it"), failure);
    }

    /**
     * COMMIT PREPARED or ROLLBACK PREPARED on every data source where the transaction prepared, all
     * at once; what fails (a connection gone) is finished in the background. A gid that is not
     * prepared (its PREPARE's connection broke before it ran) counts as rolled back.
     */
    /**
     * @param lockOrder the session's connections when committing: writers that hold a parent row FOR KEY SHARE for a
     *                  foreign key the proxy enforces commit after the others (the rows the lock protects are visible
     *                  before it goes); null: all at once
     */
    private static void finish(TwoPhaseCommit twoPhase, String transaction, int[] writers, BackendConnection[] targets,
                               boolean[] prepared, boolean commit, ShardConnections lockOrder) {
        int count = 0;
        for (int i = 0; i < writers.length; i++) {
            if (prepared[i] && !targets[i].isBroken()) {
                count++;
            }
        }
        BackendConnection[] live = new BackendConnection[count];
        String[] sqls = new String[count];
        int[] slots = new int[count];
        List<BackendDataSource> left = new ArrayList<>();
        List<String> gids = new ArrayList<>();
        for (int i = 0, n = 0; i < writers.length; i++) {
            if (!prepared[i]) {
                continue;
            }
            String gid = gid(transaction, writers[i]);
            if (targets[i].isBroken()) {
                left.add(targets[i].dataSource());
                gids.add(gid);
                continue;
            }
            live[n] = targets[i];
            slots[n] = writers[i];
            sqls[n++] = (commit ? "COMMIT PREPARED '" : "ROLLBACK PREPARED '") + gid + "'";
        }
        StatementFailure[] results;
        int late = 0;
        for (int i = 0; lockOrder != null && i < live.length; i++) {
            late += lockOrder.keyLocked(slots[i]) ? 1 : 0;
        }
        if (late == 0 || late == live.length) {
            results = runEach(live, sqls);
        } else {
            results = new StatementFailure[live.length];
            for (int wave = 0; wave < 2; wave++) {
                int size = wave == 0 ? live.length - late : late;
                BackendConnection[] some = new BackendConnection[size];
                String[] someSqls = new String[size];
                int[] index = new int[size];
                for (int i = 0, n = 0; i < live.length; i++) {
                    if (lockOrder.keyLocked(slots[i]) == (wave == 1)) {
                        some[n] = live[i];
                        someSqls[n] = sqls[i];
                        index[n++] = i;
                    }
                }
                StatementFailure[] waveResults = runEach(some, someSqls);
                for (int n = 0; n < size; n++) {
                    results[index[n]] = waveResults[n];
                }
            }
        }
        for (int i = 0; i < live.length; i++) {
            if (results[i] != null && !"42704".equals(results[i].fields().sqlState())) {
                left.add(live[i].dataSource());
                gids.add(gid(transaction, slots[i]));
            }
        }
        if (!left.isEmpty()) {
            twoPhase.finishLater(transaction, left, gids, commit);
        } else if (commit) {
            twoPhase.finished(transaction);
        }
    }

    /**
     * Runs one statement on each connection, all sent before any answer is read: the data sources
     * work at the same time, one round trip for all.
     *
     * @return each connection's failure, or null where it succeeded
     */
    private static StatementFailure[] runEach(BackendConnection[] targets, String[] sqls) {
        StatementFailure[] result = new StatementFailure[targets.length];
        BackendConnection.Sent[] sent = new BackendConnection.Sent[targets.length];
        for (int i = 0; i < targets.length; i++) {
            try {
                sent[i] = targets[i].send(new BackendConnection.Statement[] {
                        new BackendConnection.Statement(sqls[i], ParameterValues.NONE, true)}, false);
            } catch (SQLException e) {
                result[i] = new StatementFailure(ErrorFields.from(e), e);
            }
        }
        for (int i = 0; i < targets.length; i++) {
            if (sent[i] == null) {
                continue;
            }
            BufferedResult answer = new BufferedResult();
            try {
                targets[i].receive(sent[i], new BackendReplies[] {answer});
            } catch (SQLException e) {
                answer.handleError(e);
            }
            if (answer.error() != null) {
                result[i] = new StatementFailure(ErrorFields.from(answer.error()), answer.error());
            }
        }
        return result;
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
