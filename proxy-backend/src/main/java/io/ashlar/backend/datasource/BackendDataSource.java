package io.ashlar.backend.datasource;

import io.ashlar.backend.config.DataSourceConfig;
import io.ashlar.backend.execute.TextRows;
import io.ashlar.backend.pg.LinkPool;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.nio.NioIoHandler;
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

    /** The loops of work done off any session's loop, for data sources opened without the proxy's (tools, tests). */
    private static final class DefaultLoops {
        static final EventLoopGroup GROUP = new MultiThreadIoEventLoopGroup(1, r -> {
            Thread thread = new Thread(r, "ashlar-backend-io");
            thread.setDaemon(true);
            return thread;
        }, Epoll.isAvailable() ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
    }

    private final String name;
    private final DataSourceConfig config;
    private final LinkPool links;
    private final EventLoopGroup loops;
    private final boolean rewritesBatchedInserts;
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
        return new BackendDataSource(config, DefaultLoops.GROUP);
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

    /** Borrows a connection on one of the proxy's loops (work off any session's loop). */
    public BackendConnection borrow() throws SQLException {
        return borrow(loops.next());
    }

    /**
     * The ParameterStatus values the backend reported at login (server_version, server_encoding,
     * DateStyle, TimeZone, ...), once a connection was made; empty before. {@link #warmUp()} makes one.
     */
    public Map<String, String> backendParameters() {
        return backendParameters;
    }

    /**
     * Makes one connection now, to learn the backend's parameters; empty when it was made, else why
     * it could not be (the backend is down, refuses the login, its certificate is not trusted).
     */
    public java.util.Optional<String> warmUp() {
        try {
            BackendConnection connection = borrow();
            connection.release();
            return java.util.Optional.empty();
        } catch (SQLException e) {
            return java.util.Optional.of(String.valueOf(e.getMessage()));
        }
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
