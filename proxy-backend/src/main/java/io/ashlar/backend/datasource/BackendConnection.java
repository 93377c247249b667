package io.ashlar.backend.datasource;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import io.ashlar.backend.session.SessionSettings;
import org.postgresql.copy.CopyOperation;
import org.postgresql.core.BaseConnection;
import org.postgresql.core.NativeQuery;
import org.postgresql.core.ParameterList;
import org.postgresql.core.Query;
import org.postgresql.core.QueryExecutor;
import org.postgresql.core.ResultHandler;
import org.postgresql.core.SqlCommand;
import org.postgresql.core.SqlCommandType;
import org.postgresql.core.TransactionState;

/**
 * One physical backend connection and the proxy's state for it, kept across pool borrows:
 * the statements prepared on it, and whose session settings it currently carries.
 *
 * <p>Statements run through pgjdbc's protocol-level {@link QueryExecutor}, not the JDBC API: it
 * gives the raw value bytes and the full field descriptions (table OID, column number, type
 * modifier), passes the command tag through, and lets the proxy send the client's SQL with
 * {@code $n} parameters exactly as written. One thread uses a connection at a time (the session
 * that borrowed it), so the fields here need no synchronisation.
 */
public final class BackendConnection {

    /** Flags of every execution: the client's own BEGIN/COMMIT pass through; text results; tags of row results too. */
    private static final int BASE_FLAGS = QueryExecutor.QUERY_SUPPRESS_BEGIN
            | QueryExecutor.QUERY_BOTH_ROWS_AND_STATUS | QueryExecutor.QUERY_NO_BINARY_TRANSFER;
    private static final int MAX_CACHED_STATEMENTS = 256;

    private final BackendDataSource dataSource;
    private final BaseConnection base;
    private final QueryExecutor executor;
    private final Map<StatementKey, Query> statements = new HashMap<>();
    /** reWriteBatchedInserts: each INSERT text's multi-row form, or null where it has none. */
    private final Map<String, InsertRowsRewrite> rewrites = new HashMap<>();
    private Connection lease;
    private SessionSettings settings = SessionSettings.EMPTY;
    private boolean broken;

    BackendConnection(BackendDataSource dataSource, BaseConnection base) {
        this.dataSource = dataSource;
        this.base = base;
        this.executor = base.getQueryExecutor();
    }

    void lease(Connection connection) {
        this.lease = connection;
        this.broken = false;
    }

    public BackendDataSource dataSource() {
        return dataSource;
    }

    /**
     * Runs one statement with the extended protocol (Parse once per connection, then Bind/Execute),
     * parameters as the client bound them.
     */
    public void execute(String sql, ParameterValues parameters, ResultHandler handler) throws SQLException {
        execute(sql, parameters, handler, false);
    }

    /**
     * Like {@link #execute(String, ParameterValues, ResultHandler)}; with {@code begin}, a
     * {@code BEGIN} goes in the same round trip first when no transaction is open.
     */
    public void execute(String sql, ParameterValues parameters, ResultHandler handler, boolean begin) throws SQLException {
        Query query = prepared(sql, parameters.types());
        ParameterList list = query.createParameterList();
        parameters.bindTo(list);
        run(query, list, handler, begin ? BASE_FLAGS & ~QueryExecutor.QUERY_SUPPRESS_BEGIN : BASE_FLAGS);
    }

    /** Flags of a batch: no rows and no row descriptions are asked for (no Describe per row). */
    private static final int BATCH_FLAGS = BASE_FLAGS | QueryExecutor.QUERY_NO_RESULTS | QueryExecutor.QUERY_NO_METADATA;

