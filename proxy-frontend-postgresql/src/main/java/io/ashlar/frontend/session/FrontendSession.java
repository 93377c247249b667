package io.ashlar.frontend.session;

import io.ashlar.backend.datasource.ParameterValues;
import io.ashlar.backend.execute.QueryResult;
import io.ashlar.backend.execute.ColumnDescription;
import io.ashlar.backend.execute.ErrorFields;
import io.ashlar.backend.execute.ParameterCounter;
import io.ashlar.backend.execute.ResultSink;
import io.ashlar.backend.execute.RowValues;
import io.ashlar.backend.execute.StatementFailure;
import io.ashlar.backend.session.BackendSession;
import io.ashlar.protocol.BatchBind;
import io.ashlar.protocol.Bind;
import io.ashlar.protocol.BindComplete;
import io.ashlar.protocol.ClientDialect;
import io.ashlar.protocol.Close;
import io.ashlar.protocol.CloseComplete;
import io.ashlar.protocol.CopyData;
import io.ashlar.protocol.CopyDone;
import io.ashlar.protocol.CopyFail;
import io.ashlar.protocol.CopyInResponse;
import io.ashlar.protocol.CopyOutResponse;
import io.ashlar.protocol.Describe;
import io.ashlar.protocol.EmptyQueryResponse;
import io.ashlar.protocol.Execute;
import io.ashlar.protocol.FrontendMessage;
import io.ashlar.protocol.NoData;
import io.ashlar.protocol.ParameterDescription;
import io.ashlar.protocol.Parse;
import io.ashlar.protocol.ParseComplete;
import io.ashlar.protocol.PortalSuspended;
import io.ashlar.protocol.Query;
import io.ashlar.protocol.ReadyForQuery;
import io.ashlar.frontend.types.BinaryEncoders;
import io.ashlar.frontend.types.ValueEncoder;
import io.netty.channel.Channel;
import java.sql.SQLException;
import io.ashlar.parser.lexer.SqlSyntaxException;
import io.ashlar.parser.lexer.StatementRange;
import io.ashlar.parser.lexer.StatementSplitter;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import io.ashlar.backend.execute.CopyStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One logged-in client session: runs its messages in order, one at a time, on a virtual thread,
 * and answers as PostgreSQL does (see
 * <a href="https://www.postgresql.org/docs/current/protocol-flow.html">Message Flow</a>).
 *
 * <p>Threads: the event loop only {@link #enqueue enqueues} decoded messages; the session's own
 * virtual thread takes them in order and parks while there are none, so there is one hand-off
 * each way (messages in, one buffered write out per ReadyForQuery/Flush) and no thread is made
 * per message.
 *
 * <p>openGauss clients (protocol 3.50/3.51) also send batch bind ({@code U}: all rows in one
 * implicit transaction, one summed CommandComplete) and ask, at connect, about openGauss-only
 * catalogs and settings; those questions are answered here ({@link OpenGaussConnectQueries}) so
 * that PostgreSQL backends serve them too.
 *
 * <p>States: <b>ready</b>; <b>skipping</b> (an extended-protocol message failed: everything up to
 * the next Sync is discarded, and the error was reported once); <b>copy-in</b> (inside
 * COPY FROM STDIN, CopyData flows to the backend until CopyDone or CopyFail); <b>closed</b>.
 */
public final class FrontendSession implements ResultSink, io.ashlar.frontend.server.ClientSession {

    private static final int INTERVAL_OID = 1186;
    private static final int INTERVAL_ARRAY_OID = 1187;
    private static final Logger LOG = LoggerFactory.getLogger(FrontendSession.class);
    private static final String UNNAMED = "";
    private static final int MAX_PREPARED_STATEMENTS = 10_000;
    /** PostgreSQL's output buffer (pqcomm.c): answers it holds until Sync, Flush or a full buffer. */
    private static final int PQ_SEND_BUFFER_SIZE = 8192;
    /** What a batch row is answered with: BindComplete (5 bytes) and CommandComplete "INSERT 0 1" (16). */
    private static final int ROW_ANSWER_BYTES = 21;

    /** Marks the end of the client's connection in the message queue. */
    private static final FrontendMessage CLIENT_GONE = new Query("\0client gone");

    private final Channel channel;
    private final BackendSession backend;
    private final ThreadFactory threads;
    private final OutputBuffer out;
    private final int processId;
    private final Runnable onClose;
    private final boolean openGauss;
    private final ConcurrentLinkedQueue<FrontendMessage> inbox = new ConcurrentLinkedQueue<>();
    /** How many messages have been put in the inbox (written by the thread that enqueues only). */
    private volatile long received;
    private final AtomicBoolean started = new AtomicBoolean();
    private volatile boolean working;
    private volatile char lastStatus = 'I';
    private volatile Thread inboxWaiter;
    private final Map<String, PreparedStatement> statements = new HashMap<>();
    private final Map<String, Portal> portals = new HashMap<>();
    private final CursorCommands cursors;
    /** Binary encoders of the columns an Execute sends now (null entries: text). */
    private ValueEncoder[] rowEncoders;
    private final PortalRows.RowConsumer toClient;
    private boolean skipping;
    /** A statement whose rows could not run as a backend batch in the current pipeline. */
    private PreparedStatement batchRefused;
    private boolean closed;

    /**
     * @param threads makes the session's thread (a virtual thread), started with the first message
     */
    public FrontendSession(Channel channel, BackendSession backend, ThreadFactory threads, int processId, Runnable onClose) {
        this(channel, backend, threads, processId, onClose, ClientDialect.POSTGRESQL);
    }

    /**
     * @param threads makes the session's thread (a virtual thread), started with the first message
     * @param dialect the client's protocol: an openGauss client's connect-time questions are
     *        answered by the proxy ({@link OpenGaussConnectQueries}) and its batch bind runs
     */
    public FrontendSession(Channel channel, BackendSession backend, ThreadFactory threads, int processId, Runnable onClose,
                           ClientDialect dialect) {
        this.openGauss = dialect.isOpenGauss();
        this.channel = channel;
        this.backend = backend;
        this.threads = threads;
        this.out = new OutputBuffer(channel);
        this.processId = processId;
        this.onClose = onClose;
        this.cursors = new CursorCommands(portals, backend, this);
        this.toClient = row -> out.dataRow(row, rowEncoders);
    }

    public int processId() {
        return processId;
    }

    /** Called on the event loop for each decoded message. */
    public void enqueue(FrontendMessage message) {
        inbox.add(message);
        received++;
        wake();
    }

    /**
     * Called on the event loop with the messages of one read from the socket, so that the
     * session sees a client's pipeline (Bind, Execute, ..., Sync) whole, and is woken once.
     */
    public void enqueue(java.util.List<FrontendMessage> messages) {
        inbox.addAll(messages);
        received += messages.size();
        wake();
    }

    private void wake() {
        if (!started.get() && started.compareAndSet(false, true)) {
            threads.newThread(this::loop).start();
        } else {
            Thread waiter = inboxWaiter;
            if (waiter != null) {
                LockSupport.unpark(waiter);
            }
        }
    }

    /** Called on the event loop when the client's connection closed. */
    public void clientGone() {
        backend.cancel();
        enqueue(CLIENT_GONE);
    }

    /** Cancels the statement running now (CancelRequest from the client). */
    public void cancel() {
        backend.cancel();
    }

    public void writabilityChanged() {
        out.writabilityChanged();
    }

    /** The session's thread: takes messages in order until the session ends. */
    private void loop() {
        while (!closed) {
            FrontendMessage message = take();
            working = true;
            try {
                handle(message);
            } catch (RuntimeException e) {
                LOG.error("session {}: unexpected failure handling {}", processId, message.getClass().getSimpleName(), e);
                out.error(ErrorFields.error("XX000", "internal error in Ashlar: " + e));
                skipping = !(message instanceof Query);
                if (message instanceof Query) {
                    readyForQuery();
                }
            } finally {
                working = false;
            }
        }
    }

    /**
     * Whether the session is between statements outside a transaction, with nothing queued: a
     * proxy that stops may close it without losing anything (called from another thread).
     */
    public boolean isQuiet() {
        return !working && inbox.isEmpty() && lastStatus == 'I';
    }

    /** Waits for the next message while a command is in progress (COPY FROM STDIN). */
    private FrontendMessage take() {
        while (true) {
            FrontendMessage message = inbox.poll();
            if (message != null) {
                return message;
            }
            inboxWaiter = Thread.currentThread();
            if (inbox.isEmpty()) {
                LockSupport.park(this);
            }
            inboxWaiter = null;
        }
    }

    /** Waits until the client's messages after the {@code seen}th have arrived. */
    private void awaitMessagesAfter(long seen) {
        while (received == seen) {
            inboxWaiter = Thread.currentThread();
            if (received == seen) {
                LockSupport.park(this);
            }
            inboxWaiter = null;
        }
    }

    private void handle(FrontendMessage message) {
        if (closed) {
            return;
        }
        if (message == CLIENT_GONE) {
            close();
            return;
        }
        if (skipping && !(message instanceof io.ashlar.protocol.Sync)
                && !(message instanceof io.ashlar.protocol.Terminate)) {
            return;
        }
        switch (message) {
            case Query q -> simpleQuery(q.sql());
            case Parse p -> parse(p);
            case Bind b -> bind(b);
            case Describe d -> describe(d);
            case Execute e -> execute(e);
            case Close c -> close(c);
            case io.ashlar.protocol.Sync s -> sync();
            case io.ashlar.protocol.Flush f -> out.flush();
            case io.ashlar.protocol.Terminate t -> {
                close();
                channel.close();
            }
            case CopyData d -> { }
            case CopyDone d -> { }
            case CopyFail f -> { }
            case io.ashlar.protocol.FunctionCall f -> {
                // A function call stands alone, as a simple query does: its error ends with
                // ReadyForQuery (no Sync comes; pgjdbc's large objects waited for ever).
                backend.abortTransaction();
                out.error(ErrorFields.error("0A000", "the function call protocol is not supported by Ashlar",
                        "Call the function with SELECT."));
                readyForQuery();
            }
            case BatchBind b -> batchBind(b);
            case FrontendMessage.Malformed m -> {
                out.error(ErrorFields.of(ErrorFields.FATAL, m.sqlState(), m.reason()));
                out.flush();
                close();
                channel.close();
            }
            default -> {
                out.error(ErrorFields.of(ErrorFields.FATAL, "08P01",
                        "unexpected message " + message.getClass().getSimpleName() + " after startup"));
                out.flush();
                close();
                channel.close();
            }
        }
    }

    // ---------------------------------------------------------------- simple query

    private void simpleQuery(String sql) {
        statements.remove(UNNAMED);
        Portal unnamed = portals.remove(UNNAMED);
        if (unnamed != null) {
            unnamed.close();
        }
        Optional<CannedAnswer> canned = openGauss ? OpenGaussConnectQueries.answer(sql) : Optional.empty();
        boolean failed = false;
        List<StatementRange> withCursors;
        if (isBlank(sql)) {
            out.write(EmptyQueryResponse.INSTANCE);
        } else if (canned.isPresent()) {
            answer(canned.get());
        } else if (ParameterCounter.startsWithKeyword(sql, "copy") && mentionsClientStream(sql)) {
            copy(sql);
        } else if (CursorCommands.mentionsCommand(sql) && (withCursors = cursorStatements(sql)) != null) {
            failed = runStatements(sql, withCursors);
        } else {
            try {
                backend.executeSimple(sql, this);
            } catch (StatementFailure failure) {
                out.error(failure.fields());
                failed = true;
            }
        }
        afterTransactionStep(failed);
        readyForQuery();
    }

    /** The statements of a query string when one of them is a cursor statement, else null. */
    private static List<StatementRange> cursorStatements(String sql) {
        List<StatementRange> result;
        try {
            result = StatementSplitter.split(sql);
        } catch (SqlSyntaxException e) {
            return null; // the backend session reports it
        }
        for (StatementRange range : result) {
            if (CursorCommands.startsCommand(range.text(sql))) {
                return result;
            }
        }
        return null;
    }

    /**
     * A query string with cursor statements, run one statement at a time: the cursor statements
     * here, the rest by the backend session. Several statements outside a transaction block run
     * in one transaction, as PostgreSQL runs a query string (a cursor without HOLD may be
     * declared and read in it). True when one failed (its error was sent; the rest did not run).
     */
    private boolean runStatements(String sql, List<StatementRange> ranges) {
        boolean wrap = ranges.size() > 1 && backend.transactionStatus() == 'I' && !controlsTransaction(sql, ranges);
        try {
            if (wrap) {
                backend.executeSimple("BEGIN", ResultSink.DISCARD);
            }
            for (StatementRange range : ranges) {
                String text = range.text(sql);
                CursorCommands.Command command = CursorCommands.startsCommand(text)
                        ? cursors.prepare(text, new int[0]) : null;
                if (command != null) {
                    emit(cursors.run(command, ParameterValues.NONE));
                } else {
                    backend.executeSimple(text, this);
                }
            }
            if (wrap) {
                backend.executeSimple("COMMIT", ResultSink.DISCARD);
            }
            return false;
        } catch (StatementFailure failure) {
            out.error(failure.fields());
            backend.abortTransaction();
            if (wrap) {
                try {
                    backend.executeSimple("ROLLBACK", ResultSink.DISCARD);
                } catch (StatementFailure ignored) {
                    // The statement's own error is the one the client gets.
                }
            }
            return true;
        }
    }

    private static boolean controlsTransaction(String sql, List<StatementRange> ranges) {
        for (StatementRange range : ranges) {
            if (PreparedStatement.isTransactionControl(range.text(sql))) {
                return true;
            }
        }
        return false;
    }

    /** A cursor statement's result in a simple query: a BINARY cursor's rows go out in binary. */
    private void emit(QueryResult result) throws StatementFailure {
        for (ErrorFields notice : result.notices()) {
            out.notice(notice);
        }
        if (result.hasRows()) {
            short[] formats = result instanceof FetchedRows fetched ? fetched.cursorFormats() : new short[0];
            short[] columnFormats = new short[result.columns().length];
            if (formats.length == 1) {
                java.util.Arrays.fill(columnFormats, formats[0]);
            }
            ValueEncoder[] encoders = encoders(result.columns(), columnFormats);
            out.rowDescription(result.columns(), columnFormats);
            while (result.next()) {
                out.dataRow(result.row(), encoders);
            }
        }
        out.commandComplete(result.tag());
    }

    /**
     * After a query or a Sync: when no transaction is open any more, the one that was (or the
     * statement's own) has ended, and its portals with it (cursors WITH HOLD stay if it committed).
     */
    private void afterTransactionStep(boolean failed) {
        if (!portals.isEmpty() && backend.transactionStatus() == 'I') {
            cursors.transactionEnded(!failed && !out.lastTag().equals("ROLLBACK"));
        }
    }

    /** The proxy's own answer to a simple query. */
    private void answer(CannedAnswer canned) {
        CannedAnswer.Result result = canned.result();
        if (result.hasRows()) {
            out.rowDescription(result.columns(), null);
            while (result.next()) {
                out.dataRow(result.row(), null);
            }
        }
        out.commandComplete(result.tag());
    }

    private void readyForQuery() {
        char status = backend.transactionStatus();
        lastStatus = status;
        out.write(ReadyForQuery.of(status));
        out.flush();
    }

    @Override
    public void columns(ColumnDescription[] columns) {
        out.rowDescription(columns, null);
    }

    @Override
    public void row(RowValues row) {
        out.dataRow(row, null);
    }

    @Override
    public void complete(String commandTag) {
        out.commandComplete(commandTag);
    }

    @Override
    public void empty() {
        out.write(EmptyQueryResponse.INSTANCE);
    }

    @Override
    public void notice(ErrorFields notice) {
        out.notice(notice);
    }

    @Override
    public void parameterStatus(String name, String value) {
        out.parameterStatus(name, value);
    }

    @Override
    public void notification(int processId, boolean self, String channel, String payload) {
        out.write(new io.ashlar.protocol.NotificationResponse(self ? this.processId : processId, channel, payload));
    }

    // ---------------------------------------------------------------- COPY

    private void copy(String sql) {
        CopyStream operation;
        try {
            operation = backend.startCopy(sql);
        } catch (StatementFailure failure) {
            out.error(failure.fields());
            return;
        }
        try {
            if (operation instanceof CopyStream.In in) {
                copyIn(in);
            } else if (operation instanceof CopyStream.Out copyOut) {
                copyOut(copyOut);
            } else {
                operation.cancelCopy();
                out.error(ErrorFields.error("0A000", "COPY BOTH is not supported by Ashlar"));
            }
        } catch (SQLException e) {
            out.error(ErrorFields.from(e));
        } finally {
            backend.endCopy();
        }
    }

    private static short[] fieldFormats(CopyStream operation) {
        short[] result = new short[operation.getFieldCount()];
        for (int i = 0; i < result.length; i++) {
            result[i] = (short) operation.getFieldFormat(i);
        }
        return result;
    }

    private void copyIn(CopyStream.In in) throws SQLException {
        out.write(new CopyInResponse((byte) in.getFormat(), fieldFormats(in)));
        out.flush();
        while (true) {
            FrontendMessage message = take();
            if (message instanceof CopyData data) {
                in.writeToCopy(data.data(), 0, data.data().length);
            } else if (message instanceof CopyDone) {
                long rows = in.endCopy();
                out.commandComplete("COPY " + rows);
                return;
            } else if (message instanceof CopyFail fail) {
                cancelCopy(in);
                out.error(ErrorFields.error("57014", "COPY from stdin failed: " + fail.message()));
                return;
            } else if (message instanceof io.ashlar.protocol.Flush
                    || message instanceof io.ashlar.protocol.Sync) {
                // PostgreSQL ignores Flush and Sync during COPY IN.
            } else if (message == CLIENT_GONE) {
                cancelCopy(in);
                inbox.add(CLIENT_GONE);
                return;
            } else {
                cancelCopy(in);
                out.error(ErrorFields.error("08P01", "unexpected message type during COPY from stdin"));
                return;
            }
        }
    }

    private static void cancelCopy(CopyStream operation) {
        try {
            operation.cancelCopy();
        } catch (SQLException expected) {
            // The backend answers a cancelled COPY with an error; that is the point.
        }
    }

    private void copyOut(CopyStream.Out copyOut) throws SQLException {
        out.write(new CopyOutResponse((byte) copyOut.getFormat(), fieldFormats(copyOut)));
        byte[] data;
        while ((data = copyOut.readFromCopy()) != null) {
            CopyData.encode(out.buffer(), data, 0, data.length);
            if (out.buffer().writerIndex() > 64 * 1024) {
                out.flush();
            }
        }
        out.write(CopyDone.INSTANCE);
        out.commandComplete("COPY " + copyOut.getHandledRowCount());
    }

    // ---------------------------------------------------------------- extended query

    /**
     * An extended-protocol message failed: the error goes out at once, with whatever was written
     * before it (PostgreSQL flushes an ErrorResponse as it raises it), and everything up to the
     * next Sync is skipped. A client that sent Parse/Describe/Flush, or a pipeline without a Sync
     * yet, waits for exactly this error before it sends more.
     */
    private void failExtended(ErrorFields error) {
        out.error(error);
        out.flush();
        skipping = true;
        backend.abortTransaction();
    }

    private void parse(Parse parse) {
        String name = parse.statementName();
        if (!name.isEmpty() && statements.containsKey(name)) {
            failExtended(ErrorFields.error("42P05", "prepared statement \"" + name + "\" already exists"));
            return;
        }
        if (statements.size() >= MAX_PREPARED_STATEMENTS && !statements.containsKey(name)) {
            failExtended(ErrorFields.error("53400", "too many prepared statements in this session (limit "
                    + MAX_PREPARED_STATEMENTS + ")", "Close statements the application no longer uses."));
            return;
        }
        Optional<CannedAnswer> canned = openGauss ? OpenGaussConnectQueries.answer(parse.sql()) : Optional.empty();
        if (canned.isPresent()) {
            // Never sent to a backend: the analysis slot carries the answer, the description is known.
            PreparedStatement statement = new PreparedStatement(
                    new BackendSession.Prepared(parse.sql(), new int[0], canned.get()), new int[0]);
            statement.description(new BackendSession.Description(new int[0],
                    canned.get().hasRows() ? Optional.of(canned.get().columns()) : Optional.empty()));
            statements.put(name, statement);
            out.write(ParseComplete.INSTANCE);
            return;
        }
        if (CursorCommands.startsCommand(parse.sql()) && parseCursorCommand(name, parse)) {
            return;
        }
        BackendSession.Prepared prepared;
        try {
            prepared = backend.prepare(parse.sql(), parse.parameterTypeOids());
        } catch (StatementFailure failure) {
            failExtended(failure.fields());
            return;
        }
        PreparedStatement statement = new PreparedStatement(prepared, parse.parameterTypeOids());
        if (!name.isEmpty() || describesNext(name)) {
            // PostgreSQL reports a statement's errors at Parse. A named statement is parsed once and
            // run many times, and a Describe would ask the backend anyway: check it on a backend now
            // (the description is kept for Describe). An unnamed statement about to run is checked
            // by its first execution, saving the round trip.
            try {
                statement.description(backend.describe(prepared));
            } catch (StatementFailure failure) {
                failExtended(failure.fields());
                return;
            }
        }
        statements.put(name, statement);
        out.write(ParseComplete.INSTANCE);
    }

    /**
     * Parse of a cursor statement, which the proxy answers itself (DECLARE's query is prepared,
     * and checked as PostgreSQL checks it at Parse, by the backend session). False when the text
     * is no cursor statement after all.
     */
    private boolean parseCursorCommand(String name, Parse parse) {
        CursorCommands.Command command;
        try {
            command = cursors.prepare(parse.sql(), parse.parameterTypeOids());
            if (command == null) {
                return false;
            }
            int[] types = command.query() != null ? command.query().parameterTypes() : parse.parameterTypeOids();
            PreparedStatement statement = new PreparedStatement(new BackendSession.Prepared(parse.sql(), types, command),
                    parse.parameterTypeOids());
            if (command.query() != null && (!name.isEmpty() || describesNext(name))) {
                statement.description(new BackendSession.Description(
                        backend.describe(command.query()).parameterTypes(), Optional.empty()));
            }
            statements.put(name, statement);
        } catch (StatementFailure failure) {
            failExtended(failure.fields());
            return true;
        }
        out.write(ParseComplete.INSTANCE);
        return true;
    }

    /** Whether the next queued message is a Describe of this statement. */
    private boolean describesNext(String name) {
        FrontendMessage next = inbox.peek();
        return next instanceof Describe d && d.kind() == 'S' && d.name().equals(name);
    }

    private void bind(Bind bind) {
        PreparedStatement statement = statements.get(bind.statement());
        if (statement == null) {
            failExtended(ErrorFields.error("26000", "prepared statement \"" + bind.statement() + "\" does not exist"));
            return;
        }
        String portalName = bind.portal();
        if (!portalName.isEmpty() && portals.containsKey(portalName)) {
            failExtended(ErrorFields.error("42P03", "portal \"" + portalName + "\" already exists"));
            return;
        }
        byte[][] values = bind.parameterValues();
        short[] formats = bind.parameterFormats();
        int required = statement.prepared.parameterTypes().length;
        if (values.length != required) {
            failExtended(ErrorFields.error("08P01", "bind message supplies " + values.length
                    + " parameters, but prepared statement \"" + bind.statement() + "\" requires " + required));
            return;
        }
        if (formats.length > 1 && formats.length != values.length) {
            failExtended(ErrorFields.error("08P01", "bind message has " + formats.length
                    + " parameter formats but " + values.length + " parameters"));
            return;
        }
        Portal portal = new Portal(statement, ParameterValues.of(statement.prepared.parameterTypes(), formats, values),
                bind.resultFormats());
        Portal previous = portals.put(portalName, portal);
        if (previous != null) {
            previous.close();
        }
        out.write(BindComplete.INSTANCE);
        if (statement != batchRefused) {
            runAsBatch(portal, portalName);
        }
    }

    /**
     * openGauss's batch bind ({@code U}): every row runs with its own parameters, all in one
     * transaction that the following Sync ends (as a pipeline of Bind/Execute pairs would run);
     * the client gets one BindComplete and one CommandComplete whose count is the batch's total.
     * The first failing row fails the batch: the error is reported and the rest is skipped until
     * Sync, which rolls the transaction back. Rows run as one backend batch per data source when the statement allows (see {@link #runAsBatch}), else one by one.
     */
    private void batchBind(BatchBind batch) {
        PreparedStatement statement = statements.get(batch.statement());
        if (statement == null) {
            failExtended(ErrorFields.error("26000", "prepared statement \"" + batch.statement() + "\" does not exist"));
            return;
        }
        int required = statement.prepared.parameterTypes().length;
        if (batch.parametersPerRow() != required) {
            failExtended(ErrorFields.error("08P01", "batch bind message supplies " + batch.parametersPerRow()
                    + " parameters per row, but prepared statement \"" + batch.statement() + "\" requires " + required));
            return;
        }
        short[] formats = batch.parameterFormats();
        if (formats.length > 1 && formats.length != required) {
            failExtended(ErrorFields.error("08P01", "batch bind message has " + formats.length
                    + " parameter formats but " + required + " parameters"));
            return;
        }
        if (statement.prepared.analysis() instanceof CannedAnswer || statement.isTransactionControl()) {
            failExtended(ErrorFields.error("0A000", "this statement cannot run as a batch through Ashlar",
                    "Run it with executeUpdate."));
            return;
        }
        // The batch binds the portal it names (the unnamed one): what that portal held is gone.
        Portal previous = portals.remove(batch.portal());
        if (previous != null) {
            previous.close();
        }
        BatchCount count = new BatchCount();
        int[] types = statement.prepared.parameterTypes();
        ParameterValues[] rows = new ParameterValues[batch.rows().size()];
        for (int i = 0; i < rows.length; i++) {
            rows[i] = ParameterValues.of(types, formats, batch.rows().get(i));
        }
        if (rows.length > 1 && statement.returnsNoRows()) {
            // The Sync the driver sends after its batch bind may not be here yet: it decides how
            // the batch commits (see runAsBatch on waiting).
            long seen = received;
            if (inbox.isEmpty()) {
                awaitMessagesAfter(seen);
            }
        }
        BackendSession.BatchOutcome outcome;
        try {
            outcome = rows.length > 1
                    ? backend.executeBatch(statement.prepared, rows, this, inbox.peek() instanceof io.ashlar.protocol.Sync) : null;
        } catch (StatementFailure failure) {
            failExtended(failure.fields());
            return;
        }
        if (outcome != null) {
            if (outcome.failedRow() >= 0) {
                failExtended(outcome.error());
                return;
            }
            for (String tag : outcome.tags()) {
                count.add(tag);
            }
            out.write(BindComplete.INSTANCE);
            out.commandComplete(count.tag(statement.sql));
            return;
        }
        for (int i = 0, n = batch.rows().size(); i < n; i++) {
            QueryResult result = null;
            try {
                result = backend.execute(statement.prepared, rows[i], this, true);
                if (result.hasRows()) {
                    while (result.next()) {
                        // A RETURNING clause's rows are not sent back by a batch bind; only its count is.
                    }
                }
                for (ErrorFields notice : result.notices()) {
                    out.notice(notice);
                }
                count.add(result.tag());
            } catch (StatementFailure failure) {
                failExtended(failure.fields());
                return;
            } finally {
                if (result != null) {
                    result.close();
                }
            }
        }
        out.write(BindComplete.INSTANCE);
        out.commandComplete(count.tag(statement.sql));
    }

    private void describe(Describe describe) {
        if (describe.kind() == 'S') {
            describeStatement(describe.name());
        } else {
            describePortal(describe.name());
        }
    }

    private void describeStatement(String name) {
        PreparedStatement statement = statements.get(name);
        if (statement == null) {
            failExtended(ErrorFields.error("26000", "prepared statement \"" + name + "\" does not exist"));
            return;
        }
        BackendSession.Description description = statement.description();
        if (description == null) {
            try {
                description = statement.prepared.analysis() instanceof CursorCommands.Command command
                        ? describeCursorCommand(statement, command) : backend.describe(statement.prepared);
            } catch (StatementFailure failure) {
                failExtended(failure.fields());
                return;
            }
            if (!(statement.prepared.analysis() instanceof CursorCommands.Command)) {
                statement.description(description);
            }
        }
        out.write(new ParameterDescription(description.parameterTypes()));
        if (description.columns().isPresent()) {
            out.rowDescription(description.columns().get(), null);
        } else {
            out.write(NoData.INSTANCE);
        }
    }

    /**
     * A cursor statement's description: DECLARE takes its query's parameters and returns no rows;
     * FETCH returns the rows of its cursor, if that exists now (as PostgreSQL describes it).
     */
    private BackendSession.Description describeCursorCommand(PreparedStatement statement, CursorCommands.Command command)
            throws StatementFailure {
        if (command.query() != null) {
            return new BackendSession.Description(backend.describe(command.query()).parameterTypes(), Optional.empty());
        }
        if (command.statement().body() instanceof io.ashlar.parser.statement.FetchStatement fetch && !fetch.move()) {
            Portal cursor = portals.get(fetch.cursor());
            if (cursor != null && cursor.result != null && cursor.result.hasRows()) {
                return new BackendSession.Description(new int[0], Optional.of(cursor.result.columns()));
            }
        }
        return new BackendSession.Description(statement.prepared.parameterTypes(), Optional.empty());
    }

    private void describePortal(String name) {
        Portal portal = portals.get(name);
        if (portal == null) {
            failExtended(ErrorFields.error("34000", "portal \"" + name + "\" does not exist"));
            return;
        }
        if (!run(portal, true)) {
            return;
        }
        QueryResult result = portal.result;
        if (result.hasRows()) {
            short[] formats = portal.formats(result.columns().length);
            try {
                encoders(result.columns(), formats);
            } catch (StatementFailure failure) {
                failExtended(failure.fields());
                return;
            }
            out.rowDescription(result.columns(), formats);
        } else {
            out.write(NoData.INSTANCE);
        }
    }

    /**
     * Runs the portal's statement if it has not run yet; false (error reported) when it failed.
     *
     * @param describing whether a Describe runs it, so the Execute that will read it is still queued
     */
    private boolean run(Portal portal, boolean describing) {
        if (portal.result != null) {
            return true;
        }
        if (portal.statement.prepared.analysis() instanceof CannedAnswer canned) {
            portal.result = canned.result();
            return true;
        }
        try {
            if (portal.statement.prepared.analysis() instanceof CursorCommands.Command command) {
                portal.result = cursors.run(command, portal.parameters);
                return true;
            }
            boolean transactionControl = portal.statement.isTransactionControl();
            if (transactionControl) {
                backend.forgetImplicitTransaction();
            }
            boolean implicit = !transactionControl
                    && (backend.inImplicitTransaction() || executesBeforeSync() > (describing ? 1 : 0));
            portal.result = backend.execute(portal.statement.prepared, portal.parameters, this, implicit);
            return true;
        } catch (StatementFailure failure) {
            failExtended(failure.fields());
            return false;
        }
    }

    /** Binary encoders per column (null entries for text; null when all are text). */
    private ValueEncoder[] encoders(ColumnDescription[] columns, short[] formats) throws StatementFailure {
        ValueEncoder[] result = null;
        for (int i = 0; i < formats.length; i++) {
            if (formats[i] == 1) {
                int type = columns[i].typeOid();
                if (type == INTERVAL_OID || type == INTERVAL_ARRAY_OID) {
                    String style = backend.reportedValue("IntervalStyle");
                    if (style != null && !style.equals("postgres")) {
                        throw new StatementFailure(ErrorFields.error("0A000", "binary output of intervals needs IntervalStyle"
                                + " postgres in Ashlar (column \"" + columns[i].name() + "\"; the session has " + style + ")",
                                "Ask for this column in text format, or SET IntervalStyle TO postgres."));
                    }
                }
                ValueEncoder encoder = BinaryEncoders.find(type).orElse(null);
                if (encoder == null) {
                    throw new StatementFailure(ErrorFields.error("0A000", "binary output format is not supported by Ashlar for type oid "
                            + columns[i].typeOid() + " (column \"" + columns[i].name() + "\")",
                            "Ask for this column in text format."));
                }
                if (result == null) {
                    result = new ValueEncoder[formats.length];
                }
                result[i] = encoder;
            } else if (formats[i] != 0) {
                throw new StatementFailure(ErrorFields.error("22023", "unsupported format code: " + formats[i]));
            }
        }
        return result;
    }

    /**
     * Execute: the portal's next rows, up to the row limit. As in PostgreSQL, a limit that the rows
     * reached leaves the portal suspended (PortalSuspended), even when no row is left; the next
     * Execute then completes it with no rows. A cursor's Execute completes with {@code SELECT n}.
     */
    private void execute(Execute execute) {
        Portal portal = portals.get(execute.portal());
        if (portal == null) {
            failExtended(ErrorFields.error("34000", "portal \"" + execute.portal() + "\" does not exist"));
            return;
        }
        if (!run(portal, false)) {
            return;
        }
        QueryResult result = portal.result;
        if (!portal.noticesSent) {
            portal.noticesSent = true;
            for (ErrorFields notice : result.notices()) {
                out.notice(notice);
            }
        }
        if (result.isEmptyQuery()) {
            out.write(EmptyQueryResponse.INSTANCE);
            return;
        }
        if (!result.hasRows()) {
            out.commandComplete(result.tag());
            return;
        }
        PortalRows rows = portal.rows();
        boolean resumed = rows.position() > 0;
        long limit = execute.maxRows() <= 0 ? Long.MAX_VALUE : execute.maxRows();
        long sent;
        try {
            rowEncoders = encoders(result.columns(), portal.formats(result.columns().length));
            sent = rows.forward(limit, toClient);
        } catch (StatementFailure failure) {
            failExtended(failure.fields());
            return;
        } finally {
            rowEncoders = null;
        }
        if (sent == limit && limit != Long.MAX_VALUE) {
            out.write(PortalSuspended.INSTANCE);
            return;
        }
        out.commandComplete(portal.cursor ? "SELECT " + sent : resumed ? rowsTag(result.tag(), sent) : result.tag());
    }

    /**
     * A client's batch: the Bind just done, then already in the inbox its Execute and more
     * Bind/Execute groups of the same statement and portal (pgjdbc's executeBatch sends hundreds
     * before one Sync, each with a Describe of the portal when it wants the row shape). The rows
     * run as one backend batch per data source ({@link BackendSession#executeBatch}) and each
     * message is answered as PostgreSQL answers the pipeline: per row BindComplete, NoData for
     * a Describe (a batchable statement returns no rows) and CommandComplete, in order; at the
     * first failing row its error, and the rest skipped until Sync (whose transaction then
     * rolls back). Anything else leaves the messages to run one by one; a statement that cannot
     * run as a batch is not tried again until Sync.
     */
    private void runAsBatch(Portal portal, String portalName) {
        PreparedStatement statement = portal.statement;
        if (statement.prepared.analysis() instanceof CannedAnswer || statement.isTransactionControl()) {
            return;
        }
        if (!anotherRowFollows(portalName)) {
            return; // the common case, Bind/Execute/Sync: no batch, and no look at the socket
        }
        // Row 0 is this Bind; a group is [Describe portal] Execute, and for later rows a Bind first.
        java.util.List<Bind> binds;
        java.util.List<Boolean> described;
        int consumed;
        // The first message after the groups taken (null: none has arrived yet).
        FrontendMessage afterGroups;
        while (true) {
            long seen = received;
            binds = new java.util.ArrayList<>();
            described = new java.util.ArrayList<>();
            binds.add(null);
            consumed = 0;
            java.util.Iterator<FrontendMessage> queued = inbox.iterator();
            FrontendMessage message = queued.hasNext() ? queued.next() : null;
            for (boolean first = true; ; first = false) {
                int groupMessages = 0;
                Bind bind = null;
                afterGroups = message;
                if (!first) {
                    if (!(message instanceof Bind b) || !b.portal().equals(portalName) || statements.get(b.statement()) != statement
                            || !bindFits(b, statement)) {
                        break;
                    }
                    bind = b;
                    groupMessages++;
                    message = queued.hasNext() ? queued.next() : null;
                }
                boolean describe = message instanceof Describe d && d.kind() == 'P' && d.name().equals(portalName);
                if (describe) {
                    groupMessages++;
                    message = queued.hasNext() ? queued.next() : null;
                }
                // Any row limit: a batchable statement returns no rows (pgjdbc asks for at most 1).
                if (!(message instanceof Execute e) || !e.portal().equals(portalName)) {
                    break;
                }
                groupMessages++;
                message = queued.hasNext() ? queued.next() : null;
                if (!first) {
                    binds.add(bind);
                }
                described.add(describe);
                consumed += groupMessages;
            }
            // The inbox ended inside the client's pipeline (pgjdbc writes 8 kB at a time): its
            // rest is on its way, and waiting for it makes one backend batch, not one per read,
            // and shows whether the Sync ends the batch. PostgreSQL would not have sent these
            // rows' answers yet either (it flushes at Sync or Flush, or a full output buffer), so
            // a client waiting for them before its Sync waits as long on PostgreSQL. (Only for
            // statements that can run as a batch: PostgreSQL answers a COPY at once.)
            if (message != null || (described.size() + 1) * ROW_ANSWER_BYTES > PQ_SEND_BUFFER_SIZE
                    || !statement.returnsNoRows()) {
                break;
            }
            awaitMessagesAfter(seen);
        }
        int rowCount = described.size();
        if (rowCount < 2) {
            return;
        }
        boolean lastBeforeSync = afterGroups instanceof io.ashlar.protocol.Sync;
        ParameterValues[] rows = new ParameterValues[rowCount];
        rows[0] = portal.parameters;
        int[] types = statement.prepared.parameterTypes();
        for (int i = 1; i < rowCount; i++) {
            Bind bind = binds.get(i);
            rows[i] = ParameterValues.of(types, bind.parameterFormats(), bind.parameterValues());
        }
        BackendSession.BatchOutcome outcome;
        try {
            outcome = backend.executeBatch(statement.prepared, rows, this, lastBeforeSync);
        } catch (StatementFailure failure) {
            failExtended(failure.fields());
            return;
        }
        if (outcome == null) {
            batchRefused = statement;
            return;
        }
        for (int i = 0; i < consumed; i++) {
            inbox.poll();
        }
        String[] tags = outcome.tags();
        // A failed row is answered up to its error; a commit that failed at Sync, after every row.
        int answered = outcome.failedRow() >= 0 ? Math.min(outcome.failedRow() + 1, rowCount) : rowCount;
        for (int i = 0; i < answered; i++) {
            if (i > 0) {
                out.write(BindComplete.INSTANCE);
            }
            if (described.get(i)) {
                out.write(NoData.INSTANCE);
            }
            if (i < tags.length) {
                out.commandComplete(tags[i]);
            }
        }
        if (outcome.failedRow() >= 0) {
            failExtended(outcome.error());
            return;
        }
        Portal last = new Portal(statement, rows[rowCount - 1], portal.resultFormats);
        last.result = new io.ashlar.backend.sharding.TagResult(tags.length > 0 ? tags[tags.length - 1] : "", List.of());
        portals.put(portalName, last);
    }

    /**
     * Whether this Bind's [Describe] Execute is followed by another Bind, or by nothing yet (the
     * rest of a batch may still be in the socket).
     */
    private boolean anotherRowFollows(String portalName) {
        java.util.Iterator<FrontendMessage> queued = inbox.iterator();
        FrontendMessage message = queued.hasNext() ? queued.next() : null;
        if (message instanceof Describe d && d.kind() == 'P' && d.name().equals(portalName)) {
            message = queued.hasNext() ? queued.next() : null;
        }
        if (!(message instanceof Execute e) || !e.portal().equals(portalName)) {
            return false;
        }
        return !queued.hasNext() || queued.next() instanceof Bind;
    }

    /** Whether a Bind of this statement has the right parameter and format counts (else it fails on its own). */
    private static boolean bindFits(Bind bind, PreparedStatement statement) {
        int required = statement.prepared.parameterTypes().length;
        int formats = bind.parameterFormats().length;
        return bind.parameterValues().length == required && (formats <= 1 || formats == required);
    }

    /** The tag of the last piece of a portal read in pieces: PostgreSQL counts the rows of that Execute. */
    private static String rowsTag(String tag, long rows) {
        int space = tag.lastIndexOf(' ');
        return space < 0 ? tag : tag.substring(0, space + 1) + rows;
    }

    private void close(Close close) {
        if (close.kind() == 'S') {
            statements.remove(close.name());
        } else {
            Portal portal = portals.remove(close.name());
            if (portal != null) {
                portal.close();
            }
        }
        out.write(CloseComplete.INSTANCE);
    }

    /**
     * How many Executes the client has already sent before its next Sync (up to 2), or 2 when
     * the Sync has not arrived yet. With more than the one reading the current portal, the
     * statements run in one transaction, as PostgreSQL runs a pipeline in autocommit mode. A
     * pipeline whose end is not here yet (its messages came in several reads) is treated as one
     * of several statements, so that a later Execute's failure still undoes this one: that costs
     * a COMMIT at Sync only in that case.
     */
    private int executesBeforeSync() {
        int result = 0;
        for (FrontendMessage queued : inbox) {
            if (queued instanceof Execute && ++result == 2) {
                return result;
            }
            if (queued instanceof io.ashlar.protocol.Sync || queued instanceof Query) {
                return result;
            }
        }
        return 2;
    }

    private void sync() {
        boolean failed = skipping;
        skipping = false;
        batchRefused = null;
        try {
            backend.endImplicitTransaction();
        } catch (StatementFailure failure) {
            out.error(failure.fields());
            failed = true;
        }
        afterTransactionStep(failed);
        char status = backend.transactionStatus();
        lastStatus = status;
        out.write(ReadyForQuery.of(status));
        out.flush();
    }

    // ---------------------------------------------------------------- end

    private void close() {
        if (closed) {
            return;
        }
        closed = true;
        out.discard();
        statements.clear();
        closePortals();
        try {
            backend.close();
        } finally {
            onClose.run();
        }
    }

    private void closePortals() {
        for (Portal portal : portals.values()) {
            portal.close();
        }
        portals.clear();
    }

    /** COPY ... FROM STDIN / TO STDOUT, as opposed to a COPY of a server-side file or program. */
    private static boolean mentionsClientStream(String sql) {
        for (int i = 0, n = sql.length() - 4; i < n; i++) {
            char c = sql.charAt(i);
            if ((c == 's' || c == 'S') && (sql.regionMatches(true, i, "stdin", 0, 5) || sql.regionMatches(true, i, "stdout", 0, 6))) {
                return true;
            }
        }
        return false;
    }

    private static boolean isBlank(String sql) {
        for (int i = 0; i < sql.length(); i++) {
            if (!Character.isWhitespace(sql.charAt(i))) {
                return false;
            }
        }
        return true;
    }

}
