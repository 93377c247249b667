package io.ashlar.frontend.relay;

import io.ashlar.backend.execute.CommandTags;
import io.ashlar.backend.execute.ErrorFields;
import io.ashlar.backend.pg.LinkPool;
import io.ashlar.backend.pg.ServerLink;
import io.ashlar.backend.session.SessionSettings;
import io.ashlar.frontend.relay.ClientStatements.ClientStatement;
import io.ashlar.frontend.relay.ExpectedAnswers.Expect;
import io.ashlar.frontend.relay.ExpectedAnswers.Kind;
import io.ashlar.frontend.server.ClientChannels;
import io.ashlar.frontend.server.ClientSession;
import io.ashlar.frontend.server.MessageRefusals;
import io.ashlar.frontend.session.Deallocation;
import io.ashlar.parser.SqlText;
import io.ashlar.parser.statement.DeallocateStatement;
import io.ashlar.protocol.AfterError;
import io.ashlar.protocol.BatchBind;
import io.ashlar.protocol.Bind;
import io.ashlar.protocol.Close;
import io.ashlar.protocol.CloseComplete;
import io.ashlar.protocol.CommandComplete;
import io.ashlar.protocol.CopyData;
import io.ashlar.protocol.CopyDone;
import io.ashlar.protocol.CopyFail;
import io.ashlar.protocol.Describe;
import io.ashlar.protocol.ErrorResponse;
import io.ashlar.protocol.Execute;
import io.ashlar.protocol.Flush;
import io.ashlar.protocol.FrontendMessage;
import io.ashlar.protocol.FunctionCall;
import io.ashlar.protocol.Parse;
import io.ashlar.protocol.Query;
import io.ashlar.protocol.ReadyForQuery;
import io.ashlar.protocol.Sync;
import io.ashlar.protocol.Terminate;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;

/**
 * A client session of a logical database without rules (a pooler), relayed to its data source
 * over native connections on the client's own event loop: no thread of its own, no thread
 * crossed by a statement, and the backend's answers passed on as the backend sent them (rows are
 * never decoded). A connection is borrowed for each statement, or for a transaction, and goes back
 * to the pool at the ReadyForQuery that ends it, unless the session made state only that
 * connection holds (a temporary table, SQL PREPARE, LISTEN, a cursor, a session advisory lock),
 * which keeps it until the session ends.
 *
 * <p>Statement-level pooling stays invisible: the client's named statements are the session's,
 * each prepared under a name of the proxy's own on whatever connection runs it (once per
 * connection, and shared by sessions that prepare the same text: {@link ClientStatements}); the
 * session's settings are read back from the backend when they change and given to the next
 * connection first; ParameterStatus reaches the client only when a value differs from what it was
 * told ({@link SettingsSync}).
 *
 * <p>What the backend will answer is tracked in {@link ExpectedAnswers}, one entry per message
 * that gets an answer, in order; after an error the backend skips to Sync, and so do the entries.
 *
 * <p>The session is the state machine that joins these: it takes the client's messages (what
 * waits for a connection, a running query, the skip to Sync after an error, COPY, malformed
 * input), borrows and gives back connections, and follows the backend's answers. What it sends the
 * client goes through {@link ClientOutput}; its requests are timed and logged by {@link RequestLog}.
 *
 * <p>Everything runs on the client channel's event loop.
 *
 * @see <a href="https://www.postgresql.org/docs/current/protocol-flow.html">Message Flow</a>
 */
public final class RelaySession implements ServerLink.Receiver, LinkPool.Borrower, ClientSession {

    /**
     * A FunctionCall message's answer: pgjdbc's large objects (its LargeObjectManager; Blob, Clob and Hibernate's
     * {@code @Lob} on oid columns) are what sends it.
     */
    public static final ErrorFields FUNCTION_CALL_REFUSED = ErrorFields.error("0A000",
            "the function call protocol is not supported by Ashlar",
            "Call the function with SELECT. pgjdbc's large objects (LargeObjectManager, Blob and Clob over oid columns) use it:"
                    + " keep such values in bytea or text columns.");

    private static final byte[] CLOSE_COMPLETE = bytes(CloseComplete.INSTANCE);

    private final Channel client;
    private final ClientOutput output;
    private final LinkPool.LoopPool pool;
    private final int processId;
    private final Runnable onClose;
    private final SettingsSync settings;
    private final RequestLog requests;

    private ServerLink link;
    private boolean acquiring;
    private final ArrayDeque<FrontendMessage> waiting = new ArrayDeque<>();
    private final ExpectedAnswers expected = new ExpectedAnswers();