    /**
     * Runs statements that return no rows as one backend batch: Bind/Execute per row (Parse
     * once per distinct text on this connection), one Sync, the answers read once (pgjdbc syncs
     * and reads midway when the answers could fill the socket's buffer). The backend stops at the
     * first failing row; the caller runs the batch inside a transaction, so that rows before it
     * are undone with it.
     *
     * @param sqls the text each row runs (rows of one sharded table may name different actual tables)
     * @param begin whether a {@code BEGIN} goes first when no transaction is open
     */
    public BatchResults executeBatch(String[] sqls, ParameterValues[] rows, boolean begin) throws SQLException {
        if (rows.length > 1 && executor.isReWriteBatchedInsertsEnabled()) {
            BatchResults rewritten = executeRewritten(sqls, rows, begin);
            if (rewritten != null) {
                return rewritten;
            }
        }
        Query[] queries = new Query[rows.length];
        ParameterList[] lists = new ParameterList[rows.length];
        Query last = null;
        String lastSql = null;
        for (int i = 0; i < rows.length; i++) {
            String sql = sqls[i];
            Query query = sql.equals(lastSql) && last != null ? last : prepared(sql, rows[i].types());
            ParameterList list = query.createParameterList();
            rows[i].bindTo(list);
            queries[i] = query;
            lists[i] = list;
            last = query;
            lastSql = sql;
        }
        org.postgresql.jdbc.AshlarBatchResults results = runBatch(queries, lists, begin, rows.length);
        int failed = results.failedRow();
        return new BatchResults(failed < 0 ? results.tags() : java.util.Arrays.copyOf(results.tags(), failed), failed,
                results.failure());
    }

    /**
     * With {@code reWriteBatchedInserts} in the data source's URL or properties: rows of one
     * single-row INSERT become multi-row INSERTs of up to 128 rows each. A chunk that fails
     * fails as a whole (its first row is reported, as pgjdbc reports a rewritten batch). Null
     * when the batch does not qualify.
     */
    private BatchResults executeRewritten(String[] sqls, ParameterValues[] rows, boolean begin) throws SQLException {
        String sql = sqls[0];
        int[] types = rows[0].types();
        for (int i = 1; i < rows.length; i++) {
            if (!sqls[i].equals(sql) || !java.util.Arrays.equals(rows[i].types(), types)) {
                return null;
            }
        }
        InsertRowsRewrite rewrite = rewrites.get(sql);
        if (rewrite == null) {
            if (rewrites.containsKey(sql)) {
                return null;
            }
            rewrite = InsertRowsRewrite.of(sql, types.length);
            if (rewrites.size() >= MAX_CACHED_STATEMENTS) {
                rewrites.clear();
            }
            rewrites.put(sql, rewrite);
            if (rewrite == null) {
                return null;
            }
        }
        int perChunk = rewrite.chunkRows();
        int chunks = (rows.length + perChunk - 1) / perChunk;
        Query[] queries = new Query[chunks];
        ParameterList[] lists = new ParameterList[chunks];
        int[] firstRow = new int[chunks];
        for (int c = 0; c < chunks; c++) {
            int from = c * perChunk;
            int count = Math.min(perChunk, rows.length - from);
            firstRow[c] = from;
            int n = types.length;
            int[] chunkTypes = new int[count * n];
            short[] formats = new short[count * n];
            byte[][] values = new byte[count * n][];
            for (int k = 0; k < count; k++) {
                ParameterValues row = rows[from + k];
                System.arraycopy(row.types(), 0, chunkTypes, k * n, n);
                System.arraycopy(row.formats(), 0, formats, k * n, n);
                System.arraycopy(row.values(), 0, values, k * n, n);
            }
            ParameterValues merged = new ParameterValues(chunkTypes, formats, values);
            Query query = prepared(rewrite.sql(count), chunkTypes);
            ParameterList list = query.createParameterList();
            merged.bindTo(list);
            queries[c] = query;
            lists[c] = list;
        }
        org.postgresql.jdbc.AshlarBatchResults results = runBatch(queries, lists, begin, rows.length);
        int failedChunk = results.failedRow();
        int done = failedChunk < 0 ? rows.length : firstRow[failedChunk];
        String[] tags = new String[done];
        java.util.Arrays.fill(tags, "INSERT 0 1");
        return new BatchResults(tags, failedChunk < 0 ? -1 : done, results.failure());
    }

    private org.postgresql.jdbc.AshlarBatchResults runBatch(Query[] queries, ParameterList[] lists, boolean begin, int rows)
            throws SQLException {
        org.postgresql.jdbc.AshlarBatchResults results = new org.postgresql.jdbc.AshlarBatchResults(queries, lists);
        dataSource.countBatch(rows);
        try {
            executor.execute(queries, lists, results, 0, 0,
                    begin ? BATCH_FLAGS & ~QueryExecutor.QUERY_SUPPRESS_BEGIN : BATCH_FLAGS);
        } catch (SQLException e) {
            markIfBroken(e);
            throw e;
        }
        if (results.failure() != null) {
            markIfBroken(results.failure());
        }
        return results;
    }

