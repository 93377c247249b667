package io.ashlar.backend.datasource;

import io.ashlar.backend.execute.ArrayRowView;
import io.ashlar.backend.execute.BackendError;
import io.ashlar.backend.execute.BackendReplies;
import io.ashlar.backend.execute.ColumnDescription;
import io.ashlar.backend.execute.CommandTags;
import io.ashlar.backend.execute.CopyStream;
import io.ashlar.backend.execute.ErrorFields;
import io.ashlar.backend.execute.ResultSink;
import io.ashlar.backend.pg.BackendFrames;
import io.ashlar.backend.pg.LinkCall;
import io.ashlar.backend.pg.LinkPool;
import io.ashlar.backend.pg.ServerLink;
import io.ashlar.backend.session.SessionSettings;
import io.ashlar.protocol.Bind;
import io.ashlar.protocol.Close;
import io.ashlar.protocol.CopyData;
import io.ashlar.protocol.CopyDone;
import io.ashlar.protocol.CopyFail;
import io.ashlar.protocol.Describe;
import io.ashlar.protocol.Execute;
import io.ashlar.protocol.FrontendMessage;
import io.ashlar.protocol.Parse;
import io.ashlar.protocol.Query;
import io.ashlar.protocol.Sync;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;

/**
 * A backend connection borrowed by a session that runs its statements as plain method calls (the
 * sharded sessions, and pooled sessions of openGauss clients): each call writes the protocol
 * messages to a native {@link ServerLink} and waits for the answers, which the link's event loop
 * hands over ({@link LinkCall}); the session's thread reads them. Values pass byte for byte, the
 * command tags and row descriptions as the backend sent them. Statements are prepared once per
 * connection under names of the proxy's own; the connection keeps them across borrows.
 *
 * <p>One thread uses a borrowed connection at a time (the session's), except {@link #cancel()}.
 */
public final class BackendConnection {

    /** Result formats unless a statement asks for a client's: all text (the merges read text; the frontend converts). */
    private static final short[] TEXT = new short[0];

    private final BackendDataSource dataSource;
    private final LinkPool.LoopPool pool;
    private final ServerLink link;
    private final LinkCall call;
    /** The view rows are read through on the session's thread; made at its first row (a statement on the loop reads none). */
    private ArrayRowView view;
    /** What the backend delivered while this connection was used, or null (made at the first: most connections see none). */
    private List<Notification> notifications;
    /** reWriteBatchedInserts: each INSERT text's multi-row form, or null where it has none. */
    private final Map<String, InsertRowsRewrite> rewrites;
    private final boolean rewriteBatchedInserts;
    private ByteBuf batch;
    private int position;
    /**
     * What the DataRows after the last RowDescription read need rewritten (the type OIDs inside binary values of
     * types this data source numbers otherwise than clients are told: {@link TypeOidMap#rowPatch}); null for nothing.
     * Cleared when a new exchange is sent; rows fetched from a portal later belong to the last RowDescription read.
     */
    private int[] rowPatch;
    private boolean broken;
    private boolean released;

    /** A NOTIFY the backend delivered while this connection was used. */
    private record Notification(int processId, String channel, String payload) {
    }

    private ArrayRowView view() {
        ArrayRowView result = view;
        if (result == null) {
            result = new ArrayRowView();
            view = result;
        }
        return result;
    }

    private BackendConnection(BackendDataSource dataSource, LinkPool.LoopPool pool, ServerLink link, LinkCall call) {
        this.dataSource = dataSource;
        this.pool = pool;
        this.link = link;
        this.call = call;
        this.rewriteBatchedInserts = dataSource.rewritesBatchedInserts();
        this.rewrites = rewriteBatchedInserts ? new HashMap<>() : Map.of();
    }

    /**
     * Borrows a connection of the data source on the given loop's pool, waiting (this thread)
     * until one is had; throws a {@link BackendError} (08006, 53300) when none can be.
     */
    static BackendConnection borrow(BackendDataSource dataSource, LinkPool.LoopPool pool) throws SQLException {
        LinkCall call = new LinkCall();
        Borrowing borrowing = new Borrowing(call, Thread.currentThread());
        pool.execute(() -> pool.acquire(borrowing));
        while (!borrowing.done) {
            LockSupport.park(borrowing);
        }
        if (borrowing.link == null) {
            throw new BackendError(borrowing.error);
        }
        return new BackendConnection(dataSource, pool, borrowing.link, call);
    }

    /**
     * A connection lent at once on the pool's own loop thread, or null when none is idle there ({@link
     * LinkPool.LoopPool#pollIdle}): for a statement the loop runs itself, which must not wait.
     */
    static BackendConnection lendNow(BackendDataSource dataSource, LinkPool.LoopPool pool) {
        ServerLink link = pool.pollIdle();
        if (link == null) {
            return null;
        }
        LinkCall call = new LinkCall();
        link.receiver(call);
        return new BackendConnection(dataSource, pool, link, call);
    }

    /** A connection a pool lent to {@code call}'s borrower on its loop (the link already answers to {@code call}). */
    static BackendConnection lent(BackendDataSource dataSource, LinkPool.LoopPool pool, ServerLink link, LinkCall call) {
        return new BackendConnection(dataSource, pool, link, call);
    }

    /** Waits for the pool's answer. */
    private static final class Borrowing implements LinkPool.Borrower {
        private final LinkCall call;
        private final Thread waiter;
        volatile ServerLink link;
        volatile ErrorFields error;
        volatile boolean done;

        Borrowing(LinkCall call, Thread waiter) {
            this.call = call;
            this.waiter = waiter;
        }

        @Override
        public void acquired(ServerLink acquired) {
            acquired.receiver(call);
            link = acquired;
            done = true;
            wake();
        }

        @Override
        public void failed(ErrorFields failure) {
            error = failure;
            done = true;
            wake();
        }