    private final ClientStatements statements = new ClientStatements(expected);
    /** After an error in the extended protocol: client messages are dropped up to Sync, as the backend drops them. */
    private boolean skipping;
    /** Malformed input after messages still being answered: the session ends once they are. */
    private FrontendMessage.Malformed malformedLast;
    /** A message waits at the head of {@link #waiting} for the answers to Parses before it ({@link ClientStatements#waitsForParses}). */
    private boolean deferred;
    /** A connection error with no backend to report it: answered by the proxy up to the next Sync. */
    private ErrorFields pendingFailure;
    private boolean pinned;
    private boolean closed;
    /** Within the handling of one read from the client (its end flushes what was written to the backend). */
    private boolean inClientRead;
    /** A client's simple query runs: its next messages wait (see {@link #query}). */
    private boolean queryRunning;
    /** The status of a client's ReadyForQuery held back while the proxy reads the session's settings back. */
    private char heldReady;
    /** Closed, but the proxy's own statements still run on the held connection: it goes back when they are done. */
    private boolean draining;
    private char lastStatus = 'I';
    /**
     * The backend runs a COPY FROM STDIN of an Execute: until the client's CopyDone or CopyFail
     * it ignores Sync (the protocol says so; libpq sends one right after the Execute), so those
     * Syncs get no ReadyForQuery to wait for.
     */
    private boolean copyIn;
    /** The client ended a COPY's data (CopyDone or CopyFail) since its last Execute. */
    private boolean copyEnded;
    /**
     * Extended-protocol messages reached the backend since the client's last Sync: the backend may
     * hold an implicit transaction open, or skip to a Sync after an error. Such a connection is
     * closed, not pooled, if the client leaves now.
     */
    private boolean unsynced;
    /** The backend's own FATAL reached the client: the end of the connection says nothing more. */
    private boolean fatalRelayed;
    /** The proxy's admin commands, or null where the session has none (tests that make sessions alone). */
    private io.ashlar.frontend.admin.AdminConsole admin;

    /**
     * @param pool the data source's connections of the client channel's event loop
     * @param startupSettings what the client's startup packet set, given to every connection the session uses
     */
    public RelaySession(Channel client, LinkPool.LoopPool pool, SessionSettings startupSettings, int processId,
                        Runnable onClose) {
        this.client = client;
        this.output = new ClientOutput(client);
        this.settings = new SettingsSync(startupSettings, expected, output);
        this.pool = pool;
        this.requests = new RequestLog(pool);
        this.processId = processId;
        this.onClose = onClose;
    }

    private static byte[] bytes(io.ashlar.protocol.BackendMessage message) {
        ByteBuf buf = io.netty.buffer.Unpooled.buffer();
        message.encode(buf);
        byte[] result = new byte[buf.readableBytes()];
        buf.readBytes(result);
        return result;
    }

    @Override
    public int processId() {
        return processId;
    }

    /** Counts what the session does (before its first message); {@code metrics} null: nothing is counted. */
    public void metrics(io.ashlar.backend.metrics.DatabaseMetrics metrics, io.ashlar.backend.metrics.SessionCounters counters) {
        requests.counters(counters);
        output.metrics(metrics, counters);
    }

    /** Logs statements (sql-show) and slow requests (before its first message); {@code log} null: none. */
    public void statementLog(io.ashlar.backend.metrics.StatementLog log, String database) {
        requests.statementLog(log, database);
    }

    /** Lets the session answer the proxy's admin commands (before its first message). */
    public void admin(io.ashlar.frontend.admin.AdminConsole console) {
        this.admin = console;
    }

    /** Remembers a value the client was told at login, so that later changes are reported once. */
    public void reported(String name, String value) {
        settings.reported(name, value);
    }

    // ------------------------------------------------------------------ client side

    /** One message from the client (on its event loop). */
    public void handle(FrontendMessage message) {
        if (closed || malformedLast != null) {
            return;
        }
        inClientRead = true;
        requests.message();
        if (message instanceof Terminate) {
            close();
            ClientChannels.closeAfterWrites(client);
            return;
        }
        if (message instanceof FrontendMessage.Malformed malformed && malformed.fatal() && waiting.isEmpty() && !queryRunning) {
            endWith(malformed);
            return;
        }
        if (queryRunning && link != null && waiting.isEmpty()
                && (message instanceof CopyData || message instanceof CopyDone || message instanceof CopyFail
                || AfterError.of(refusedType(message)) == AfterError.NOTHING)) {
            forward(message); // the running query is a COPY FROM STDIN: its data goes on at once
            return;
        }
        if (message instanceof Query query && (admin != null && answeredByProxy(query) || deallocatedByProxy(query))) {
            return;
        }
        if (link == null || !waiting.isEmpty() || queryRunning) {
            waiting.addLast(message);
            if (!acquiring && link == null) {
                acquiring = true;
                pool.acquire(this);
            }
            return;
        }
        forward(message);
    }

