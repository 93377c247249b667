package io.ashlar.backend.session;

import io.ashlar.backend.datasource.BackendConnection;
import io.ashlar.backend.datasource.ParameterValues;
import io.ashlar.backend.execute.Batches;
import io.ashlar.backend.execute.ErrorFields;
import io.ashlar.backend.session.BackendSession.BatchOutcome;
import io.ashlar.backend.sharding.Plan;
import io.ashlar.backend.sharding.RouteValues;
import io.ashlar.backend.sharding.ShardedExecution;
import io.ashlar.route.RouteException;
import java.sql.SQLException;
import java.util.Arrays;

/**
 * A client's batch over a sharded database's data sources. Its rows are routed one by one
 * (plan-cache hit, route, rewrite-cache hit); when every row lands on exactly one unit, each data
 * source gets its rows as one backend batch, all the batches written before any answer is read,
 * so that the data sources work at the same time with no thread but the session's. The outcomes
 * are then put back in the client's row order: the first failing row (the lowest index over all
 * data sources) ends the batch, and the rows before it ran on their data sources before any
 * failure there.
 */
final class ShardedBatch {

    private final ShardedExecution.SingleUnit[] units;
    /** The data sources the rows go to, in data source order. */
    private final int[] dataSources;
    /** Per data source of {@link #dataSources}: the indexes of its rows, in the client's order. */
    private final int[][] rowIndexes;

    private ShardedBatch(ShardedExecution.SingleUnit[] units, int[] dataSources, int[][] rowIndexes) {
        this.units = units;
        this.dataSources = dataSources;
        this.rowIndexes = rowIndexes;
    }

    /**
     * Routes the rows; null when one cannot run as part of a backend batch (it spans shards, or
     * its route fails: the rows then run one by one, and that row reports its own error).
     */
    static ShardedBatch route(LogicalDatabase database, Plan plan, ParameterValues[] rows, int[] routeTypes,
                              java.nio.charset.Charset text) {
        int dataSourceCount = database.dataSources().size();
        ShardedExecution.SingleUnit[] units = new ShardedExecution.SingleUnit[rows.length];
        int[] perDataSource = new int[dataSourceCount];
        for (int i = 0; i < rows.length; i++) {
            ShardedExecution execution;
            try {
                execution = ShardedExecution.plan(database, plan, rows[i], new RouteValues(rows[i], routeTypes, text));
            } catch (RouteException e) {
                return null;
            }
            ShardedExecution.SingleUnit unit = execution.singleUnit();
            if (unit == null) {
                return null;
            }
            units[i] = unit;
            perDataSource[unit.dataSource()]++;
        }
        int groups = 0;
        for (int count : perDataSource) {
            if (count > 0) {
                groups++;
            }
        }
        int[] dataSources = new int[groups];
        for (int d = 0, g = 0; d < dataSourceCount; d++) {
            if (perDataSource[d] > 0) {
                dataSources[g++] = d;
            }
        }
        int[][] rowIndexes = new int[groups][];
        for (int g = 0; g < groups; g++) {
            int[] indexes = new int[perDataSource[dataSources[g]]];
            for (int i = 0, k = 0; i < rows.length; i++) {
                if (units[i].dataSource() == dataSources[g]) {
                    indexes[k++] = i;
                }
            }
            rowIndexes[g] = indexes;
        }
        return new ShardedBatch(units, dataSources, rowIndexes);
    }

    /** The data sources the rows go to. */
    int[] dataSources() {
        return dataSources;
    }

    /**
     * Runs the batch: each data source's rows in one write, then the answers.
     *
     * @param connections one per data source of {@link #dataSources}
     * @param begin per data source, whether its batch opens the transaction
     * @return the rows' tags up to the first that failed, that row, and its error as the backend sent it
     */
    BatchOutcome run(BackendConnection[] connections, boolean[] begin) {
        int groups = dataSources.length;
        BatchOutcome[] outcomes = new BatchOutcome[groups];
        BackendConnection.SentBatch[] sent = new BackendConnection.SentBatch[groups];
        for (int g = 0; g < groups; g++) {
            try {
                sent[g] = send(connections[g], begin[g], rowIndexes[g]);
            } catch (SQLException e) {
                outcomes[g] = new BatchOutcome(new String[0], 0, ErrorFields.from(e));
            } catch (RuntimeException e) {
                outcomes[g] = internalError(e);
            }
        }
        for (int g = 0; g < groups; g++) {
            if (sent[g] != null) {
                try {
                    outcomes[g] = Batches.outcome(connections[g].receiveBatch(sent[g]));
                } catch (RuntimeException e) {
                    outcomes[g] = internalError(e);
                }
            }
        }
        int rowCount = units.length;
        String[] tags = new String[rowCount];
        int failedRow = -1;
        ErrorFields error = null;
        for (int g = 0; g < groups; g++) {
            BatchOutcome outcome = outcomes[g];
            int[] indexes = rowIndexes[g];
            for (int k = 0; k < outcome.tags().length; k++) {
                tags[indexes[k]] = outcome.tags()[k];
            }
            if (outcome.failedRow() >= 0) {
                // Past the data source's last row: its commit at Sync failed, after every row.
                int row = outcome.failedRow() < indexes.length ? indexes[outcome.failedRow()] : rowCount;
                if (failedRow < 0 || row < failedRow) {
                    failedRow = row;
                    error = outcome.error();
                }
            }
        }
        if (failedRow >= 0) {
            return new BatchOutcome(Arrays.copyOf(tags, failedRow), failedRow, error);
        }
        return new BatchOutcome(tags, -1, null);
    }

    private BackendConnection.SentBatch send(BackendConnection connection, boolean begin, int[] indexes) throws SQLException {
        String[] sqls = new String[indexes.length];
        ParameterValues[] parameters = new ParameterValues[indexes.length];
        for (int k = 0; k < indexes.length; k++) {
            sqls[k] = units[indexes[k]].sql();
            parameters[k] = units[indexes[k]].parameters();
        }
        return connection.sendBatch(sqls, parameters, begin);
    }

    private static BatchOutcome internalError(RuntimeException e) {
        return new BatchOutcome(new String[0], 0, ErrorFields.error("XX000", "internal error running a shard's batch: " + e));
    }
}