        /** Unparks the borrower, unless it is the thread answering (lent at once): no permit left for a later park. */
        private void wake() {
            if (waiter != Thread.currentThread()) {
                LockSupport.unpark(waiter);
            }
        }
    }

    public BackendDataSource dataSource() {
        return dataSource;
    }

    // ------------------------------------------------------------------ statements

    /**
     * Runs one statement with the extended protocol, parameters as the client bound them, results
     * in text; with {@code begin}, a {@code BEGIN} goes first in the same write.
     */
    public void execute(String sql, ParameterValues parameters, BackendReplies replies, boolean begin) throws SQLException {
        execute(sql, parameters, TEXT, replies, begin);
    }

    /**
     * Runs one statement as {@link #execute(String, ParameterValues, BackendReplies, boolean)} does,
     * its results in the given result format codes (a client's Bind's: see {@link Statement}).
     */
    public void execute(String sql, ParameterValues parameters, short[] resultFormats, BackendReplies replies, boolean begin)
            throws SQLException {
        boolean retryable = !begin && link.status() == 'I';
        ServerLink.PreparedKey key = new ServerLink.PreparedKey(sql, parameters.types());
        BackendReplies first = retryable ? new StaleStatementCheck(replies) : replies;
        send(sql, parameters, resultFormats, first, begin, key);
        if (first instanceof StaleStatementCheck check && check.stale) {
            // The statement was prepared before DDL changed its result (PostgreSQL's "cached plan must
            // not change result type"): outside a transaction it is prepared again and runs once more,
            // as pgjdbc does.
            send(sql, parameters, resultFormats, replies, false, key);
        }
        checkEncoding();
    }

    private void send(String sql, ParameterValues parameters, short[] resultFormats, BackendReplies replies, boolean begin,
                      ServerLink.PreparedKey key) throws SQLException {
        ByteBuf out = Unpooled.buffer(128 + sql.length());
        int readies = begin ? beginFirst(out) : 0;
        String name = prepareName(out, key);
        write(out, new Bind("", name, parameters.formats(), parameters.values(), resultFormats));
        write(out, new Describe((byte) 'P', ""));
        write(out, new Execute("", 0));
        write(out, Sync.INSTANCE);
        exchange(out, readies + 1);
        readAnswers(replies, begin, key);
    }

    /** Holds back the one error a statement prepared before a schema change gets, so that it can run again. */
    /**
     * Whether an error is PostgreSQL's "cached plan must not change result type": a statement
     * prepared on a connection before DDL changed its result, which runs again once prepared anew.
     */
    public static boolean isStalePlan(SQLException error) {
        return error instanceof BackendError backend && backend.fields().sqlState().equals("0A000")
                && backend.fields().message().startsWith("cached plan must not change result type");
    }

    private static final class StaleStatementCheck implements BackendReplies {
        private final BackendReplies replies;
        boolean stale;
        private boolean answered;

        StaleStatementCheck(BackendReplies replies) {
            this.replies = replies;
        }

        @Override
        public void columns(ColumnDescription[] columns) {
            answered = true;
            replies.columns(columns);
        }

        @Override
        public void row(io.ashlar.backend.execute.RowValues row) {
            replies.row(row);
        }

        @Override
        public void complete(String tag) {
            answered = true;
            replies.complete(tag);
        }

        @Override
        public void empty() {
            replies.empty();
        }

        @Override
        public void notice(ErrorFields notice) {
            replies.notice(notice);
        }

        @Override
        public void handleError(SQLException error) {
            if (!answered && isStalePlan(error)) {
                stale = true;
                return;
            }
            replies.handleError(error);
        }
    }

    /**
     * Undoes a client's change to a client_encoding no Java charset reads as PostgreSQL does (MULE_INTERNAL, EUC_JP:
     * see {@link io.ashlar.backend.execute.ClientEncoding#exact()}), or of
     * standard_conforming_strings: the proxy reads and writes the backends' text in their client_encoding, and its
     * lexer reads string literals as standard SQL does (a backslash is a plain character), so a connection in
     * another would store garbage or route a statement by a literal the backend reads otherwise. The client is told
     * why instead (a pooled database relays any). DateStyle and any other client_encoding are the client's to choose.
     */
    private void checkEncoding() throws SQLException {
        if (link.plainText()) {
            return;
        }
        String encoding = link.parameters().getOrDefault("client_encoding", "UTF8");
        String standardStrings = link.parameters().getOrDefault("standard_conforming_strings", "on");
        io.ashlar.backend.execute.ClientEncoding known = io.ashlar.backend.execute.ClientEncoding.find(encoding);
        boolean unreadable = known == null || !known.exact();
        StringBuilder undo = new StringBuilder();
        String message;
        String hint = null;
        if (unreadable) {
            message = "client_encoding " + encoding + " is not supported by Ashlar on a sharded database: the session stays in "
                    + link.readableEncoding();
        } else {
            message = "standard_conforming_strings off is not supported by Ashlar on a sharded database: the session's"
                    + " string literals stay standard (a backslash is a plain character)";
            hint = "Write escapes in escape strings: E'a\\tb'.";
        }
        if (unreadable) {
            undo.append("SET client_encoding TO '").append(link.readableEncoding()).append("';");
        }
        if (!standardStrings.equals("on")) {
            undo.append("SET standard_conforming_strings TO on;");
        }
        ByteBuf out = Unpooled.buffer(128);
        write(out, new Query(undo.toString()));
        exchange(out, 1);
        readAnswers(new io.ashlar.backend.execute.StreamingHandler(ResultSink.DISCARD), false, null);
        throw new BackendError(hint == null ? ErrorFields.error("0A000", message) : ErrorFields.error("0A000", message, hint));
    }

    /** Like {@link #execute(String, ParameterValues, BackendReplies, boolean)}, without a BEGIN. */
    public void execute(String sql, ParameterValues parameters, BackendReplies replies) throws SQLException {
        execute(sql, parameters, replies, false);
    }