    /**
     * A simple query's COPY FROM STDIN started: the data the client sent with it without waiting
     * for CopyInResponse (pgx does) waited behind the query while the session had no connection yet.
     */
    private void copyDataGoesOn() {
        FrontendMessage next = waiting.peekFirst();
        while (next instanceof CopyData || next instanceof CopyDone || next instanceof CopyFail) {
            forward(waiting.pollFirst());
            next = waiting.peekFirst();
        }
        link.flush();
    }

    private void endCopy(FrontendMessage end) {
        send(end);
        copyIn = false;
        copyEnded = true;
    }

    /**
     * An Execute's COPY FROM STDIN started: the Syncs the client sent after the Execute and before
     * any CopyDone reached a backend that ignores them (libpq sends Execute, Sync, then the data,
     * CopyDone and another Sync), and so will those it sends until its CopyDone or CopyFail.
     */
    private void copyInStarted(Expect head) {
        expected.copyInStarted(head);
        copyIn = !copyEnded;
    }

    /**
     * Broken framing, in its place in the stream (messages waiting behind a running query go to
     * the backend first): the FATAL once what came before it is answered, as PostgreSQL answers a
     * stream in order (a Flush makes the backend send what it holds for a Sync that will not come).
     */
    private void endWith(FrontendMessage.Malformed malformed) {
        if (link != null && !expected.isEmpty() || acquiring) {
            malformedLast = malformed;
            if (link != null) {
                send(Flush.INSTANCE);
                link.flush();
            }
            return;
        }
        rejectMalformed(malformed);
    }

    private void rejectMalformed(FrontendMessage.Malformed malformed) {
        output.write(ErrorResponse.fatal(malformed));
        output.flush(link);
        close();
        ClientChannels.closeAfterWrites(client);
    }

    /** The end of one read from the client: what was written to the backend goes out in one write. */
    public void readComplete() {
        inClientRead = false;
        if (link != null) {
            link.flush();
        }
        output.flush(link);
    }

    private void forward(FrontendMessage message) {
        if (message instanceof FrontendMessage.Malformed malformed && malformed.fatal()) {
            endWith(malformed);
            return;
        }
        if (pendingFailure != null) {
            failWithoutBackend(message);
            return;
        }
        if (skipping && !(message instanceof Sync) && !(message instanceof FrontendMessage.Malformed m && m.type() == Sync.TYPE)) {
            return;
        }
        if (statements.waitsForParses(message)) {
            deferred = true;
            waiting.addFirst(message);
            send(Flush.INSTANCE); // the backend answers what it holds for the Sync not sent yet
            return;
        }
        switch (message) {
            case Query q -> query(q);
            case Parse p -> {
                unsynced = true;
                parse(p);
            }
            case Bind b -> {
                unsynced = true;
                bind(b);
            }
            case Describe d -> {
                unsynced = true;
                describe(d);
            }
            case Execute e -> {
                unsynced = true;
                send(e);
                expected.add(Expect.EXECUTE);
                copyEnded = false;
            }
            case Close c -> {
                unsynced = true;
                close(c);
            }
            case Sync s -> {
                skipping = false;
                unsynced = false;
                send(s);
                if (!copyIn) {
                    expected.add(copyEnded ? Expect.SYNC_AFTER_COPY : Expect.SYNC);
                }
            }
            case Flush f -> send(f);
            case CopyData d -> send(d);
            case CopyDone d -> endCopy(d);
            case CopyFail f -> endCopy(f);
            case FunctionCall f -> raise(FUNCTION_CALL_REFUSED, true);
            case BatchBind b -> raise(ErrorFields.error("08P01", "batch bind is an openGauss message"), false);
            case FrontendMessage.Malformed m -> forwardMalformed(m);
            case FrontendMessage.TooLarge t -> refuse(t);
            default -> raise(ErrorFields.error("08P01", "unexpected message " + message.getClass().getSimpleName()), false);
        }
    }

    // ------------------------------------------------------------------ malformed input

    /** The type of a message refused before it runs (malformed body, too large), or 0 for any other message. */
    private static byte refusedType(FrontendMessage message) {
        return message instanceof FrontendMessage.Malformed m ? m.type()
                : message instanceof FrontendMessage.TooLarge t ? t.type() : 0;
    }

