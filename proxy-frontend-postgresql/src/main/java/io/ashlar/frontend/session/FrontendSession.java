package io.ashlar.frontend.session;

import io.ashlar.backend.execute.ErrorFields;
import io.ashlar.backend.execute.ResultSink;
import io.ashlar.backend.session.BackendSession;
import io.ashlar.frontend.server.ClientChannels;
import io.ashlar.frontend.server.MessageRefusals;
import io.ashlar.parser.statement.DeallocateStatement;
import io.ashlar.protocol.AfterError;
import io.ashlar.protocol.BatchBind;
import io.ashlar.protocol.Bind;
import io.ashlar.protocol.ClientDialect;
import io.ashlar.protocol.Close;
import io.ashlar.protocol.CommandComplete;
import io.ashlar.protocol.CopyData;
import io.ashlar.protocol.CopyDone;
import io.ashlar.protocol.CopyFail;
import io.ashlar.protocol.Describe;
import io.ashlar.protocol.Execute;
import io.ashlar.protocol.Flush;
import io.ashlar.protocol.FrontendMessage;
import io.ashlar.protocol.FunctionCall;
import io.ashlar.protocol.MessageMemory;
import io.ashlar.protocol.Parse;
import io.ashlar.protocol.Query;
import io.ashlar.protocol.ReadyForQuery;
import io.ashlar.protocol.Sync;
import io.ashlar.protocol.Terminate;
import io.netty.channel.Channel;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One logged-in client session of a sharded database (or of an openGauss client): its messages
 * run in order, one at a time, on the session's virtual thread ({@link SessionInbox}), and are
 * answered as PostgreSQL answers them (see
 * <a href="https://www.postgresql.org/docs/current/protocol-flow.html">Message Flow</a>). This
 * class dispatches each message to the part that handles it and ends the session; the parts are
 * {@link SimpleQuery} (with {@link CopyRelay}), {@link ExtendedProtocol} (with
 * {@link ClientBatches}) and {@link CursorCommands}, all writing to one {@link OutputBuffer}.
 *
 * <p>openGauss clients (protocol 3.50/3.51) also send batch bind ({@code U}: all rows in one
 * implicit transaction, one summed CommandComplete) and ask, at connect, about openGauss-only
 * catalogs and settings; those questions are answered by the proxy ({@link OpenGaussConnectQueries})
 * so that PostgreSQL backends serve them too.
 *
 * <p>States: <b>ready</b>; <b>skipping</b> (an extended-protocol message failed: everything up to
 * the next Sync is discarded, see {@link ExtendedProtocol}); <b>copy-in</b> (inside
 * COPY FROM STDIN, see {@link CopyRelay}); <b>closed</b>.
 */
public final class FrontendSession implements io.ashlar.frontend.server.ClientSession {

    private static final Logger LOG = LoggerFactory.getLogger(FrontendSession.class);

