package io.ashlar.backend.sharding;

import io.ashlar.backend.datasource.BackendConnection;
import io.ashlar.backend.execute.CopyStream;
import io.ashlar.backend.session.LogicalDatabase;
import io.ashlar.parser.statement.AnalyzedStatement;
import io.ashlar.parser.statement.CopyStatement;
import io.ashlar.rewrite.RewriteResult;
import io.ashlar.rewrite.RewrittenUnit;
import io.ashlar.route.RouteEngine;
import io.ashlar.route.RouteException;
import io.ashlar.route.RouteParameters;
import io.ashlar.route.RouteResult;
import io.ashlar.route.rule.BroadcastTable;
import io.ashlar.route.rule.ShardingRules;
import java.sql.SQLException;
import java.util.List;

/**
 * {@code COPY t FROM STDIN} into a broadcast table of several data sources: the client's data goes, unchanged, to a
 * COPY of the table's copy on every data source, all of them open at once (one per data source, each on the session's
 * connection inside its transaction), so that every copy gets the same rows in any format, binary included. The
 * first error of any of them cancels the others; the session then rolls back the transaction they all ran in, so no
 * copy keeps a row the others lack. The row count reported is one copy's, as the client copied that many rows into
 * one table.
 *
 * <p>One session thread drives an instance; nothing here is shared.
 */
public final class BroadcastCopyIn implements CopyStream.In {

    private static final RouteEngine ROUTER = new RouteEngine();

    private final String table;
    /** The COPY on each data source; null once ended or cancelled. */
    private final CopyStream.In[] copies;
    private final CopyStream.In first;
    private SQLException failure;
    private boolean active = true;
    private boolean succeeded;
    private long handled = -1;

    private BroadcastCopyIn(String table, CopyStream.In[] copies) {
        this.table = table;
        this.copies = copies;
        this.first = copies[0];
    }

    /** Whether {@code statement} is {@code COPY t [(columns)] FROM STDIN} into a broadcast table of several data sources. */
    public static boolean handles(ShardingRules rules, AnalyzedStatement statement) {
        if (!(statement.body() instanceof CopyStatement copy) || !copy.from() || !copy.stdio() || copy.table().isEmpty()
                || rules.dataSources().size() < 2) {
            return false;
        }
        return rules.find(statement.tables().get(copy.table().getAsInt()).name().name()).orElse(null) instanceof BroadcastTable;
    }

    /**
     * Starts the COPY on every data source; the caller drives the result as a {@link CopyStream.In}, then commits the
     * session's transaction if {@link #succeeded()}, or rolls it back.
     *
     * @throws SQLException a data source's error for a bad statement (every COPY started is cancelled)
     */
    public static BroadcastCopyIn open(LogicalDatabase database, Plan plan, CopyConnections connections) throws SQLException {
        AnalyzedStatement statement = plan.statement();
        CopyStatement copy = (CopyStatement) statement.body();
        String table = statement.tables().get(copy.table().getAsInt()).name().name();
        List<RewrittenUnit> units;
        try {
            RouteResult route = ROUTER.route(statement, RouteParameters.NONE, database.rules());
            RewriteResult rewrite = plan.rewriter().rewrite(route, RouteParameters.NONE);
            units = rewrite.units();
        } catch (RouteException e) {
            throw CopyErrors.error(e.sqlState(), e.getMessage());
        }
        CopyStream.In[] copies = new CopyStream.In[units.size()];
        try {
            for (int i = 0; i < copies.length; i++) {
                int dataSource = database.dataSourceIndex(units.get(i).unit().dataSource());
                if (dataSource < 0) {
                    throw CopyErrors.error("XX000", "broadcast table " + table + " routed to unknown data source "
                            + units.get(i).unit().dataSource());
                }
                BackendConnection connection = ShardedCopyIn.connection(connections, dataSource);
                copies[i] = ShardedCopyIn.start(connection, units.get(i).sql());
            }
        } catch (SQLException e) {
            for (CopyStream.In each : copies) {
                if (each != null) {
                    ShardedCopyIn.cancel(each);
                }
            }
            throw e;
        }
        if (copies.length == 0) {
            throw CopyErrors.error("XX000", "the COPY into broadcast table " + table + " was routed nowhere");
        }
        return new BroadcastCopyIn(table, copies);
    }

    /** Whether the COPY ended with CopyDone and every data source's COPY succeeded: the session may commit. */
    public boolean succeeded() {
        return succeeded;
    }

    @Override
    public int getFormat() {
        return first.getFormat();
    }

    @Override
    public int getFieldCount() {
        return first.getFieldCount();
    }

    @Override
    public int getFieldFormat(int field) {
        return first.getFieldFormat(field);
    }

    /** One CopyData message, to every data source's COPY. After an error the data is discarded. */
    @Override
    public void writeToCopy(byte[] buf, int off, int len) throws SQLException {
        checkActive();
        if (failure != null) {
            return;
        }
        for (CopyStream.In each : copies) {
            try {
                each.writeToCopy(buf, off, len);
            } catch (SQLException e) {
                fail(e);
                return;
            }
        }
    }

    /**
     * The data is complete (CopyDone): ends every data source's COPY.
     *
     * @return the rows copied into one copy of the table
     * @throws SQLException the first error of any data source's COPY
     */
    @Override
    public long endCopy() throws SQLException {
        checkActive();
        active = false;
        long rows = 0;
        for (int i = 0; i < copies.length && failure == null; i++) {
            CopyStream.In copy = copies[i];
            copies[i] = null;
            try {
                long copied = copy.endCopy();
                if (i == 0) {
                    rows = copied;
                }
            } catch (SQLException e) {
                fail(e);
            }
        }
        if (failure != null) {
            throw failure;
        }
        succeeded = true;
        handled = rows;
        return rows;
    }

    /** The client gave up (CopyFail): cancels every data source's COPY; nothing is kept once the session rolls back. */
    @Override
    public void cancelCopy() {
        if (!active) {
            return;
        }
        active = false;
        if (failure == null) {
            fail(CopyErrors.error("57014", "COPY from stdin failed"));
        }
    }

    @Override
    public long getHandledRowCount() {
        return handled;
    }

    private void fail(SQLException e) {
        if (failure == null) {
            failure = e;
        }
        for (int i = 0; i < copies.length; i++) {
            CopyStream.In copy = copies[i];
            if (copy != null) {
                copies[i] = null;
                ShardedCopyIn.cancel(copy);
            }
        }
    }

    private void checkActive() throws SQLException {
        if (!active) {
            throw CopyErrors.error("55000", "the COPY into broadcast table " + table + " has ended");
        }
    }

    @Override
    public String toString() {
        return "BroadcastCopyIn[" + table + ", " + copies.length + " data sources"
                + (failure == null ? "" : ", failed: " + failure.getMessage()) + "]";
    }
}