    /**
     * A message whose body does not read goes to the backend as the client sent it, so that
     * PostgreSQL judges it and answers as it answers a direct client: its ERROR, then the skip to
     * Sync, or ReadyForQuery. A Bind goes naming the connection's own statement (PostgreSQL looks
     * the statement up before it reads the format codes and values).
     */
    private void forwardMalformed(FrontendMessage.Malformed malformed) {
        switch (AfterError.of(malformed.type())) {
            case READY_FOR_QUERY -> {
                send(malformed);
                expected.add(Expect.QUERY);
                queryRunning = true;
            }
            case SYNC -> {
                skipping = false;
                unsynced = false;
                send(malformed);
                if (!copyIn) {
                    expected.add(copyEnded ? Expect.SYNC_AFTER_COPY : Expect.SYNC);
                }
            }
            case NOTHING -> {
                if (malformed.type() == CopyFail.TYPE) {
                    endCopy(malformed); // a CopyFail that does not read fails the COPY with 08P01, outside one nothing
                } else {
                    send(malformed);
                }
            }
            case SKIP_TO_SYNC -> {
                unsynced = true;
                if (malformed.type() == Bind.TYPE) {
                    String statement = Bind.statementOf(malformed.frame(), StandardCharsets.ISO_8859_1);
                    if (statement != null) {
                        if (statement.isEmpty() && statements.unnamed() == null) {
                            raise(ErrorFields.error("26000", "unnamed prepared statement does not exist"), false);
                            return;
                        }
                        byte[] renamed = Bind.renamedFrame(malformed.frame(), statements.serverName(statement, link), StandardCharsets.ISO_8859_1);
                        send(FrontendMessage.Malformed.body(malformed.type(), malformed.reason(), renamed));
                        expected.add(Expect.MALFORMED);
                        skipping = true; // the backend refuses it, as the decoder did, and skips to Sync
                        return;
                    }
                }
                send(malformed);
                expected.add(Expect.MALFORMED);
                skipping = true;
            }
        }
    }

    /**
     * A message too large to keep (its bytes were dropped): its ERROR raised by the backend at its
     * place, so that the backend fails the transaction and skips to Sync as PostgreSQL would. CopyData
     * in a COPY fails the COPY with a CopyFail (the backend then answers 57014, not 53200).
     */
    private void refuse(FrontendMessage.TooLarge refusal) {
        switch (AfterError.of(refusal.type())) {
            case READY_FOR_QUERY -> raise(MessageRefusals.error(refusal), true);
            case NOTHING -> {
                if (refusal.type() == CopyData.TYPE && (copyIn || queryRunning)) {
                    endCopy(new CopyFail(FrontendMessage.TooLarge.MESSAGE + ": " + refusal.detail()));
                }
            }
            default -> {
                unsynced = true;
                raise(MessageRefusals.error(refusal), false);
            }
        }
    }

    /**
     * Answers an admin command itself when nothing the client sent before is still being answered (its answer
     * would overtake theirs otherwise: such a command goes to the backend, which refuses it). A command that fails
     * in a transaction block fails the block, as it would on PostgreSQL: the backend is made to raise the error.
     */
    private boolean answeredByProxy(Query query) {
        if (!waiting.isEmpty() || queryRunning || !expected.isEmpty() || skipping || pendingFailure != null
                || !io.ashlar.frontend.admin.AdminCommand.mayBe(query.sql())) {
            return false;
        }
        io.ashlar.frontend.admin.AdminAnswer answer = admin.answer(query.sql());
        if (answer == null) {
            return false;
        }
        char status = link == null ? 'I' : link.status();
        if (answer.error() != null && status != 'I') {
            raise(answer.error(), true);
            queryRunning = true;
            link.flush();
            return true;
        }
        if (answer.error() != null) {
            output.error(answer.error());
        } else {
            for (io.ashlar.protocol.BackendMessage each : answer.messages()) {
                output.write(each);
            }
        }
        output.write(ReadyForQuery.of(status));
        requests.ended(status, settings.loginUser());
        output.flush(link);
        return true;
    }

    /**
     * SQL DEALLOCATE of a statement the client parsed ({@link Deallocation}; the backend knows it under another name, if
     * at all): the session forgets it and answers itself, when nothing the client sent before is still being answered.
     * In a failed transaction the backend answers (25P02), as PostgreSQL does.
     */
    private boolean deallocatedByProxy(Query query) {
        if (!waiting.isEmpty() || queryRunning || !expected.isEmpty() || skipping || pendingFailure != null) {
            return false;
        }
        DeallocateStatement deallocate = Deallocation.of(query.sql());
        if (deallocate == null || deallocate.name().isEmpty()) {
            return false;
        }
        char status = link == null ? 'I' : link.status();
        if (status == 'E' || !statements.close(deallocate.name().get())) {
            return false;
        }
        requests.shown(query.sql());
        output.write(new CommandComplete("DEALLOCATE"));
        output.write(ReadyForQuery.of(status));
        requests.ended(status, settings.loginUser());
        output.flush(link);
        return true;
    }

    private void query(Query query) {
        requests.shown(query.sql());
        CommandTags.Effect effect = CommandTags.textEffect(query.sql());
        note(effect, CommandTags.mentionsTemporary(query.sql()));
        // A simple query destroys the unnamed statement, as PostgreSQL does.
        statements.dropUnnamed();
        send(query);
        expected.add(Expect.QUERY);
        // What the client sends next waits for this query's ReadyForQuery: a query that changes
        // settings is followed by their read-back (and a RESET by the startup values), which the
        // next statement must find done, as on PostgreSQL.
        queryRunning = true;
    }