    /**
     * One statement of a round trip to this connection.
     *
     * @param sql its text
     * @param parameters its parameters, as the client bound them
     * @param simple whether it goes as a simple query (it then takes no parameters)
     * @param resultFormats the result format codes its Bind asks for, as a client's Bind gives them
     *        (none, one for all columns, or one per column); null for text, which the proxy reads
     */
    public record Statement(String sql, ParameterValues parameters, boolean simple, short[] resultFormats) {

        /** A statement whose results come back in text. */
        public Statement(String sql, ParameterValues parameters, boolean simple) {
            this(sql, parameters, simple, null);
        }

        /** The result format codes for its Bind: text unless asked otherwise. */
        public short[] bindFormats() {
            return resultFormats == null ? TEXT : resultFormats;
        }
    }

    /** What {@link #send} wrote, for {@link #receive} to read back. */
    public record Sent(ServerLink.PreparedKey[] keys, boolean begin) {
    }

    /**
     * Sends several statements in one write (each with its own Sync, or as its own simple query),
     * a BEGIN first when asked, without waiting: the data sources of one statement work at the
     * same time, and the session reads each one's answers with {@link #receive} afterwards.
     */
    public Sent send(Statement[] statements, boolean begin) throws SQLException {
        ByteBuf out = Unpooled.buffer(256);
        int readies = begin ? beginFirst(out) : 0;
        ServerLink.PreparedKey[] keys = new ServerLink.PreparedKey[statements.length];
        for (int i = 0; i < statements.length; i++) {
            Statement each = statements[i];
            if (each.simple()) {
                write(out, new Query(each.sql()));
            } else {
                ServerLink.PreparedKey key = new ServerLink.PreparedKey(each.sql(), each.parameters().types());
                keys[i] = key;
                String name = prepareName(out, key);
                write(out, new Bind("", name, each.parameters().formats(), each.parameters().values(), each.bindFormats()));
                write(out, new Describe((byte) 'P', ""));
                write(out, new Execute("", 0));
                write(out, Sync.INSTANCE);
            }
            readies++;
        }
        exchange(out, readies);
        return new Sent(keys, begin);
    }

    /** Reads the answers of what {@link #send} sent, statement by statement, into their replies. */
    public void receive(Sent sent, BackendReplies[] replies) throws SQLException {
        boolean skipping = sent.begin();
        int statement = 0;
        boolean failed = false;
        for (byte type = nextFrame(); type != 0; type = nextFrame()) {
            if (type == 'E') {
                failed = true;
            } else if (type == 'Z') {
                failed = false;
            }
            if (skipping) {
                if (type == 'Z') {
                    skipping = false;
                } else if (type == 'E') {
                    replies[0].handleError(error());
                }
                skipFrame();
                continue;
            }
            BackendReplies current = replies[Math.min(statement, replies.length - 1)];
            switch (type) {
                case 'T' -> current.columns(frameColumns());
                case 'D' -> current.row(view().of(frameRow()));
                case 'C' -> {
                    String tag = BackendFrames.tag(batch, position, frameLength());
                    if (tag.equals("DISCARD ALL") || tag.equals("DEALLOCATE ALL")) {
                        link.forgetAllPrepared();
                    }
                    current.complete(tag);
                }
                case 'I' -> current.empty();
                case 'N' -> current.notice(notice());
                case 'E' -> {
                    if (statement < sent.keys().length && sent.keys()[statement] != null) {
                        link.retire(sent.keys()[statement]); // parsed again next time; closed first if it existed
                    }
                    BackendError error = error();
                    if (statement + 1 < sent.keys().length && error.fields().sqlState().equals("57014")) {
                        // Cancelled (or timed out): the statement's units after this one on the same
                        // connection are already sent and would run on; the cancel goes to them too.
                        link.cancel();
                    }
                    current.handleError(error);
                }
                case 'A' -> notification();
                case 'Z' -> statement++;
                default -> { }
            }
            skipFrame();
        }
        if (broken && !failed) {
            // The connection ended before this statement's answers did: never a result cut short as if whole.
            replies[Math.min(statement, replies.length - 1)].handleError(broken("the backend connection ended during the statement"));
        }
        checkEncoding();
    }

    /**
     * Runs a query string with the simple query protocol, exactly as the client sent it (several
     * statements run as PostgreSQL runs them); with {@code begin}, a {@code BEGIN} goes first.
     */
    public void executeSimple(String sql, BackendReplies replies, boolean begin) throws SQLException {
        ByteBuf out = Unpooled.buffer(64 + sql.length());
        int readies = begin ? beginFirst(out) : 0;
        write(out, new Query(sql));
        exchange(out, readies + 1);
        readAnswers(replies, begin, null);
        checkEncoding();
    }

    public void executeSimple(String sql, BackendReplies replies) throws SQLException {
        executeSimple(sql, replies, false);
    }

    /**
     * Describes a statement without running it: returns the parameter types the backend resolved
     * and hands the result columns to the replies (none when it returns no rows).
     */
    public int[] describe(String sql, int[] parameterTypes, BackendReplies replies) throws SQLException {
        ByteBuf out = Unpooled.buffer(64 + sql.length());
        ServerLink.PreparedKey key = new ServerLink.PreparedKey(sql, parameterTypes);
        String name = prepareName(out, key);
        write(out, new Describe((byte) 'S', name));
        write(out, Sync.INSTANCE);
        exchange(out, 1);
        int[] result = parameterTypes;
        for (byte type = nextFrame(); type != 0; type = nextFrame()) {
            switch (type) {
                case 't' -> result = dataSource.types().toCanonical(BackendFrames.parameterTypes(batch, position));
                case 'T' -> replies.columns(frameColumns());
                case 'E' -> {
                    link.forget(key);
                    replies.handleError(error());
                }
                case 'N' -> replies.notice(notice());
                case 'A' -> notification();
                default -> { }
            }
            skipFrame();
        }
        return result;
    }

