package io.ashlar.backend.datasource;

import io.ashlar.backend.execute.ColumnDescription;
import io.ashlar.backend.config.DataSourceConfig;
import io.ashlar.backend.execute.TextRows;
import io.ashlar.backend.pg.LinkPool;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * One backend database and its native connections ({@link LinkPool}, one pool per event loop).
 * Sessions on an event loop borrow on that loop ({@link #borrow(EventLoop)}); work off any loop
 * (reading metadata at start) borrows on one of the proxy's loops and waits.
 */
public final class BackendDataSource implements AutoCloseable {

    private final String name;
    private final DataSourceConfig config;
    private final LinkPool links;
    private final EventLoopGroup loops;
    private final boolean rewritesBatchedInserts;
    /** The RowDescriptions its connections sent, decoded once for all of them (made anew when {@link #types} change). */
    private volatile io.ashlar.backend.pg.RowDescriptionCache rowDescriptions = new io.ashlar.backend.pg.RowDescriptionCache();
    /** Its OIDs of user-defined types against those clients are told ({@link TypeOidMap}). */
    private volatile TypeOidMap types = TypeOidMap.NONE;
    private volatile Map<String, String> backendParameters = Map.of();
    private final LongAdder batches = new LongAdder();
    private final LongAdder batchRows = new LongAdder();

    private BackendDataSource(DataSourceConfig config, EventLoopGroup loops) {
        this.name = config.name();
        this.config = config;
        this.links = new LinkPool(config);
        this.loops = loops;
        this.rewritesBatchedInserts = "true".equalsIgnoreCase(config.driverProperties().getOrDefault("reWriteBatchedInserts", ""))
                || config.url().contains("reWriteBatchedInserts=true");
    }

    /**
     * A data source whose connections are made when first borrowed (a backend that is down does not
     * stop the proxy from starting; statements routed to it fail with SQLSTATE 08006 until it is
     * back).
     *
     * @param loops the proxy's event loops, for work done off any session's loop
     */
    public static BackendDataSource open(DataSourceConfig config, EventLoopGroup loops) {
        return new BackendDataSource(config, loops);
    }

    /** A data source of a tool or test, with an I/O thread of its own for work off any loop. */
    public static BackendDataSource open(DataSourceConfig config) {
        return new BackendDataSource(config, io.ashlar.backend.pg.BackendLoops.group());
    }

    public String name() {
        return name;
    }

    public DataSourceConfig config() {
        return config;
    }

    /** The native connections of this data source, per event loop. */
    public LinkPool links() {
        return links;
    }

    /** A RowDescription its connection sent, its types as clients are told them; decoded once. */
    io.ashlar.backend.pg.RowDescriptionCache.Described columns(io.netty.buffer.ByteBuf in, int start, int length,
                                                               java.nio.charset.Charset text) {
        return rowDescriptions.describe(in, start, length, text);
    }

    /** Its OIDs of user-defined types against those clients are told. */
    public TypeOidMap types() {
        return types;
    }

    /** Takes in its type OIDs as read again (after DDL): descriptions decoded before are decoded anew. */
    public void types(TypeOidMap map) {
        if (!map.sameAs(types)) {
            types = map;
            rowDescriptions = new io.ashlar.backend.pg.RowDescriptionCache(map::toCanonical, map::rowPatch);
        }
    }

    /** Whether batched single-row INSERTs become multi-row INSERTs ({@code reWriteBatchedInserts=true}, as pgjdbc does it). */
    boolean rewritesBatchedInserts() {
        return rewritesBatchedInserts;
    }

    /** Counts one backend batch of {@code rows} rows (clients' batches that did not run row by row). */
    void countBatch(int rows) {
        batches.increment();
        batchRows.add(rows);
    }

    /** How many backend batches ran on this data source, and how many rows they carried: {batches, rows}. */
    public long[] batchCounts() {
        return new long[] {batches.sum(), batchRows.sum()};
    }

    /**
     * Borrows a connection of the given event loop's pool, waiting for it; the caller returns it
     * with {@link BackendConnection#release()}.
     */
    public BackendConnection borrow(EventLoop loop) throws SQLException {
        BackendConnection result = BackendConnection.borrow(this, links.on(loop));
        if (backendParameters.isEmpty()) {
            backendParameters = Map.copyOf(result.parameterStatuses());
        }
        return result;
    }

    /**
     * A connection of the pool of {@code loop} lent at once, on that loop's own thread, or null when none is idle there:
     * nothing is opened or waited for.
     */
    public BackendConnection borrowNow(EventLoop loop) {
        if (backendParameters.isEmpty()) {
            return null; // the first borrow learns the backend's parameters, and may wait
        }
        return BackendConnection.lendNow(this, links.on(loop));
    }

    /**
     * Borrows a connection on one of the proxy's loops (work off any session's loop), without a session's settings:
     * a connection a session gave back keeps them (its client_encoding, DateStyle, search_path) until the next session
     * replaces them, and the proxy's own queries run in the backend's defaults.
     */
    public BackendConnection borrow() throws SQLException {
        BackendConnection result = borrow(loops.next());
        if (!result.settings().isEmpty()) {
            try {
                io.ashlar.backend.execute.TextRows.run(result, io.ashlar.backend.session.SessionSettings.EMPTY.applySql(true));
            } catch (SQLException e) {
                result.discard();
                throw e;
            }
            result.settings(io.ashlar.backend.session.SessionSettings.EMPTY);
        }
        return result;
    }

    /**
     * The ParameterStatus values the backend reported at login (server_version, server_encoding,
     * DateStyle, TimeZone, ...), once a connection was made (a session's, or the health check's); empty before.
     */
    public Map<String, String> backendParameters() {
        Map<String, String> result = backendParameters;
        return result.isEmpty() ? links.backendParameters() : result;
    }

    /** Whether the data source answers, since when, and why not ({@link io.ashlar.backend.pg.DataSourceHealth}). */
    public io.ashlar.backend.pg.DataSourceHealth health() {
        return links.health();
    }

    /** Runs one of the proxy's own queries (metadata) and returns its rows as text. */
    public List<String[]> query(String sql) throws SQLException {
        BackendConnection connection = borrow();
        try {
            return TextRows.query(connection, sql);
        } finally {
            connection.release();
        }
    }

    @Override
    public void close() {
        links.close();
    }
}