    /**
     * What a statement (its text, or its tag) does to the session: state only its connection holds
     * (or a temporary table) pins the connection; changed settings are read back once it is done.
     */
    private void note(CommandTags.Effect effect, boolean temporary) {
        if (effect == CommandTags.Effect.SESSION_STATE || temporary) {
            pinned = true;
        } else if (effect == CommandTags.Effect.SETTINGS) {
            settings.markChanged();
        }
    }

    private void parse(Parse parse) {
        if (!statements.parse(parse, link)) {
            raise(ErrorFields.error("42P05", "prepared statement \"" + parse.statementName() + "\" already exists"), false);
        }
    }

    private void bind(Bind bind) {
        ClientStatement statement = bind.statement().isEmpty() ? statements.unnamed() : statements.named(bind.statement());
        if (bind.statement().isEmpty() && statements.unnamed() == null) {
            raise(ErrorFields.error("26000", "unnamed prepared statement does not exist"), false);
            return;
        }
        if (statement != null) {
            note(statement.effect(), statement.temporary());
            requests.shown(statement.parse().sql());
        }
        String server = statements.serverName(bind.statement(), link);
        bind.encode(link.out(), StandardCharsets.ISO_8859_1, server);
        expected.add(statement != null && !bind.statement().isEmpty() ? statement.bindExpect() : Expect.BIND);
    }

    private void describe(Describe describe) {
        if (describe.kind() == 'P') {
            send(describe);
            expected.add(Expect.DESCRIBE_PORTAL);
            return;
        }
        if (describe.name().isEmpty() && statements.unnamed() == null) {
            raise(ErrorFields.error("26000", "unnamed prepared statement does not exist"), false);
            return;
        }
        String server = statements.serverName(describe.name(), link);
        send(server.equals(describe.name()) ? describe : new Describe((byte) 'S', server));
        ClientStatement statement = describe.name().isEmpty() ? null : statements.named(describe.name());
        expected.add(statement != null ? statement.describeExpect() : Expect.DESCRIBE_STATEMENT);
    }

    private void close(Close close) {
        if (close.kind() == 'S' && !close.name().isEmpty() && statements.close(close.name())) {
            // The connection keeps it prepared for whoever runs the same text; the session forgets it.
            // (A name the session does not know may be its SQL PREPARE's, on its pinned connection:
            // that Close goes to the backend.)
            synthesize(CLOSE_COMPLETE);
            return;
        }
        if (close.kind() == 'S' && close.name().isEmpty()) {
            statements.dropUnnamed();
        }
        send(close);
        expected.add(Expect.CLOSE);
    }

    /** A message the proxy answers itself, sent once the backend's answers before it have been. */
    private void synthesize(byte[] bytes) {
        if (expected.isEmpty()) {
            output.buffer().writeBytes(bytes);
        } else {
            expected.add(new Expect(Kind.SYNTHETIC, true, null, bytes));
        }
    }

    /**
     * An error of the proxy's own in the extended protocol (or a simple query): raised by the
     * backend itself with a DO block at the message's place, so that the client gets it where
     * PostgreSQL would send it and the backend skips to Sync and fails the transaction as for any
     * error.
     */
    private void raise(ErrorFields error, boolean simple) {
        String sql = "DO $ashlar$BEGIN RAISE EXCEPTION USING ERRCODE = '" + error.sqlState() + "', MESSAGE = "
                + SqlText.literal(error.message()) + (error.field('D').isEmpty() ? "" : ", DETAIL = " + SqlText.literal(error.field('D')))
                + (error.field('H') == null || error.field('H').isEmpty() ? ""
                : ", HINT = " + SqlText.literal(error.field('H')))
                + "; END$ashlar$";
        if (simple) {
            send(new Query(sql));
            expected.add(Expect.RAISE_QUERY);
            return;
        }
        send(new Parse("", sql, new int[0]));
        send(new Bind("", "", new short[0], new byte[0][], new short[0]));
        send(new Execute("", 0));
        expected.add(Expect.RAISE);
        // The DO fails: the backend skips to Sync, and so does the session now, so that nothing the
        // client sent before its Sync is taken for run (nor a statement of it for prepared).
        skipping = true;
        // The DO replaced the unnamed statement on this connection.
        statements.unnamedReplaced();
    }

    /**
     * Appends a message for {@code link}. The client's text was read byte for byte
     * (ISO-8859-1, see {@link io.ashlar.protocol.PgFrontendDecoder#textCharset}) and goes on so: the
     * backend gets the bytes the client sent, in whatever client_encoding the session has.
     */
    static void send(ServerLink link, FrontendMessage message) {
        link.write(message, StandardCharsets.ISO_8859_1);
    }