    /**
     * Runs statements that return no rows as one backend batch: Bind/Execute per row (Parse once
     * per text on this connection), one Sync. The backend stops at the first failing row; the
     * caller runs the batch inside a transaction, so that rows before it are undone with it.
     *
     * @param sqls the text each row runs (rows of one sharded table may name different actual tables)
     * @param begin whether a {@code BEGIN} goes first
     */
    public BatchResults executeBatch(String[] sqls, ParameterValues[] rows, boolean begin) throws SQLException {
        return receiveBatch(sendBatch(sqls, rows, begin));
    }

    /** What {@link #sendBatch} wrote, for {@link #receiveBatch} to read back. */
    public static final class SentBatch {
        private final int rows;
        private final int executes;
        private final boolean begin;
        private final List<ServerLink.PreparedKey> parsed;
        /** With reWriteBatchedInserts: the first row of each multi-row INSERT; else null (an Execute per row). */
        private final int[] chunkFirstRow;

        private SentBatch(int rows, int executes, boolean begin, List<ServerLink.PreparedKey> parsed, int[] chunkFirstRow) {
            this.rows = rows;
            this.executes = executes;
            this.begin = begin;
            this.parsed = parsed;
            this.chunkFirstRow = chunkFirstRow;
        }
    }

    /**
     * Sends a batch as {@link #executeBatch} runs it, without waiting for its answers: a client's
     * batch over several data sources sends each its rows first, so that they work at the same
     * time, and reads their answers with {@link #receiveBatch} afterwards, all on the session's thread.
     */
    public SentBatch sendBatch(String[] sqls, ParameterValues[] rows, boolean begin) throws SQLException {
        if (rows.length > 1 && rewriteBatchedInserts) {
            SentBatch rewritten = sendRewritten(sqls, rows, begin);
            if (rewritten != null) {
                return rewritten;
            }
        }
        ByteBuf out = batchBuffer(sqls, rows);
        int readies = begin ? beginFirst(out) : 0;
        List<ServerLink.PreparedKey> parsed = new ArrayList<>(1);
        String lastSql = null;
        String name = null;
        for (int i = 0; i < rows.length; i++) {
            if (!sqls[i].equals(lastSql)) {
                ServerLink.PreparedKey key = new ServerLink.PreparedKey(sqls[i], rows[i].types());
                boolean known = link.prepared(key) != null;
                name = prepareName(out, key);
                if (!known) {
                    parsed.add(key);
                }
                lastSql = sqls[i];
            }
            write(out, new Bind("", name, rows[i].formats(), rows[i].values(), TEXT));
            write(out, new Execute("", 0));
        }
        write(out, Sync.INSTANCE);
        dataSource.countBatch(rows.length);
        exchange(out, readies + 1);
        return new SentBatch(rows.length, rows.length, begin, parsed, null);
    }

    /** Reads the answers of a batch {@link #sendBatch} sent: what each row did, up to the first that failed. */
    public BatchResults receiveBatch(SentBatch sent) {
        BatchResults results = readBatch(sent.executes, sent.begin, sent.parsed);
        if (sent.chunkFirstRow == null) {
            return results;
        }
        int failedChunk = results.failedRow();
        // A failure past the last chunk is the commit at Sync's: every row ran.
        int done = failedChunk < 0 || failedChunk >= sent.chunkFirstRow.length ? sent.rows : sent.chunkFirstRow[failedChunk];
        String[] tags = new String[done];
        java.util.Arrays.fill(tags, "INSERT 0 1");
        return new BatchResults(tags, failedChunk < 0 ? -1 : done, results.failure());
    }