    /**
     * Describes a statement without running it: returns the parameter types the backend
     * resolved, and hands the result columns to the handler (no rows).
     *
     * @param parameterTypes one entry per parameter of the statement (0 = unspecified)
     */
    public int[] describe(String sql, int[] parameterTypes, ResultHandler handler) throws SQLException {
        Query query = prepared(sql, parameterTypes);
        ParameterList list = query.createParameterList();
        for (int i = 0; i < parameterTypes.length; i++) {
            if (parameterTypes[i] != 0) {
                list.setNull(i + 1, parameterTypes[i]);
            }
        }
        run(query, list, handler, BASE_FLAGS | QueryExecutor.QUERY_DESCRIBE_ONLY);
        return list.getTypeOIDs();
    }

    /**
     * Runs a query string with the simple query protocol, exactly as the client sent it: several
     * statements in one string run as PostgreSQL runs them (in one implicit transaction, stopping
     * at the first error).
     */
    public void executeSimple(String sql, ResultHandler handler) throws SQLException {
        executeSimple(sql, handler, false);
    }

    /**
     * Like {@link #executeSimple(String, ResultHandler)}; with {@code begin}, a {@code BEGIN} goes
     * in the same round trip first when no transaction is open. A statement whose text is new
     * each time (literals inlined) costs the backend less this way than as an unnamed prepared
     * statement, and leaves no entry in the statement cache.
     */
    public void executeSimple(String sql, ResultHandler handler, boolean begin) throws SQLException {
        NativeQuery nativeQuery = new NativeQuery(sql, null, true, SqlCommand.createStatementTypeInfo(SqlCommandType.BLANK));
        Query query = executor.wrap(List.of(nativeQuery));
        int flags = BASE_FLAGS | QueryExecutor.QUERY_EXECUTE_AS_SIMPLE | QueryExecutor.QUERY_ONESHOT;
        run(query, null, handler, begin ? flags & ~QueryExecutor.QUERY_SUPPRESS_BEGIN : flags);
    }

    private void run(Query query, ParameterList parameters, ResultHandler handler, int flags) throws SQLException {
        try {
            executor.execute(query, parameters, handler, 0, 0, flags);
        } catch (SQLException e) {
            markIfBroken(e);
            throw e;
        }
        keepUtf8();
    }

    /**
     * Undoes a client's change of client_encoding: pgjdbc writes every statement and parameter
     * in UTF-8 whatever the backend expects, so a connection in another encoding would store
     * garbage. The client is told why instead (the native data path will relay other encodings).
     */
    private void keepUtf8() throws SQLException {
        String encoding = executor.getParameterStatus("client_encoding");
        if (encoding == null || encoding.equals("UTF8")) {
            return;
        }
        NativeQuery reset = new NativeQuery("SET client_encoding TO 'UTF8'", null, true,
                SqlCommand.createStatementTypeInfo(SqlCommandType.BLANK));
        executor.execute(executor.wrap(List.of(reset)), null, new org.postgresql.core.ResultHandlerBase() { },
                0, 0, BASE_FLAGS | QueryExecutor.QUERY_EXECUTE_AS_SIMPLE | QueryExecutor.QUERY_ONESHOT);
        throw new SQLException("client_encoding " + encoding + " is not supported by Ashlar yet: the session stays in UTF8",
                "0A000");
    }

    /** Starts a COPY; the caller drives the returned operation to its end. */
    public CopyOperation startCopy(String sql) throws SQLException {
        try {
            return executor.startCopy(sql, true);
        } catch (SQLException e) {
            markIfBroken(e);
            throw e;
        }
    }