    /** Appends a message for the held connection, as {@link #send(ServerLink, FrontendMessage)}. */
    private void send(FrontendMessage message) {
        send(link, message);
    }

    // ------------------------------------------------------------------ connections

    @Override
    public void acquired(ServerLink acquired) {
        acquiring = false;
        if (closed) {
            pool.release(acquired);
            return;
        }
        link = acquired;
        link.receiver(this);
        settings.give(link);
        drainWaiting();
        if (malformedLast != null) {
            if (expected.isEmpty()) {
                rejectMalformed(malformedLast);
                return;
            }
            send(Flush.INSTANCE);
        }
        if (!inClientRead) {
            // Borrowed later than the client's read (a new connection, a wait): nothing else flushes.
            // Within the read, the messages after this one join the same write at its end.
            link.flush();
            output.flush(link);
        }
    }

    @Override
    public void failed(ErrorFields error) {
        acquiring = false;
        if (closed) {
            return;
        }
        pendingFailure = error;
        while (!waiting.isEmpty() && pendingFailure != null) {
            failWithoutBackend(waiting.pollFirst());
        }
        output.flush(link);
        if (!waiting.isEmpty()) {
            // What the client sent after the failed statement waits for a connection of its own.
            acquiring = true;
            pool.acquire(this);
        }
    }

    /**
     * Answers a message with no backend to run it, after a connection could not be had: the
     * error once, then nothing up to Sync (or the end of the simple query), then ReadyForQuery.
     */
    private void failWithoutBackend(FrontendMessage message) {
        ErrorFields error = pendingFailure;
        AfterError after = AfterError.of(refusedType(message));
        if (message instanceof Query || message instanceof Sync || message instanceof FunctionCall
                || (refusedType(message) != 0 && (after == AfterError.READY_FOR_QUERY || after == AfterError.SYNC))) {
            if (error != null && !skipping) {
                output.error(error);
            }
            pendingFailure = null;
            skipping = false;
            output.write(ReadyForQuery.of('I'));
            return;
        }
        if (!skipping) {
            output.error(error);
            skipping = true;
        }
    }

    private void drainWaiting() {
        while (link != null && !waiting.isEmpty() && !closed && !queryRunning && !deferred) {
            forward(waiting.pollFirst());
        }
    }

    // ------------------------------------------------------------------ backend side

    @Override
    public void message(ServerLink from, byte type, ByteBuf buf, int start, int length) {
        switch (type) {
            case 'N' -> {
                Expect head = expected.head();
                if (head == null || head.relay) {
                    output.relay(buf, start, length, link);
                }
                return;
            }
            case 'S' -> {
                // The connection keeps the value; the client hears of changes just before its
                // ReadyForQuery, as PostgreSQL (14 and later) reports them.
                settings.parameterSeen();
                return;
            }
            case 'A' -> {
                output.notification(buf, start + 5, from.backendProcessId(), processId);
                return;
            }
            default -> { }
        }
        Expect head = expected.head();
        if (output.counts() && head != null && head.relay && (type == 'C' || type == 'E')) {
            output.countRelayed(type, buf, start, length);
        }
        if (head == null) {
            // Nothing awaited (a backend that ends the connection says so with a FATAL error): the
            // client gets it as PostgreSQL's own client would, once, and then the connection ends.
            if (type == 'E') {
                output.relay(buf, start, length, link);
                fatalRelayed = true;
            }
            return;
        }
        if (type == 'E') {
            error(head, buf, start, length);
            if (malformedLast != null && expected.isEmpty()) {
                rejectMalformed(malformedLast);
                return;
            }
            resumeDeferred();
            if (!queryRunning && !waiting.isEmpty() && link != null) {
                drainWaiting();
                link.flush();
            }
            return;
        }
        boolean done;
        switch (head.kind) {
            case PARSE -> done = type == '1';
            case BIND -> done = type == '2';
            case DESCRIBE_STATEMENT -> done = type == 'T' || type == 'n';
            case DESCRIBE_PORTAL -> done = type == 'T' || type == 'n';
            case EXECUTE -> {
                done = type == 'C' || type == 'I' || type == 's';
                if (type == 'C') {
                    tag(buf, start + 5, start + length - 1);
                } else if (type == 'G') {
                    copyInStarted(head);
                }
            }
            case CLOSE -> done = type == '3';
            case SYNC, QUERY, SILENT_QUERY -> {
                done = type == 'Z';
                if (type == 'C' && head.kind == Kind.QUERY) {
                    tag(buf, start + 5, start + length - 1);
                } else if (type == 'G' && head.kind == Kind.QUERY) {
                    copyDataGoesOn();
                }
            }
            case READ_BACK -> {
                done = type == 'Z';
                if (type == 'D') {
                    settings.readBackRow(buf, start + 5, link.textCharset());
                }
            }
            case RAISE -> done = false; // only its error ends it
            default -> done = false;
        }
        if (head.relay && head.kind != Kind.RAISE && type != 'Z') {
            output.relay(buf, start, length, link);
        }
        if (done) {
            expected.poll();
            if (head.kind == Kind.READ_BACK) {
                settings.readBackDone(link, draining);
            }
            if (draining) {
                if (expected.isEmpty()) {
                    releaseDrained();
                }
                return;
            }
            if (type == 'Z') {
                ready(head);
            }
            emitSynthetic();
            if (malformedLast != null && expected.isEmpty()) {
                rejectMalformed(malformedLast);
            }
            resumeDeferred();
        }
    }