    private final Channel channel;
    private final BackendSession backend;
    private final OutputBuffer out;
    private final int processId;
    private final Runnable onClose;
    private final SessionInbox inbox;
    private final CursorCommands cursors;
    private final SimpleQuery simpleQuery;
    private final ExtendedProtocol extended;
    private final ClientResultSink sink;
    private volatile boolean working;
    /** Whether the event loop runs a pipeline of the session's itself now ({@link LoopRun}). */
    private volatile boolean loopRunning;
    private volatile char lastStatus = 'I';
    /** How the proxy's stop ends this session's connection, once it asked ({@link #endIfQuiet}); null until then. */
    private volatile Runnable stopEnd;
    private boolean closed;
    /** Where requests and transactions are counted; null while metrics are off. */
    private io.ashlar.backend.metrics.SessionCounters counters;
    /** When the request being answered began (its first message handled); 0 between requests. */
    private long requestStarted;
    /** The slow-query log (and sql-show, which the backend session writes), or null while both are off. */
    private io.ashlar.backend.metrics.StatementLog statementLog;
    private String who = "";
    /** Whether the session's thread runs on its client's event loop, so that the loop may run a pipeline itself ({@link LoopRun}). */
    private boolean loopRuns;
    /** The pipeline the event loop runs itself now, or null (the loop's field; the session's thread runs on the loop too). */
    private LoopRun loopRun;
    /** What the client sent while the loop ran a pipeline: handed on when it ends, in order ({@link #drainHeldBack}). */
    private final java.util.ArrayDeque<FrontendMessage> heldBack = new java.util.ArrayDeque<>(4);
    /** Whether {@link #drainHeldBack} runs now: a pipeline that ends inside it leaves the rest to its loop (no recursion). */
    private boolean draining;
    /** A stop and a backend's notification that woke the session's thread while the loop ran a pipeline: given again after it. */
    private boolean stopDeferred;
    private boolean asyncDeferred;
    /** Ends a pipeline the loop ran: made once. */
    private final LoopRun.End loopRunEnd = this::loopRunEnded;

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
        boolean openGauss = dialect.isOpenGauss();
        this.channel = channel;
        this.backend = backend;
        this.out = new OutputBuffer(channel);
        this.processId = processId;
        this.onClose = onClose;
        this.inbox = new SessionInbox(threads, this::loop);
        ClientResultSink sink = new ClientResultSink(out, processId, this::encodingChanged);
        this.sink = sink;
        // A NOTIFY for a session that LISTENs reaches it while it waits idle, as from PostgreSQL.
        backend.onAsync(inbox::signalAsync);
        Map<String, Portal> portals = new HashMap<>();
        this.cursors = new CursorCommands(portals, backend, sink);
        CopyRelay copy = new CopyRelay(inbox, out, backend, this::lostSync);
        this.simpleQuery = new SimpleQuery(out, backend, sink, cursors, copy, openGauss);
        this.extended = new ExtendedProtocol(inbox, out, backend, sink, cursors, portals, copy, openGauss);
        backend.sessionObjects(new BackendSession.SessionObjects() {
            @Override
            public List<BackendSession.NamedStatement> statements() {
                return extended.namedStatements();
            }

            @Override
            public List<BackendSession.OpenCursor> cursors() {
                return cursors.open();
            }
        });
    }

    /**
     * The charset of the session's client_encoding at login: the strings the proxy writes (messages, column names) are
     * written in it. The client's decoder reads the client's strings in it (set by the caller).
     */
    public void textCharset(java.nio.charset.Charset charset) {
        out.text(charset);
    }

    /**
     * A SET (or RESET, or a ROLLBACK of one) changed the session's client_encoding: the strings written from now on
     * are in the new one, and so are those the client sends after the statement (its decoder switches on the loop,
     * for the messages it decodes next).
     */
    private void encodingChanged(io.ashlar.backend.execute.ClientEncoding encoding) {
        out.text(encoding.charset());
        channel.eventLoop().execute(() -> {
            io.ashlar.protocol.PgFrontendDecoder decoder = channel.pipeline().get(io.ashlar.protocol.PgFrontendDecoder.class);
            if (decoder != null) {
                decoder.textCharset(encoding.charset(), encoding.checkedAs());
            }
        });
    }

    /** Counts what the session does (before its first message); {@code metrics} null: nothing is counted. */
    public void metrics(io.ashlar.backend.metrics.DatabaseMetrics metrics, io.ashlar.backend.metrics.SessionCounters counters) {
        this.counters = counters;
        out.metrics(metrics, counters);
    }

    /** Logs requests slower than the threshold (before its first message); {@code log} null: none. */
    public void statementLog(io.ashlar.backend.metrics.StatementLog log, String database, String user) {
        this.statementLog = log;
        this.who = database + "\u0000" + user;
    }

    /** Lets the session answer the proxy's admin commands (before its first message). */
    public void admin(io.ashlar.frontend.admin.AdminConsole console) {
        simpleQuery.admin(console);
        extended.admin(console);
    }

    @Override
    public int processId() {
        return processId;
    }

    /** The count of this client's large messages, given back as the session is done with them; set before the first message. */
    public void messageMemory(MessageMemory.Client clientMemory) {
        inbox.memory(clientMemory);
    }

    /**
     * Lets the event loop run a client's pipeline itself where its statement allows ({@link LoopRun}): only when the
     * session's thread runs on the same loop, so that the two never run at once.
     */
    public void runsOnLoop(boolean sameLoop) {
        this.loopRuns = sameLoop;
    }

    /** Called on the event loop for each decoded message. */
    public void enqueue(FrontendMessage message) {
        if (loopRun != null) {
            heldBack.add(message);
            return;
        }
        inbox.add(message);
    }

    /**
     * Called on the event loop with the messages of one read from the socket, so that the
     * session sees a client's pipeline (Bind, Execute, ..., Sync) whole, and is woken once.
     * A pipeline of one statement the loop can run itself does not wake it ({@link LoopRun}).
     */
    public void enqueue(List<FrontendMessage> messages) {
        if (loopRun != null) {
            heldBack.addAll(messages);
            return;
        }
        if (loopRuns && messages.size() > 1 && messages.get(0) instanceof Query) {
            // A query ahead of more (pgjdbc's BEGIN before a block's first statement): one at a time, as held back.
            heldBack.addAll(messages);
            if (!draining) {
                drainHeldBack();
            }
            return;
        }
        if (loopRuns && runOnLoop(messages)) {
            return;
        }
        inbox.addAll(messages);
    }

    /**
     * Hands on what was held back while the loop ran a pipeline, once none runs, as if it came now: a query at its head
     * (pgjdbc's BEGIN ahead of a block's first statement, or queries sent together) runs on the loop alone, the rest
     * after its ReadyForQuery; the rest goes whole to the loop if it may run it, else to the session's thread. Iterative:
     * many queries answered at once in one read neither nest calls nor copy the rest for each.
     */
    private void drainHeldBack() {
        draining = true;
        try {
            while (loopRun == null && !heldBack.isEmpty()) {
                if (heldBack.peekLast() == SessionInbox.CLIENT_GONE || !loopRuns) {
                    inbox.addAll(new java.util.ArrayList<>(heldBack));
                    heldBack.clear();
                    return;
                }
                if (heldBack.size() > 1 && heldBack.peekFirst() instanceof Query query) {
                    heldBack.pollFirst();
                    if (queryOnLoop(query.sql(), List.of(query))) {
                        continue;
                    }
                    heldBack.addFirst(query);
                    inbox.addAll(new java.util.ArrayList<>(heldBack));
                    heldBack.clear();
                    return;
                }
                List<FrontendMessage> next = new java.util.ArrayList<>(heldBack);
                heldBack.clear();
                if (!runOnLoop(next)) {
                    inbox.addAll(next);
                }
            }
        } finally {
            draining = false;
        }
    }

    /** Called on the event loop when the client's connection closed. */
    public void clientGone() {
        backend.cancel();
        if (loopRun != null) {
            heldBack.add(SessionInbox.CLIENT_GONE);
            loopRun.writabilityChanged(); // its answer is read to the end (nobody takes it), not left paused
            return;
        }
        inbox.add(SessionInbox.CLIENT_GONE);
    }

    /**
     * Runs Bind, Describe of its portal (optional), Execute, Sync on the event loop when the session's thread is idle
     * and the statement is one the loop may run itself ({@link ExtendedProtocol#onLoop}); false, with nothing done, when not.
     */
    private boolean runOnLoop(List<FrontendMessage> messages) {
        int size = messages.size();
        if (size == 1 && messages.get(0) instanceof Query query) {
            return queryOnLoop(query.sql(), messages);
        }
        if ((size != 3 && size != 4) || !(messages.get(0) instanceof Bind bind) || !(messages.get(size - 1) instanceof Sync)
                || !(messages.get(size - 2) instanceof Execute execute) || !execute.portal().equals(bind.portal())) {
            return false;
        }
        boolean describe = size == 4;
        if (describe && !(messages.get(1) instanceof Describe d && d.kind() == 'P' && d.name().equals(bind.portal()))) {
            return false;
        }
        if (!idleForLoop()) {
            return false;
        }
        LoopRun run = extended.onLoop(bind, describe, execute.maxRows(), sink, channel, loopRunEnd);
        if (run == null) {
            return false;
        }
        start(run, messages);
        return true;
    }

    /** A simple query of one statement, run on the event loop when the statement is one it may run itself. */
    private boolean queryOnLoop(String sql, List<FrontendMessage> messages) {
        if (!idleForLoop() || !simpleQuery.mayRunOnLoop(sql)) {
            return false;
        }
        io.ashlar.backend.session.LoopStatement statement = backend.loopQuery(sql);
        if (statement == null) {
            return false;
        }
        extended.dropUnnamed();
        start(LoopRun.query(statement, out, extended, sink, channel, loopRunEnd), messages);
        return true;
    }

    /**
     * Whether the session's thread waits for the client's next message with nothing of the last request left (it ran
     * one before: a session starts on its thread), outside a failed transaction block.
     */
    private boolean idleForLoop() {
        // (Not while the session's thread's last output is queued to the loop: the loop's would pass it.)
        return !closed && !working && inbox.started() && inbox.isEmpty() && lastStatus != 'E' && !extended.skipping()
                && !out.flushQueued();
    }

    /**
     * Starts a pipeline on the loop. Its messages never reach the inbox: the large ones among them are no longer counted
     * against the proxy's message memory from here, as the session's thread stops counting a message it took.
     */
    private void start(LoopRun run, List<FrontendMessage> messages) {
        for (FrontendMessage each : messages) {
            inbox.done(each);
        }
        if ((counters != null || statementLog != null) && requestStarted == 0) {
            requestStarted = System.nanoTime();
        }
        loopRun = run;
        loopRunning = true;
        if (counters != null) {
            counters.ranOnLoop(); // (before: a statement answered at once has its ReadyForQuery sent within start)
        }
        if (!run.start()) {
            loopRunEnded(run, true);
        }
    }

    /** The pipeline the loop ran is over: the Sync's part (a simple query's end), then what the client sent meanwhile. */
    private void loopRunEnded(LoopRun run, boolean failed) {
        if (loopRun != run) {
            return;
        }
        loopRun = null;
        loopRunning = false;
        if (run.simple()) {
            cursors.afterTransactionStep(failed, out.lastTag());
            readyForQuery();
        } else {
            sync();
        }
        if (stopDeferred) {
            stopDeferred = false;
            inbox.askStop();
        }
        if (asyncDeferred) {
            asyncDeferred = false;
            inbox.signalAsync();
        }
        if (!heldBack.isEmpty() && !draining) {
            drainHeldBack();
        }
    }

    /** Cancels the statement running now (CancelRequest from the client). */
    @Override
    public void cancel() {
        backend.cancel();
    }

    public void writabilityChanged() {
        LoopRun run = loopRun;
        if (run != null) {
            run.writabilityChanged();
        }
        out.writabilityChanged();
    }

    /** The session's thread: takes messages in order until the session ends. */
    private void loop() {
        while (!closed) {
            FrontendMessage message = inbox.takeOrStop();
            working = true;
            try {
                handle(message);
            } catch (RuntimeException e) {
                LOG.error("session {}: unexpected failure handling {}", processId, message.getClass().getSimpleName(), e);
                out.error(ErrorFields.error("XX000", "internal error in Ashlar: " + e));
                afterFailure(message);
            } catch (StackOverflowError e) {
                // kernel-parser refuses statements nested deeper than it reads (54001 with its hint); a
                // stack that overflows anyway fails the message as PostgreSQL's check_stack_depth fails
                // a statement, and the session goes on: nothing ends it without a word.
                LOG.warn("session {}: stack overflow handling {}", processId, message.getClass().getSimpleName());
                out.error(ErrorFields.error("54001", "stack depth limit exceeded",
                        "The statement is nested too deeply for Ashlar: simplify it."));
                afterFailure(message);
            } catch (Throwable e) {
                SessionFailure.end(processId, message, e, backend, out, channel);
                close();
            } finally {
                working = false;
                inbox.done(message);
            }
        }
    }

    /** After an error no part of the session answered: ReadyForQuery for a query, else the skip to Sync. */
    private void afterFailure(FrontendMessage message) {
        if (closed) {
            return;
        }
        if (message instanceof Query) {
            readyForQuery();
        } else {
            extended.skipToSync();
        }
    }

    /**
     * Whether the session is between statements outside a transaction, with nothing queued: a
     * proxy that stops may close it without losing anything (called from another thread).
     */
    @Override
    public boolean isQuiet() {
        return !working && !loopRunning && inbox.isEmpty() && lastStatus == 'I';
    }

    /**
     * The session's thread ends the session, when it is quiet: its writes to the client are queued to the event loop
     * as it makes them, so an end written by the loop itself could go out before the session's last answer.
     */
    @Override
    public void endIfQuiet(Runnable end) {
        if (!inbox.started()) {
            // It never ran: nothing of it can be on its way to the client.
            if (isQuiet()) {
                end.run();
            }
            return;
        }
        stopEnd = end;
        inbox.askStop();
    }

    private void handle(FrontendMessage message) {
        if (closed) {
            return;
        }
        if (message == SessionInbox.CLIENT_GONE) {
            close();
            return;
        }
        if (loopRun != null && (message == SessionInbox.STOP || message == SessionInbox.BACKEND_ASYNC)) {
            // The loop runs a pipeline of the session's (the session's thread runs on the same loop, between its steps):
            // the signal is given again when it ends.
            stopDeferred |= message == SessionInbox.STOP;
            asyncDeferred |= message == SessionInbox.BACKEND_ASYNC;
            return;
        }
        if (message == SessionInbox.STOP) {
            Runnable end = stopEnd;
            if (end != null && lastStatus == 'I' && inbox.isEmpty()) { // isQuiet(), seen from the session's own thread
                // Written from this thread, the FATAL goes behind everything the session sent before it (its last
                // answer, a COMMIT's): written on the loop, it could pass that answer, which the client then never saw.
                out.flush();
                end.run();
                close();
            }
            return;
        }
        if (message == SessionInbox.BACKEND_ASYNC) {
            relayAsync();
            return;
        }
        if (extended.skipping() && !(message instanceof Sync) && !(message instanceof Terminate)
                && !(message instanceof FrontendMessage.Malformed m && (m.fatal() || m.type() == Sync.TYPE))) {
            // PostgreSQL reads no message's body while it skips to Sync; broken framing and Sync it still sees.
            return;
        }
        if ((counters != null || statementLog != null) && requestStarted == 0) {
            requestStarted = System.nanoTime();
        }
        switch (message) {
            case Query q -> simpleQuery(q.sql());
            case Parse p -> extended.parse(p);
            case Bind b -> extended.bind(b);
            case Describe d -> extended.describe(d);
            case Execute e -> extended.execute(e);
            case Close c -> extended.close(c);
            case Sync s -> sync();
            case Flush f -> out.flush();
            case Terminate t -> {
                close();
                ClientChannels.closeAfterWrites(channel);
            }
            case CopyData d -> { }
            case CopyDone d -> { }
            case CopyFail f -> { }
            case FunctionCall f -> {
                // A function call stands alone, as a simple query does: its error ends with
                // ReadyForQuery (no Sync comes; pgjdbc's large objects waited for ever).
                backend.abortTransaction();
                out.error(io.ashlar.frontend.relay.RelaySession.FUNCTION_CALL_REFUSED);
                readyForQuery();
            }
            case BatchBind b -> extended.batchBind(b);
            case FrontendMessage.Malformed m when !m.fatal() -> refused(m.type(), extended.malformed(m));
            case FrontendMessage.TooLarge t -> refused(t.type(), MessageRefusals.error(t));
            case FrontendMessage.Malformed m -> {
                out.error(ErrorFields.of(ErrorFields.FATAL, m.sqlState(), m.reason()));
                out.flush();
                close();
                ClientChannels.closeAfterWrites(channel);
            }
            default -> {
                out.error(ErrorFields.of(ErrorFields.FATAL, "08P01",
                        "unexpected message " + message.getClass().getSimpleName() + " after startup"));
                out.flush();
                close();
                ClientChannels.closeAfterWrites(channel);
            }
        }
    }

    /**
     * A message PostgreSQL refuses before running anything of it (its body does not read, or it was
     * too large to keep): the ERROR at its place, then what PostgreSQL does after an error in a
     * message of its type.
     */
    private void refused(byte type, ErrorFields error) {
        switch (AfterError.of(type)) {
            case SKIP_TO_SYNC -> extended.fail(error);
            case READY_FOR_QUERY, SYNC -> {
                // The error ends the transaction it fell in (an implicit one rolls back, a block fails), then ReadyForQuery.
                extended.fail(error);
                sync();
            }
            case NOTHING -> { }
        }
    }

    /**
     * A message that has no place where it came (in a COPY): PostgreSQL raised its ERROR before
     * reading the message's body, so it cannot find the next message and ends the session.
     */
    private void lostSync() {
        out.error(ErrorFields.of(ErrorFields.FATAL, "08P01", "terminating connection because protocol synchronization was lost"));
        out.flush();
        close();
        ClientChannels.closeAfterWrites(channel);
    }

    private void simpleQuery(String sql) {
        extended.dropUnnamed();
        DeallocateStatement deallocate = Deallocation.of(sql);
        if (deallocate != null && deallocate.name().isPresent() && backend.transactionStatus() != 'E'
                && extended.deallocate(deallocate.name().get())) {
            // The client's protocol statement, which no backend holds under that name (Deallocation).
            out.write(new CommandComplete("DEALLOCATE"));
            readyForQuery();
            return;
        }
        String tagBefore = out.lastTag();
        boolean failed = simpleQuery.run(sql);
        if (!failed && out.lastTag() != tagBefore) { // a tag of this query's (the last one stays until another comes)
            extended.droppedStatements(out.lastTag());
        }
        cursors.afterTransactionStep(failed, out.lastTag());
        readyForQuery();
    }

    private void sync() {
        boolean failed = extended.sync();
        cursors.afterTransactionStep(failed, out.lastTag());
        readyForQuery();
    }

    private void readyForQuery() {
        if (closed) {
            return; // a FATAL ended the session in the middle of the query (a COPY that lost its place)
        }
        char status = backend.transactionStatus();
        lastStatus = status;
        if (requestStarted != 0) {
            long elapsed = System.nanoTime() - requestStarted;
            requestStarted = 0;
            if (counters != null) {
                counters.requestEnded(elapsed, status);
            }
            if (statementLog != null && statementLog.slow(elapsed)) {
                int zero = who.indexOf('\u0000');
                String last = backend.lastStatement();
                statementLog.slow(who.substring(0, zero), who.substring(zero + 1), elapsed,
                        last.isEmpty() ? "no statement routed (answered by the session, or the catalog database)" : last);
            }
        }
        if (status == 'I') {
            // Notifications the kept connections got during the statements (their own NOTIFY at the commit, or one
            // that came while a block ran) go out before the ReadyForQuery, where PostgreSQL delivers them.
            backend.relayAsync(sink);
        }
        io.ashlar.backend.execute.ClientEncoding encoding = backend.clientEncoding();
        if (encoding != null && encoding.charset() != out.text()) {
            // A SET client_encoding that its transaction's ROLLBACK undid (the session read its settings back, telling
            // no one): output, input and the client follow the encoding the connections have again.
            encodingChanged(encoding);
            sink.parameterStatus("client_encoding", encoding.name());
        }
        sink.reportSettings();
        out.write(ReadyForQuery.of(status));
        out.flush();
    }

    /**
     * Passes on what a kept backend connection received of itself (a notification) while the session waits: at once
     * outside a transaction; inside one, the ReadyForQuery that ends it passes it on (where PostgreSQL delivers a
     * notification that came during a transaction).
     */
    private void relayAsync() {
        if (backend.transactionStatus() != 'I' || backend.inImplicitTransaction()) {
            return;
        }
        backend.relayAsync(sink);
        out.flush();
    }

    private void close() {
        if (closed) {
            return;
        }
        closed = true;
        out.discard();
        extended.close();
        try {
            backend.close();
        } finally {
            onClose.run();
        }
    }
}