    private Query prepared(String sql, int[] parameterTypes) {
        StatementKey key = new StatementKey(sql, parameterTypes);
        Query query = statements.get(key);
        if (query == null) {
            if (statements.size() >= MAX_CACHED_STATEMENTS) {
                for (Query old : statements.values()) {
                    old.close();
                }
                statements.clear();
            }
            NativeQuery nativeQuery = new NativeQuery(sql, bindPositions(sql, parameterTypes.length), false,
                    SqlCommand.createStatementTypeInfo(SqlCommandType.BLANK));
            query = executor.wrap(List.of(nativeQuery));
            statements.put(key, query);
        }
        return query;
    }

    /**
     * Positions of {@code $1..$n} for pgjdbc's diagnostics (it renders a query with its values
     * from them). Found in order when the text has them so; otherwise any positions that keep
     * the rendering in bounds.
     */
    static int[] bindPositions(String sql, int count) {
        int[] result = new int[count];
        int from = 0;
        for (int i = 0; i < count; i++) {
            String name = NativeQuery.bindName(i + 1);
            int at = sql.indexOf(name, from);
            while (at >= 0 && at + name.length() < sql.length() && Character.isDigit(sql.charAt(at + name.length()))) {
                at = sql.indexOf(name, at + 1);
            }
            if (at < 0) {
                return fallbackPositions(sql, count);
            }
            result[i] = at;
            from = at + name.length();
        }
        return result;
    }

    private static int[] fallbackPositions(String sql, int count) {
        int[] result = new int[count];
        int at = 0;
        for (int i = 0; i < count; i++) {
            result[i] = Math.min(at, sql.length());
            at += NativeQuery.bindName(i + 1).length();
        }
        return at <= sql.length() ? result : new int[0];
    }

    /**
     * Passes on the notifications the backend delivered to this connection (it LISTENs for the
     * session that holds it) while its statements ran.
     */
    public void relayNotifications(io.ashlar.backend.execute.ResultSink sink) {
        org.postgresql.PGNotification[] notifications;
        try {
            notifications = executor.getNotifications();
        } catch (SQLException e) {
            return;
        }
        if (notifications == null) {
            return;
        }
        int own = executor.getBackendPID();
        for (org.postgresql.PGNotification each : notifications) {
            sink.notification(each.getPID(), each.getPID() == own, each.getName(),
                    each.getParameter() == null ? "" : each.getParameter());
        }
    }

    /** The user this connection logged in as (what {@code SET SESSION AUTHORIZATION DEFAULT} returns to). */
    public String loginUser() {
        return executor.getUser();
    }

    public TransactionState transactionState() {
        return executor.getTransactionState();
    }

    /** Cancels whatever runs on this connection now (PostgreSQL's CancelRequest, on a new socket). */
    public void cancel() {
        try {
            executor.sendQueryCancel();
        } catch (SQLException ignored) {
            // The statement finished or the backend is gone: nothing left to cancel.
        }
    }

    /** The session settings this connection carries now (what {@code RESET ALL} would undo). */
    public SessionSettings settings() {
        return settings;
    }

    public void settings(SessionSettings settings) {
        this.settings = settings;
    }

    /** The ParameterStatus values the backend has reported on this connection, latest last. */
    public Map<String, String> parameterStatuses() {
        return executor.getParameterStatuses();
    }

    private void markIfBroken(SQLException e) {
        String state = e.getSQLState();
        if (executor.isClosed() || (state != null && state.startsWith("08"))) {
            broken = true;
        }
    }

    public boolean isBroken() {
        return broken || executor.isClosed();
    }

    /** Returns the connection to its pool (or closes it for good if it broke). */
    public void release() {
        Connection connection = lease;
        lease = null;
        if (connection == null) {
            return;
        }
        try {
            if (isBroken()) {
                dataSource.forget(base);
                dataSource.evict(connection);
                return;
            }
            connection.close();
        } catch (SQLException | RuntimeException ignored) {
            // A connection that cannot be returned is discarded by the pool.
        }
    }

    private record StatementKey(String sql, int[] types, int hash) {
        StatementKey(String sql, int[] types) {
            this(sql, types, sql.hashCode() * 31 + java.util.Arrays.hashCode(types));
        }

        @Override
        public int hashCode() {
            return hash;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof StatementKey k && hash == k.hash && sql.equals(k.sql) && java.util.Arrays.equals(types, k.types);
        }
    }
}