    /** The message deferred by {@link ClientStatements#waitsForParses} goes on once the Parses before it are answered. */
    private void resumeDeferred() {
        if (deferred && link != null && !queryRunning && !waiting.isEmpty() && !statements.waitsForParses(waiting.peekFirst())) {
            deferred = false;
            drainWaiting();
            link.flush();
        }
    }

    /** An ErrorResponse: passed on (but for the proxy's own statements), then the backend skips to Sync. */
    private void error(Expect head, ByteBuf buf, int start, int length) {
        copyIn = false; // a backend that failed a COPY FROM STDIN skips to the next Sync, which it answers
        if (head.key != null && (head.kind == Kind.BIND || head.kind == Kind.DESCRIBE_STATEMENT)
                && ServerLink.isStalePlan(buf, start + 5, start + length)) {
            // Prepared on this connection before DDL changed its result: the next Parse of the text,
            // this session's or another's, prepares it again instead of reusing it.
            link.retire(head.key);
        }
        switch (head.kind) {
            case QUERY, SYNC -> {
                // ReadyForQuery still comes. The proxy's own error goes without the context of the DO that raised it.
                if (head == Expect.RAISE_QUERY) {
                    output.relayWithoutContext(buf, start, length);
                } else {
                    output.relay(buf, start, length, link);
                }
            }
            case SILENT_QUERY, READ_BACK -> link.settings(SessionSettings.UNKNOWN); // state unknown now
            default -> {
                if (head.kind == Kind.RAISE) {
                    output.relayWithoutContext(buf, start, length);
                } else if (head.relay || head.kind == Kind.PARSE) {
                    output.relay(buf, start, length, link);
                }
                skipToSync();
            }
        }
    }

    /** The backend discards everything up to Sync after an error: so go the answers awaited. */
    private void skipToSync() {
        boolean failed = true;
        for (Expect dropped = expected.pollBeforeSync(); dropped != null; dropped = expected.pollBeforeSync()) {
            statements.dropped(dropped, failed, link);
            failed = false;
            if (dropped.kind == Kind.QUERY) {
                // A simple Query sent before the pipeline's Sync: the backend skips it too, and the
                // client's Sync, held back while the query ran, must now go.
                queryRunning = false;
            }
        }
        if (expected.isEmpty()) {
            skipping = true; // the client's Sync has not come yet: what it sends before it is dropped
        }
    }

    private void emitSynthetic() {
        for (byte[] bytes = expected.pollSynthetic(); bytes != null; bytes = expected.pollSynthetic()) {
            output.buffer().writeBytes(bytes);
        }
    }

    /** What a CommandComplete's tag says about the session. */
    private void tag(ByteBuf buf, int from, int to) {
        if (saysNothing(buf, from, to - from)) {
            return;
        }
        String tag = buf.toString(from, Math.max(0, to - from), StandardCharsets.US_ASCII);
        CommandTags.Effect effect = CommandTags.effect(tag);
        if (tag.equals("DISCARD ALL") || tag.equals("DEALLOCATE ALL")) {
            // The backend dropped every prepared statement: the connection's and the session's.
            statements.allDeallocated(link, tag.equals("DISCARD ALL"));
        }
        note(effect, false);
    }

    /**
     * Tags of the statements nearly every transaction runs (SELECT n, INSERT 0 n, UPDATE n, DELETE n,
     * FETCH n, MOVE n, MERGE n, BEGIN, COMMIT, COPY n), which say nothing about the session: known
     * by their first bytes, without making a String of them. Anything else is read in full.
     */
    private static boolean saysNothing(ByteBuf buf, int from, int length) {
        if (length < 3) {
            return false;
        }
        return switch (buf.getByte(from)) {
            case 'S' -> length != 3; // SET is the only S tag of three letters
            case 'I', 'U', 'F', 'M', 'B' -> true;
            case 'D' -> buf.getByte(from + 2) == 'L'; // DELETE, not DISCARD, DO, DECLARE or DEALLOCATE
            case 'C' -> buf.getByte(from + 1) == 'O'; // COMMIT, COPY, not CALL
            default -> false;
        };
    }

