package org.postgresql.jdbc;

import java.sql.SQLException;
import java.sql.SQLWarning;
import java.util.ArrayList;
import java.util.List;
import org.postgresql.core.Field;
import org.postgresql.core.ParameterList;
import org.postgresql.core.Query;
import org.postgresql.core.ResultCursor;
import org.postgresql.core.Tuple;

/**
 * The results of one backend batch as Ashlar needs them: each row's command tag and count, and
 * the index of the first row that failed with its error.
 *
 * <p>pgjdbc's batch execution ({@code QueryExecutor.execute(Query[], ParameterList[],
 * BatchResultHandler, ...)}: Bind/Execute per row, one Sync, results read once, with a Sync and
 * a read midway when the answers could fill the socket buffer) takes a {@link BatchResultHandler},
 * whose constructor is package-private and which reports a JDBC statement's view (update counts
 * with {@code EXECUTE_FAILED} from the last midway Sync on). This subclass, in pgjdbc's package
 * for that reason only (pgjdbc is pinned in the build; its jar is not sealed), overrides every
 * method that would touch the JDBC statement and keeps what a proxy must answer per row.
 */
public final class AshlarBatchResults extends BatchResultHandler {

    private final String[] tags;
    private final long[] counts;
    private int next;
    private int failedRow = -1;
    private SQLException failure;
    private List<SQLWarning> warnings;

    public AshlarBatchResults(Query[] queries, ParameterList[] parameterLists) {
        super(null, queries, parameterLists, false);
        this.tags = new String[queries.length];
        this.counts = new long[queries.length];
    }

    @Override
    public void handleResultRows(Query fromQuery, Field[] fields, List<Tuple> tuples, ResultCursor cursor) {
        // A batch runs statements that return no rows; rows that come anyway are not the client's.
    }

    @Override
    public void handleCommandStatus(String status, long updateCount, long insertOID) {
        if (next < tags.length) {
            tags[next] = status;
            counts[next] = updateCount;
        }
        next++;
    }

    @Override
    public void handleWarning(SQLWarning warning) {
        if (warnings == null) {
            warnings = new ArrayList<>();
        }
        warnings.add(warning);
    }

    @Override
    public void handleError(SQLException error) {
        if (failure == null) {
            failure = error;
            failedRow = Math.min(next, tags.length - 1);
        }
        next++;
    }

    @Override
    public void secureProgress() {
        // Ashlar runs a batch inside a transaction: nothing is committed midway.
    }

    @Override
    public void handleCompletion() {
        // The caller reads the outcome; nothing is thrown.
    }

    @Override
    public SQLException getException() {
        return failure;
    }

    /** The command tag of each row that ran, in order; null for rows after a failure. */
    public String[] tags() {
        return tags;
    }

    public long[] counts() {
        return counts;
    }

    /** The index of the first row that failed, or -1. */
    public int failedRow() {
        return failedRow;
    }

    public SQLException failure() {
        return failure;
    }

    public List<SQLWarning> warnings() {
        return warnings == null ? List.of() : warnings;
    }
}