    /**
     * With {@code reWriteBatchedInserts} in the data source's URL or properties: rows of one
     * single-row INSERT become multi-row INSERTs of up to 128 rows each, as pgjdbc rewrites them. A
     * chunk that fails fails as a whole (its first row is reported). Null when the batch does not
     * qualify.
     */
    private SentBatch sendRewritten(String[] sqls, ParameterValues[] rows, boolean begin) throws SQLException {
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
            if (rewrites.size() >= ServerLink.MAX_PREPARED) {
                rewrites.clear();
            }
            rewrites.put(sql, rewrite);
            if (rewrite == null) {
                return null;
            }
        }
        int perChunk = rewrite.chunkRows();
        int chunks = (rows.length + perChunk - 1) / perChunk;
        ByteBuf out = batchBuffer(sqls, rows);
        int readies = begin ? beginFirst(out) : 0;
        int[] firstRow = new int[chunks];
        List<ServerLink.PreparedKey> parsed = new ArrayList<>(2);
        int n = types.length;
        for (int c = 0; c < chunks; c++) {
            int from = c * perChunk;
            int count = Math.min(perChunk, rows.length - from);
            firstRow[c] = from;
            int[] chunkTypes = new int[count * n];
            short[] formats = new short[count * n];
            byte[][] values = new byte[count * n][];
            for (int k = 0; k < count; k++) {
                ParameterValues row = rows[from + k];
                System.arraycopy(row.types(), 0, chunkTypes, k * n, n);
                System.arraycopy(row.formats(), 0, formats, k * n, n);
                System.arraycopy(row.values(), 0, values, k * n, n);
            }
            ServerLink.PreparedKey key = new ServerLink.PreparedKey(rewrite.sql(count), chunkTypes);
            boolean known = link.prepared(key) != null;
            String name = prepareName(out, key);
            if (!known) {
                parsed.add(key);
            }
            write(out, new Bind("", name, formats, values, TEXT));
            write(out, new Execute("", 0));
        }
        write(out, Sync.INSTANCE);
        dataSource.countBatch(rows.length);
        exchange(out, readies + 1);
        return new SentBatch(rows.length, chunks, begin, parsed, firstRow);
    }

    /**
     * A buffer for a batch's messages, of the size they take (a BEGIN, a Parse, Close and Sync
     * aside): growing it by doubling copied it several times per batch. Direct, as the socket
     * wants it: a heap buffer was copied once more on its way out.
     */
    private static ByteBuf batchBuffer(String[] sqls, ParameterValues[] rows) {
        long size = 256 + 3L * sqls[0].length();
        for (ParameterValues row : rows) {
            // Bind: type, length, portal, name (up to 24 bytes), format count and codes, value
            // count, values with their lengths, result format count; then an Execute of 10 bytes.
            size += 5 + 1 + 25 + 2 + 2L * row.formats().length + 2 + 2 + 10;
            for (byte[] value : row.values()) {
                size += value == null ? 4 : 4 + value.length;
            }
        }
        return io.netty.buffer.ByteBufAllocator.DEFAULT.directBuffer((int) Math.min(size, 1 << 30));
    }

    /**
     * The tag of the CommandComplete at {@link #position}: {@code previous} when it says the same
     * (a batch's rows mostly do: one String for all, and the client's answers encode it once).
     */
    private String sameTag(String previous) {
        int length = frameLength() - 6;
        if (length == previous.length()) {
            int at = position + 5;
            int i = 0;
            while (i < length && batch.getByte(at + i) == previous.charAt(i)) {
                i++;
            }
            if (i == length) {
                return previous;
            }
        }
        return BackendFrames.tag(batch, position, frameLength());
    }

    /** Reads a batch's answers: a tag per Execute until the first error. */
    private BatchResults readBatch(int executes, boolean begin, List<ServerLink.PreparedKey> parsed) {
        String[] tags = new String[executes];
        int done = 0;
        int failed = -1;
        SQLException failure = null;
        boolean beginPending = begin;
        String previous = "";
        for (byte type = nextFrame(); type != 0; type = nextFrame()) {
            switch (type) {
                case 'C' -> {
                    if (beginPending) {
                        beginPending = false;
                    } else if (done < executes) {
                        previous = sameTag(previous);
                        tags[done++] = previous;
                    }
                }
                case 'Z' -> beginPending = false;
                case 'E' -> {
                    if (failure == null) {
                        failure = error();
                        failed = done;
                    }
                    for (ServerLink.PreparedKey key : parsed) {
                        link.forget(key); // a Parse after the error never ran
                    }
                }
                case 'N', 'A' -> {
                    if (type == 'A') {
                        notification();
                    }
                }
                default -> { }
            }
            skipFrame();
        }
        if (failure != null && failed < 0) {
            failed = 0;
        }
        return new BatchResults(failed < 0 ? tags : java.util.Arrays.copyOf(tags, failed), failed, failure);
    }

    // ------------------------------------------------------------------ COPY

    /**
     * Starts a COPY FROM STDIN or TO STDOUT (simple query); the caller drives the returned stream
     * to its end. Throws the backend's error when the COPY does not start.
     */
    public CopyStream startCopy(String sql) throws SQLException {
        ByteBuf out = Unpooled.buffer(32 + sql.length());
        write(out, new Query(sql));
        exchange(out, 1);
        SQLException failure = null;
        for (byte type = nextFrame(); type != 0; type = nextFrame()) {
            switch (type) {
                case 'G', 'H' -> {
                    int format = batch.getByte(position + 5);
                    int count = batch.getUnsignedShort(position + 6);
                    short[] formats = new short[count];
                    for (int i = 0; i < count; i++) {
                        formats[i] = batch.getShort(position + 8 + 2 * i);
                    }
                    skipFrame();
                    return type == 'G' ? new NativeCopyIn(format, formats) : new NativeCopyOut(format, formats);
                }
                case 'E' -> failure = error();
                case 'A' -> notification();
                default -> { }
            }
            skipFrame();
        }
        throw failure != null ? failure : broken("the COPY did not start");
    }

    /** What COPY in either direction tells of itself: the formats its CopyInResponse/CopyOutResponse gave, its row count. */
    private abstract static class NativeCopy implements CopyStream {
        private final int format;
        private final short[] formats;
        long rows;

        NativeCopy(int format, short[] formats) {
            this.format = format;
            this.formats = formats;
        }

        @Override
        public int getFormat() {
            return format;
        }

        @Override
        public int getFieldCount() {
            return formats.length;
        }

        @Override
        public int getFieldFormat(int field) {
            return formats[field];
        }

        @Override
        public long getHandledRowCount() {
            return rows;
        }
    }

    /** COPY FROM STDIN on this connection: the client's data goes on in writes of up to 64 kB. */
    private final class NativeCopyIn extends NativeCopy implements CopyStream.In {
        private ByteBuf pending;

        NativeCopyIn(int format, short[] formats) {
            super(format, formats);
        }

        @Override
        public void writeToCopy(byte[] buf, int off, int len) throws SQLException {
            if (!link.isOpen()) {
                throw broken("the backend connection ended during COPY");
            }
            if (pending == null) {
                pending = Unpooled.buffer(Math.max(8192, len + 5));
            }
            CopyData.encode(pending, buf, off, len);
            if (pending.readableBytes() >= 64 * 1024) {
                ByteBuf out = pending;
                pending = null;
                link.send(out);
            }
        }

        @Override
        public long endCopy() throws SQLException {
            ByteBuf out = pending != null ? pending : Unpooled.buffer(16);
            pending = null;
            write(out, CopyDone.INSTANCE);
            link.send(out);
            SQLException failure = null;
            for (byte type = nextFrame(); type != 0; type = nextFrame()) {
                if (type == 'C') {
                    String tag = BackendFrames.tag(batch, position, frameLength());
                    rows = CommandTags.rowCount(tag);
                } else if (type == 'E' && failure == null) {
                    failure = error();
                }
                skipFrame();
            }
            if (failure != null) {
                throw failure;
            }
            return rows;
        }

        @Override
        public void cancelCopy() throws SQLException {
            ByteBuf out = pending != null ? pending : Unpooled.buffer(64);
            pending = null;
            write(out, new CopyFail("COPY cancelled by the client"));
            link.send(out);
            for (byte type = nextFrame(); type != 0; type = nextFrame()) {
                skipFrame();
            }
        }

    }

    /** COPY TO STDOUT on this connection: its data, one CopyData at a time. */
    private final class NativeCopyOut extends NativeCopy implements CopyStream.Out {
        private SQLException failure;

        NativeCopyOut(int format, short[] formats) {
            super(format, formats);
        }

        @Override
        public byte[] readFromCopy() throws SQLException {
            for (byte type = nextFrame(); type != 0; type = nextFrame()) {
                switch (type) {
                    case 'd' -> {
                        byte[] result = new byte[frameLength() - 5];
                        batch.getBytes(position + 5, result);
                        skipFrame();
                        return result;
                    }
                    case 'C' -> {
                        String tag = BackendFrames.tag(batch, position, frameLength());
                        rows = CommandTags.rowCount(tag);
                    }
                    case 'E' -> failure = failure == null ? error() : failure;
                    default -> { }
                }
                skipFrame();
            }
            if (failure != null) {
                throw failure;
            }
            return null;
        }

        @Override
        public void cancelCopy() throws SQLException {
            cancel();
            while (readFromCopy() != null) {
                // drained: the backend answers the cancel with an error, which ends it
            }
        }

    }

    // ------------------------------------------------------------------ the exchange

    /** Writes a message, its strings (SQL text, names) in the connection's client_encoding. */
    private void write(ByteBuf out, FrontendMessage message) {
        message.encode(out, link.textCharset());
    }

    /** The charset of the connection's client_encoding: what its text (rows, names, messages) is read in. */
    public java.nio.charset.Charset textCharset() {
        return link.textCharset();
    }

    /** The connection's client_encoding, PostgreSQL's canonical name (one a Java charset reads). */
    public String readableEncoding() {
        return link.readableEncoding();
    }

    /** A BEGIN of its own ahead of the statement (its answers are skipped); one more ReadyForQuery. */
    private int beginFirst(ByteBuf out) {
        write(out, new Query("BEGIN"));
        return 1;
    }

    /**
     * The name under which a statement is prepared on this connection, writing its Parse (and the
     * Close of the connection's least recently used statement, when it keeps as many as it may).
     */
    private String prepareName(ByteBuf out, ServerLink.PreparedKey key) {
        String result = link.prepared(key);
        if (result != null) {
            return result;
        }
        java.util.Map.Entry<ServerLink.PreparedKey, String> eldest = link.eldestPrepared();
        if (eldest != null) {
            link.forget(eldest.getKey());
            write(out, new Close((byte) 'S', eldest.getValue()));
        }
        for (String retired = link.pollRetired(); retired != null; retired = link.pollRetired()) {
            write(out, new Close((byte) 'S', retired));
        }
        result = link.remember(key);
        // Parameters declared with a user-defined type name it as this data source numbers it.
        write(out, new Parse(result, key.sql(), dataSource.types().toLocal(key.types())));
        return result;
    }

    private void exchange(ByteBuf out, int readies) throws SQLException {
        detachStream();
        rowPatch = null;
        if (broken || !link.isOpen()) {
            out.release();
            broken = true;
            throw broken("the backend connection is closed");
        }
        call.expect(link, readies);
        link.send(out);
    }

    // ------------------------------------------------------------------ streamed results (UnitStreams)

    /**
     * A result that reads this connection's answers as its reader asks for rows. The connection
     * serves one exchange at a time: before another starts, the stream keeps the rest of its answers
     * in memory ({@link #detach}), within its statement's budget.
     */
    interface Stream {
        /** Reads the rest of the answers off the connection; the connection is free afterwards. */
        void detach();

        /** Gives up the answers not read yet and leaves the connection clean (cancelled or read to the end). */
        void abandon();
    }

    /** Whether the session keeps this connection for state only it has (a cancel sent late would hit its next statement). */
    private boolean sessionState;

    /** The session holds state on this connection (temporary tables, LISTEN, PREPARE, locks) and keeps it. */
    public void keepsSessionState() {
        sessionState = true;
    }

    boolean hasSessionState() {
        return sessionState;
    }

    /** The stream reading this connection now, if any. */
    private Stream stream;

    void stream(Stream reader) {
        this.stream = reader;
    }

    /** Whether a streamed result still reads this connection's answers. */
    public boolean isStreaming() {
        return stream != null;
    }

    Stream streamNow() {
        return stream;
    }

    private void detachStream() {
        Stream current = stream;
        if (current != null) {
            stream = null;
            current.detach();
        }
    }

    /** A request whose answers streams read: ends at ReadyForQuery number {@code readies}. */
    void sendForStream(ByteBuf out, int readies) throws SQLException {
        exchange(out, readies);
    }

    /**
     * Sends one statement in the extended protocol (its Parse where this connection has not prepared it, Bind, Describe,
     * Execute, Sync), or as a simple query, whose answers go to {@code receiver} on the loop as they arrive, not to a waiting thread: a
     * statement the client's event loop runs itself ({@code LoopStatement}). Called on the loop. The answers come
     * back to the connection's own reader at {@link #endLoopExchange}. With {@code begin}, a {@code BEGIN} goes first
     * in the same write, as a query of its own (one more ReadyForQuery ahead of the statement's answers).
     *
     * @return the statement's key on this connection (retired when the backend refuses it); null for a simple query
     */
    public ServerLink.PreparedKey sendOnLoop(Statement statement, ServerLink.Receiver receiver, boolean begin) throws SQLException {
        detachStream();
        rowPatch = null;
        if (broken || !link.isOpen()) {
            broken = true;
            throw broken("the backend connection is closed");
        }
        ByteBuf out = link.out();
        ServerLink.PreparedKey key = null;
        if (begin) {
            beginFirst(out);
        }
        if (statement.simple()) {
            write(out, new Query(statement.sql()));
        } else {
            key = new ServerLink.PreparedKey(statement.sql(), statement.parameters().types());
            String name = prepareName(out, key);
            write(out, new Bind("", name, statement.parameters().formats(), statement.parameters().values(), statement.bindFormats()));
            write(out, new Describe((byte) 'P', ""));
            write(out, new Execute("", 0));
            write(out, Sync.INSTANCE);
        }
        link.receiver(receiver);
        link.flush();
        return key;
    }

    /** A statement sent by {@link #sendOnLoop} was answered to the end: the connection's answers go to its own reader again. */
    public void endLoopExchange() {
        link.receiver(call);
    }

    /** Whether the backend writes text as the proxy reads it (its client_encoding, standard_conforming_strings on). */
    public boolean readsText() {
        return link.plainText();
    }

    /** Closes the connection (it cannot serve another statement); it is discarded when it goes back. */
    public void close(String reason) {
        broken = true;
        link.close(reason);
    }

    /** Stops reading the backend's answers (true) while their reader cannot take more, or reads on (false). */
    public void pauseReading(boolean paused) {
        link.autoRead(!paused);
    }

    /** The rows of the RowDescription at {@code [start, start + length)} of {@code in}, as {@link #frameColumns} reads one. */
    public ColumnDescription[] columnsOf(ByteBuf in, int start, int length) {
        io.ashlar.backend.pg.RowDescriptionCache.Described described = dataSource.columns(in, start, length, link.textCharset());
        rowPatch = described.rowPatch();
        return described.columns();
    }

    /** Whether the DataRows after the last RowDescription read need type OIDs rewritten ({@link #patchedBody}). */
    public boolean patchesRows() {
        return rowPatch != null;
    }

    /** The body of the DataRow at {@code [start, start + length)} of {@code in}, type OIDs rewritten for the client. */
    public byte[] patchedBody(ByteBuf in, int start, int length) {
        byte[] result = new byte[length - 5];
        in.getBytes(start + 5, result);
        dataSource.types().patchBody(rowPatch, result);
        return result;
    }

    /** A request of portal Executes ended by a Flush: ends at {@code terminals} Execute ends, or an error. */
    void sendPortals(ByteBuf out, int terminals) throws SQLException {
        detachStream();
        if (broken || !link.isOpen()) {
            out.release();
            broken = true;
            throw broken("the backend connection is closed");
        }
        call.expectPortals(link, terminals);
        link.send(out);
    }

    /** Writes a message into a request being built for this connection. */
    void writeTo(ByteBuf out, FrontendMessage message) {
        write(out, message);
    }

    /** The prepared statement's name on this connection, its Parse written first when it has none. */
    String prepared(ByteBuf out, ServerLink.PreparedKey key) {
        return prepareName(out, key);
    }

    public void retire(ServerLink.PreparedKey key) {
        link.retire(key);
    }

    /** The next frame's type, waiting for it; 0 at the end of the exchange. */
    byte frame() {
        return nextFrame();
    }

    void skip() {
        skipFrame();
    }

    int frameBytes() {
        return frameLength();
    }

    byte[][] frameRow() {
        byte[][] result = BackendFrames.row(batch, position);
        if (rowPatch != null) {
            dataSource.types().patchRow(rowPatch, result);
        }
        return result;
    }

    /** The current DataRow's body as the backend sent it (its values undecoded, but {@link #rowPatch}), in one copy. */
    byte[] frameBody() {
        byte[] result = new byte[frameLength() - 5];
        batch.getBytes(position + 5, result);
        if (rowPatch != null) {
            dataSource.types().patchBody(rowPatch, result);
        }
        return result;
    }

    /** The RowDescription at the position: decoded once per data source, the same array when it comes again. */
    ColumnDescription[] frameColumns() {
        io.ashlar.backend.pg.RowDescriptionCache.Described described = dataSource.columns(batch, position, frameLength(),
                link.textCharset());
        rowPatch = described.rowPatch();
        return described.columns();
    }

    String frameTag() {
        String tag = BackendFrames.tag(batch, position, frameLength());
        if (tag.equals("DISCARD ALL") || tag.equals("DEALLOCATE ALL")) {
            link.forgetAllPrepared();
        }
        return tag;
    }

    BackendError frameError() {
        return error();
    }

    ErrorFields frameNotice() {
        return notice();
    }

    void frameNotification() {
        notification();
    }

    /** Whether the connection ended before the exchange did (its answers are cut short). */
    boolean endedEarly() {
        return broken;
    }

    BackendError brokenError(String reason) {
        return broken(reason);
    }

    /** ReadyForQuery's status outside a transaction, for streams that decide whether a cancel is harmless. */
    ServerLink link() {
        return link;
    }

    /** Reads a statement's answers into the replies; a BEGIN's own answers ahead of them are skipped. */
    private void readAnswers(BackendReplies replies, boolean begin, ServerLink.PreparedKey key) {
        boolean skipping = begin;
        boolean failed = false;
        for (byte type = nextFrame(); type != 0; type = nextFrame()) {
            if (type == 'E') {
                failed = true;
            }
            if (skipping) {
                if (type == 'Z') {
                    skipping = false;
                } else if (type == 'E') {
                    replies.handleError(error());
                }
                skipFrame();
                continue;
            }
            switch (type) {
                case 'T' -> replies.columns(frameColumns());
                case 'D' -> replies.row(view().of(frameRow()));
                case 'C' -> {
                    String tag = BackendFrames.tag(batch, position, frameLength());
                    if (tag.equals("DISCARD ALL") || tag.equals("DEALLOCATE ALL")) {
                        link.forgetAllPrepared(); // the backend dropped every prepared statement
                    }
                    replies.complete(tag);
                }
                case 'I' -> replies.empty();
                case 'N' -> replies.notice(notice());
                case 'E' -> {
                    if (key != null) {
                        // The Parse may be what failed, or the plan went stale (DDL): the next use parses
                        // again, after closing the old statement (closing a name that never existed is no error).
                        link.retire(key);
                    }
                    replies.handleError(error());
                }
                case 'A' -> notification();
                default -> { }
            }
            skipFrame();
        }
        if (broken && !failed) {
            // The connection ended before the statement's answer did: never a result cut short as if whole.
            replies.handleError(broken("the backend connection ended during the statement"));
        }
    }

    /**
     * The type of the next frame of the exchange, waiting for it; 0 when the exchange is over.
     * {@link #position} is the frame's start in {@link #batch}; {@link #skipFrame()} moves past it.
     * A connection that ended mid-exchange is marked broken and its reason reported as 08006.
     */
    private byte nextFrame() {
        while (batch == null || position >= batch.writerIndex()) {
            if (batch != null) {
                batch.release();
                batch = null;
            }
            ByteBuf next = call.take();
            if (next == null) {
                if (call.closedReason() != null) {
                    broken = true;
                }
                return 0;
            }
            batch = next;
            position = next.readerIndex();
        }
        return batch.getByte(position);
    }

    private int frameLength() {
        return 1 + batch.getInt(position + 1);
    }

    private void skipFrame() {
        position += frameLength();
    }

    private BackendError error() {
        return new BackendError(BackendFrames.errorFields(batch, position, frameLength(), link.textCharset()));
    }

    private ErrorFields notice() {
        return BackendFrames.errorFields(batch, position, frameLength(), link.textCharset());
    }

    private BackendError broken(String reason) {
        broken = true;
        String cause = call.closedReason();
        if (cause == null && !link.closeReason().isEmpty()) {
            cause = link.closeReason(); // it ended between statements, when no exchange listened
        }
        return new BackendError(ErrorFields.error("08006", reason + (cause == null ? "" : ": " + cause)
                + " (data source " + dataSource.name() + ")"));
    }

    private void notification() {
        notification(batch, position, frameLength());
    }

    /**
     * Keeps the NotificationResponse at {@code [start, start + length)} of {@code in} for {@link #relayNotifications}: one
     * that came during a statement the event loop ran ({@link #sendOnLoop}) on a connection that LISTENs for its session.
     */
    public void notification(ByteBuf in, int start, int length) {
        int end = start + length;
        int pid = in.getInt(start + 5);
        int nameStart = start + 9;
        int nameEnd = in.indexOf(nameStart, end, (byte) 0);
        int payloadEnd = in.indexOf(nameEnd + 1, end, (byte) 0);
        java.nio.charset.Charset text = link.textCharset();
        if (notifications == null) {
            notifications = new ArrayList<>(1);
        }
        notifications.add(new Notification(pid, in.toString(nameStart, nameEnd - nameStart, text),
                in.toString(nameEnd + 1, payloadEnd - nameEnd - 1, text)));
    }

    // ------------------------------------------------------------------ state

    /**
     * Passes on the notifications the backend delivered to this connection (it LISTENs for the
     * session that holds it) while its statements ran.
     */
    public void relayNotifications(ResultSink sink) {
        if (notifications == null || notifications.isEmpty()) {
            return;
        }
        int own = link.backendProcessId();
        for (Notification each : notifications) {
            sink.notification(each.processId(), each.processId() == own, each.channel(), each.payload());
        }
        notifications.clear();
    }

    /**
     * Whom to tell (on the event loop) when the backend sends a notification between this connection's exchanges:
     * the session that holds it for a LISTEN, so that it reads it while idle ({@link #relayAsync}). Null to stop.
     */
    public void onAsync(Runnable signal) {
        call.onAsync(signal);
    }

    /**
     * Reads what the backend sent of itself since the last exchange (NotificationResponse, NoticeResponse) and passes
     * it on, without waiting: nothing when an exchange or a result still reads the connection (they read it then).
     */
    public void relayAsync(ResultSink sink) {
        if (stream != null || !call.idle()) {
            return;
        }
        // An ERROR (a FATAL: the backend ends the connection) stays for the next statement, which reports it.
        for (byte type = nextFrame(); type != 0 && type != 'E'; type = nextFrame()) {
            switch (type) {
                case 'A' -> notification();
                case 'N' -> sink.notice(notice());
                default -> { } // ParameterStatus: the link keeps it
            }
            skipFrame();
        }
        relayNotifications(sink);
    }

    /** The user this connection logged in as (what {@code SET SESSION AUTHORIZATION DEFAULT} returns to). */
    public String loginUser() {
        return link.loginUser();
    }

    /** ReadyForQuery's transaction status at the last answer: 'I' idle, 'T' in a transaction, 'E' failed. */
    public char status() {
        return link.status();
    }

    /** Cancels whatever runs on this connection now (PostgreSQL's CancelRequest, on a new socket). */
    public void cancel() {
        link.cancel();
    }

    /** The session settings this connection carries now (what a reset would undo). */
    public SessionSettings settings() {
        return link.settings();
    }

    public void settings(SessionSettings settings) {
        link.settings(settings);
    }

    /** The ParameterStatus values the backend has reported on this connection, latest values. */
    public Map<String, String> parameterStatuses() {
        return link.parameters();
    }

    public boolean isBroken() {
        return broken || !link.isOpen();
    }

    /**
     * Closes the connection for good instead of pooling it: state the session could not take off it
     * (a DISCARD ALL that failed) must not reach the next borrower.
     */
    public void discard() {
        broken = true;
        release();
    }

    /** Returns the connection to its pool (or closes it for good if it broke or is mid-transaction). */
    public void release() {
        if (released) {
            return;
        }
        released = true;
        call.onAsync(null);
        Stream current = stream;
        if (current != null) {
            // A result still reading: the session ended (or gave up) mid-answer. Cancelled and read
            // to the end when that is quick; the connection is closed otherwise.
            stream = null;
            current.abandon();
        }
        if (batch != null) {
            batch.release();
            batch = null;
        }
        boolean discard = isBroken();
        pool.execute(() -> {
            if (discard) {
                pool.discard(link);
            } else {
                pool.release(link);
            }
        });
    }
}