    /**
     * A ReadyForQuery, of the client's Sync or query or of the proxy's own statement. The client's
     * is passed on after the parameters that changed are reported; when the statement changed
     * settings and the transaction is over, the settings are read back first (and startup values a
     * RESET took away set again), so that the client, which waits for this ReadyForQuery, next
     * finds the session as PostgreSQL would leave it. Then the connection may go back.
     */
    private void ready(Expect head) {
        char status = link.status();
        if (head.relay) {
            lastStatus = status;
            if (status == 'I' && settings.isChanged() && expected.isEmpty()) {
                // Pinned too: a RESET took the connection back to its own startup values (client_encoding UTF8, the
                // server's TimeZone), and the client's are given again, as PostgreSQL's RESET gives a session its login's.
                heldReady = status;
                settings.readBack(link);
                return;
            }
            settings.report(link);
            output.write(ReadyForQuery.of(status));
            requests.ended(status, settings.loginUser());
            queryRunning = false;
        } else if (heldReady != 0 && (expected.isEmpty() || expected.head().relay)) {
            // The proxy's own statements after a settings change are done: the client's ReadyForQuery goes now.
            settings.report(link);
            output.write(ReadyForQuery.of(heldReady));
            requests.ended(heldReady, settings.loginUser());
            heldReady = 0;
            queryRunning = false;
        }
        if (!queryRunning && !waiting.isEmpty() && link != null) {
            drainWaiting();
            link.flush();
        }
        if (!expected.isEmpty() || !waiting.isEmpty() || pinned || status != 'I' || heldReady != 0) {
            return;
        }
        ServerLink done = link;
        link = null;
        // Other sessions parse their own unnamed statements on it now: this one's is parsed again where it is used next.
        statements.unnamedReplaced();
        pool.release(done);
        // The connection's read-complete no longer reaches this session: what it relayed goes now.
        output.flush(link);
    }

    @Override
    public void readComplete(ServerLink from) {
        output.flush(link);
    }

    @Override
    public void closed(ServerLink from, String reason) {
        if (from != link) {
            return;
        }
        draining = false;
        link = null;
        pool.discard(from);
        boolean busy = !expected.isEmpty() || lastStatus != 'I';
        expected.clear();
        if (closed) {
            return;
        }
        if (busy || pinned) {
            // What the session had there (a transaction, a result half read, state) is gone: as
            // PostgreSQL does when its backend ends, the client is told and disconnected.
            if (!fatalRelayed) {
                output.write(ErrorResponse.fatal("57P01", "the backend connection ended: " + reason));
            }
            output.flush(link);
            close();
            ClientChannels.closeAfterWrites(client);
        }
    }

    /** The client's socket can take more (or not): reading from the backend follows. */
    public void writabilityChanged() {
        output.writabilityChanged(link);
    }

    // ------------------------------------------------------------------ end

    /** The client's connection closed. */
    public void clientGone() {
        close();
    }

    private void close() {
        if (closed) {
            return;
        }
        closed = true;
        waiting.clear();
        output.close();
        ServerLink held = link;
        if (held != null) {
            if (!pinned && !unsynced && held.status() == 'I' && expected.onlyOwnPending()) {
                // Only the proxy's own statements run (settings given or read back): the
                // connection goes back once they are done, carrying settings nobody knows.
                held.settings(SessionSettings.UNKNOWN);
                draining = true;
                if (expected.isEmpty()) {
                    releaseDrained();
                }
            } else {
                link = null;
                held.receiver(null);
                if (!expected.isEmpty()) {
                    held.cancel();
                }
                // A transaction, a running statement or state of this session: the connection goes.
                pool.discard(held);
                expected.clear();
            }
        }
        onClose.run();
    }

    private void releaseDrained() {
        ServerLink held = link;
        link = null;
        draining = false;
        expected.clear();
        if (held != null) {
            pool.release(held);
        }
    }

    @Override
    public void cancel() {
        // Called from the loop of the cancel's own connection: the work is done on the session's,
        // which is also its backend connection's.
        client.eventLoop().execute(() -> {
            if (closed) {
                return;
            }
            if (link == null) {
                // A statement that waits for a connection is cancelled there, as PostgreSQL cancels
                // one that waits for a lock: 57014, and the rest up to Sync skipped.
                if (acquiring && pool.cancelWait(this)) {
                    failed(ErrorFields.error("57014", "canceling statement due to user request"));
                }
            } else if (!expected.isEmpty()) {
                link.cancel();
            }
        });
    }

    @Override
    public boolean isQuiet() {
        // Between statements outside a transaction, whether or not it keeps a connection for its session state.
        return !acquiring && waiting.isEmpty() && expected.isEmpty() && !queryRunning && heldReady == 0 && lastStatus == 'I';
    }
}
