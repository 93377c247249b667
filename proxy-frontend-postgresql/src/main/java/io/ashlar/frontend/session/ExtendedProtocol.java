package io.ashlar.frontend.session;

import io.ashlar.backend.datasource.ParameterValues;
import io.ashlar.backend.execute.CommandTags;
import io.ashlar.backend.execute.ErrorFields;
import io.ashlar.backend.execute.QueryResult;
import io.ashlar.backend.execute.ResultSink;
import io.ashlar.backend.execute.StatementFailure;
import io.ashlar.backend.session.BackendSession;
import io.ashlar.frontend.types.ValueEncoder;
import io.ashlar.parser.statement.FetchStatement;
import io.ashlar.protocol.BatchBind;
import io.ashlar.protocol.Bind;
import io.ashlar.protocol.BindComplete;
import io.ashlar.protocol.Close;
import io.ashlar.protocol.CloseComplete;
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
import io.ashlar.protocol.Sync;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The extended query protocol: Parse, Bind, Describe, Execute, Close and Sync, over the client's
 * prepared statements and portals (one namespace each, the unnamed ones included), answered as
 * PostgreSQL answers them.
 *
 * <p>States: <b>running</b>, and <b>skipping</b>: a message failed, its error went out at once,
 * and everything up to the next Sync is discarded. A statement runs when its portal is first
 * described or executed; several Executes before one Sync run in one implicit transaction that
 * the Sync ends, as PostgreSQL runs a pipeline. A client's batch goes to {@link ClientBatches},
 * cursor statements to {@link CursorCommands}.
 *
 * @see <a href="https://www.postgresql.org/docs/current/protocol-flow.html#PROTOCOL-FLOW-EXT-QUERY">Extended Query</a>
 */
final class ExtendedProtocol {

    private static final String UNNAMED = "";
    private static final int MAX_PREPARED_STATEMENTS = 10_000;

    private final SessionInbox inbox;
    private final CopyRelay copy;
    private final OutputBuffer out;
    private final BackendSession backend;
    private final ResultSink sink;
    private final CursorCommands cursors;
    private final boolean openGauss;
    /** The proxy's admin commands, or null where the session has none. */
    private io.ashlar.frontend.admin.AdminConsole admin;
    private final Map<String, PreparedStatement> statements = new HashMap<>();
    private final Map<String, Portal> portals;
    private final ClientBatches batches;
    /** Binary encoders of the columns an Execute sends now (null entries: text). */
    private ValueEncoder[] rowEncoders;
    private final PortalRows.RowConsumer toClient;
    private boolean skipping;

    /**
     * @param sink where statements' status messages go (ParameterStatus, notifications)
     * @param portals the session's portals, shared with its SQL cursors
     * @param openGauss whether the client is an openGauss one, whose connect-time questions the proxy answers
     */
    ExtendedProtocol(SessionInbox inbox, OutputBuffer out, BackendSession backend, ResultSink sink, CursorCommands cursors,
                     Map<String, Portal> portals, CopyRelay copy, boolean openGauss) {
        this.inbox = inbox;
        this.copy = copy;
        this.out = out;
        this.backend = backend;
        this.sink = sink;
        this.cursors = cursors;
        this.portals = portals;
        this.openGauss = openGauss;
        this.batches = new ClientBatches(inbox, out, backend, sink, statements, portals, this::fail);
        this.toClient = row -> out.dataRow(row, rowEncoders);
    }

    /** Keeps a statement Parse made; one with a name notes when, for pg_prepared_statements. */
    private void keep(String name, PreparedStatement statement) {
        if (!name.isEmpty()) {
            statement.preparedAtMillis = System.currentTimeMillis();
        }
        statements.put(name, statement);
    }

    /** The statements the client prepared by name, as pg_prepared_statements lists them (the unnamed one is not listed). */
    List<BackendSession.NamedStatement> namedStatements() {
        List<BackendSession.NamedStatement> result = new ArrayList<>(statements.size());
        for (Map.Entry<String, PreparedStatement> each : statements.entrySet()) {
            if (each.getKey().isEmpty()) {
                continue;
            }
            PreparedStatement statement = each.getValue();
            BackendSession.Description description = statement.description();
            int[] types = description != null ? description.parameterTypes() : statement.declaredTypes;
            result.add(new BackendSession.NamedStatement(each.getKey(), statement.sql, statement.preparedAtMillis,
                    BackendSession.NamedStatement.typeArray(types), false));
        }
        return result;
    }

    /** Whether a message failed since the last Sync: what comes before the next Sync is discarded. */
    boolean skipping() {
        return skipping;
    }

    /** Something failed outside the protocol's own checks: the rest up to Sync is discarded. */
    void skipToSync() {
        skipping = true;
    }

    /**
     * An extended-protocol message failed: the error goes out at once, with whatever was written
     * before it (PostgreSQL flushes an ErrorResponse as it raises it), and everything up to the
     * next Sync is skipped. A client that sent Parse/Describe/Flush, or a pipeline without a Sync
     * yet, waits for exactly this error before it sends more.
     */
    void fail(ErrorFields error) {
        out.error(error);
        failed();
    }

    /** An extended-protocol message failed and its error is written: it goes out, and the rest up to the Sync is skipped. */
    private void failed() {
        out.flush();
        skipping = true;
        backend.abortTransaction();
    }

    /**
     * The error of a message whose body does not read: for a Bind whose names read, a statement
     * the session does not have comes first, as PostgreSQL looks it up before it reads the values.
     */
    ErrorFields malformed(FrontendMessage.Malformed malformed) {
        return BindChecks.malformed(malformed, statements, backend.transactionStatus() == 'E');
    }

    /** A simple query replaces the unnamed statement and portal. */
    void dropUnnamed() {
        statements.remove(UNNAMED);
        closeUnnamedPortal();
    }

    /** The unnamed portal goes (a new statement replaces it). */
    private void closeUnnamedPortal() {
        Portal unnamed = portals.remove(UNNAMED);
        if (unnamed != null) {
            unnamed.close();
        }
    }

    /**
     * Whether the session's transaction block failed and {@code sql} does not end it: PostgreSQL
     * refuses such a statement at Parse, Describe (of a statement that returns rows) and Execute.
     */
    private boolean refusedInFailedBlock(String sql) {
        return backend.transactionStatus() == 'E' && !BindChecks.exitsTransaction(sql) && !sql.isBlank();
    }

    void admin(io.ashlar.frontend.admin.AdminConsole console) {
        this.admin = console;
    }

    /** An admin command parsed in the extended protocol: answered afresh at each execution. */
    private record AdminStatement(String sql) {
    }

    /** An admin command's answer as the proxy's own result, or null (its error reported). */
    private CannedAnswer adminAnswer(String sql) {
        io.ashlar.frontend.admin.AdminAnswer answer = admin.answer(sql);
        if (answer == null || answer.error() != null) {
            fail(answer == null ? ErrorFields.error("42601", "not an admin command: " + sql) : answer.error());
            return null;
        }
        return new CannedAnswer(answer.columns(), answer.rows(out.text()), answer.tag());
    }

    void parse(Parse parse) {
        String name = parse.statementName();
        if (refusedInFailedBlock(parse.sql())) {
            fail(ErrorFields.inFailedTransaction());
            return;
        }
        if (!name.isEmpty() && statements.containsKey(name)) {
            fail(ErrorFields.error("42P05", "prepared statement \"" + name + "\" already exists"));
            return;
        }
        if (statements.size() >= MAX_PREPARED_STATEMENTS && !statements.containsKey(name)) {
            fail(ErrorFields.error("53400", "too many prepared statements in this session (limit "
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
            keep(name, statement);
            out.write(ParseComplete.INSTANCE);
            return;
        }
        if (admin != null && io.ashlar.frontend.admin.AdminCommand.mayBe(parse.sql())
                && io.ashlar.frontend.admin.AdminCommand.parse(parse.sql()) != null) {
            // Answered by the proxy, as in a simple query; its columns are known at Parse, its rows at each execution.
            CannedAnswer answer = adminAnswer(parse.sql());
            if (answer == null) {
                return;
            }
            PreparedStatement statement = new PreparedStatement(
                    new BackendSession.Prepared(parse.sql(), new int[0], new AdminStatement(parse.sql())), new int[0]);
            statement.description(new BackendSession.Description(new int[0],
                    answer.hasRows() ? Optional.of(answer.columns()) : Optional.empty()));
            keep(name, statement);
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
            fail(failure.fields());
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
                fail(failure.fields());
                return;
            }
        }
        keep(name, statement);
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
            keep(name, statement);
        } catch (StatementFailure failure) {
            fail(failure.fields());
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

    void bind(Bind bind) {
        PreparedStatement statement = statements.get(bind.statement());
        if (statement != null && statement.description() == null
                && (bind.resultFormats().length > 1 || bind.parameterValues().length != statement.prepared.parameterTypes().length)
                && !(statement.prepared.analysis() instanceof CannedAnswer)
                && !(statement.prepared.analysis() instanceof CursorCommands.Command)) {
            // One result format per column: PostgreSQL checks the count at Bind, so the columns are
            // needed now (rare: a client that names a format per column has described the statement).
            // A parameter count that does not match: PostgreSQL refused the statement at its Parse if it
            // does not parse, and that error, not the count's, is the client's (pgx's exec mode).
            try {
                statement.description(backend.describe(statement.prepared));
            } catch (StatementFailure failure) {
                fail(failure.fields());
                return;
            }
        }
        ErrorFields refused = statement == null ? BindChecks.missingStatement(bind.statement())
                : BindChecks.refusal(bind, statement, backend.transactionStatus() == 'E', portals.containsKey(bind.portal()));
        if (refused != null) {
            fail(refused);
            return;
        }
        String portalName = bind.portal();
        byte[][] values = bind.parameterValues();
        short[] formats = bind.parameterFormats();
        Portal portal = new Portal(statement, ParameterValues.of(statement.prepared.parameterTypes(), formats, values),
                bind.resultFormats());
        Portal previous = portals.put(portalName, portal);
        if (previous != null) {
            previous.close();
        }
        out.write(BindComplete.INSTANCE);
        batches.afterBind(portal, portalName);
    }

    /**
     * Bind, Describe of its portal (when {@code describe}), Execute (with a row limit only for a statement that returns
     * no rows) and Sync as a pipeline the event loop runs itself
     * ({@link LoopRun}, not started yet), its Bind answered and the unnamed portal it replaces gone; null, with nothing
     * done, when it must run here: a named portal, a statement not described yet or of the proxy's own, result formats
     * PostgreSQL would refuse, parameters it would refuse at Bind, or a statement the backend session keeps for its
     * thread ({@link io.ashlar.backend.session.BackendSession#loopStatement}).
     */
    LoopRun onLoop(Bind bind, boolean describe, int maxRows, ResultSink statusSink, io.netty.channel.Channel client, LoopRun.End end) {
        if (skipping || openGauss || !bind.portal().isEmpty()) {
            return null;
        }
        PreparedStatement statement = statements.get(bind.statement());
        if (statement == null || statement.description() == null || statement.clientCopy
                || statement.prepared.analysis() instanceof CannedAnswer || statement.prepared.analysis() instanceof AdminStatement
                || statement.prepared.analysis() instanceof CursorCommands.Command) {
            return null;
        }
        short[] requested = bind.resultFormats();
        for (short each : requested) {
            if (each != 0 && each != 1) {
                return null;
            }
        }
        Optional<io.ashlar.backend.execute.ColumnDescription[]> columns = statement.description().columns();
        if (maxRows != 0 && columns.isPresent()) {
            return null; // rows in pieces (PortalSuspended); a row limit means nothing to a statement without rows (pgjdbc's 1 for updates)
        }
        if (BindChecks.resultFormatCount(requested, columns.isPresent() ? columns.get().length : 0) != null
                || BindChecks.refusal(bind, statement, false, portals.containsKey(UNNAMED)) != null) {
            return null;
        }
        io.ashlar.backend.session.LoopStatement loop = backend.loopStatement(statement.prepared,
                ParameterValues.of(statement.prepared.parameterTypes(), bind.parameterFormats(), bind.parameterValues()),
                statement.perColumn(ResultFormats.forBackend(requested)));
        if (loop == null) {
            return null;
        }
        closeUnnamedPortal();
        out.write(BindComplete.INSTANCE);
        return new LoopRun(loop, out, this, statusSink, client, requested, describe, end);
    }

    /** openGauss's batch bind ({@code U}), see {@link ClientBatches#batchBind}. */
    void batchBind(BatchBind batch) {
        batches.batchBind(batch);
    }

    void describe(Describe describe) {
        if (backend.transactionStatus() == 'E') {
            PreparedStatement statement = describe.kind() == 'S' ? statements.get(describe.name())
                    : portals.containsKey(describe.name()) ? portals.get(describe.name()).statement : null;
            if (statement != null && !statement.returnsNoRows() && refusedInFailedBlock(statement.sql)) {
                fail(ErrorFields.inFailedTransaction());
                return;
            }
        }
        if (describe.kind() == 'S') {
            describeStatement(describe.name());
        } else {
            describePortal(describe.name());
        }
    }

    private void describeStatement(String name) {
        PreparedStatement statement = statements.get(name);
        if (statement == null) {
            fail(ErrorFields.error("26000", "prepared statement \"" + name + "\" does not exist"));
            return;
        }
        BackendSession.Description description = statement.description();
        if (description == null) {
            try {
                description = statement.prepared.analysis() instanceof CursorCommands.Command command
                        ? describeCursorCommand(statement, command) : backend.describe(statement.prepared);
            } catch (StatementFailure failure) {
                fail(failure.fields());
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
        if (command.statement().body() instanceof FetchStatement fetch && !fetch.move()) {
            Portal cursor = portals.get(fetch.cursor());
            if (cursor != null && cursor.result != null && cursor.result.hasRows()) {
                return new BackendSession.Description(new int[0], Optional.of(cursor.result.columns()));
            }
        }
        return new BackendSession.Description(statement.prepared.parameterTypes(), Optional.empty());
    }

    /**
     * A COPY FROM STDIN or TO STDOUT in the extended protocol (tokio-postgres's copy_in and copy_out): run with the
     * client at its Execute, as in a simple query; the Sync the client may have sent before its data is ignored
     * during COPY IN, as PostgreSQL ignores it. A failed COPY skips to the Sync, as any failed Execute.
     */
    private void copy(Portal portal) {
        if (copy.copy(portal.statement.sql)) {
            failed();
        }
    }

    private void describePortal(String name) {
        Portal portal = portals.get(name);
        if (portal == null) {
            fail(ErrorFields.error("34000", "portal \"" + name + "\" does not exist"));
            return;
        }
        if (portal.statement != null && portal.statement.clientCopy) {
            out.write(NoData.INSTANCE); // as PostgreSQL describes a COPY: its data is not rows
            return;
        }
        if (!run(portal, true)) {
            return;
        }
        QueryResult result = portal.result;
        if (result.hasRows()) {
            short[] formats = portal.formats(result.columns().length);
            ErrorFields miscounted = BindChecks.resultFormatCount(portal.resultFormats, result.columns().length);
            if (miscounted != null) {
                fail(miscounted);
                return;
            }
            try {
                ResultFormats.encoders(result, portal.resultFormats, formats, backend);
            } catch (StatementFailure failure) {
                fail(failure.fields());
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
        if (portal.statement.prepared.analysis() instanceof AdminStatement statement) {
            CannedAnswer answer = adminAnswer(statement.sql());
            if (answer == null) {
                return false;
            }
            portal.result = answer.result();
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
            portal.result = backend.execute(portal.statement.prepared, portal.parameters,
                    portal.statement.perColumn(ResultFormats.forBackend(portal.resultFormats)), sink, implicit);
            return true;
        } catch (StatementFailure failure) {
            fail(failure.fields());
            return false;
        }
    }

    /**
     * Execute: the portal's next rows, up to the row limit. As in PostgreSQL, a limit that the rows
     * reached leaves the portal suspended (PortalSuspended), even when no row is left; the next
     * Execute then completes it with no rows. A cursor's Execute completes with {@code SELECT n}.
     */
    void execute(Execute execute) {
        Portal portal = portals.get(execute.portal());
        if (portal == null) {
            fail(ErrorFields.error("34000", "portal \"" + execute.portal() + "\" does not exist"));
            return;
        }
        if (portal.statement != null && refusedInFailedBlock(portal.statement.sql)) {
            fail(ErrorFields.inFailedTransaction());
            return;
        }
        if (portal.statement != null && portal.statement.clientCopy) {
            copy(portal);
            return;
        }
        if (!run(portal, false)) {
            return;
        }
        QueryResult result = portal.result;
        notices(portal, result);
        if (result.isEmptyQuery()) {
            out.write(EmptyQueryResponse.INSTANCE);
            return;
        }
        if (!result.hasRows()) {
            out.commandComplete(result.tag());
            droppedStatements(result.tag());
            return;
        }
        ErrorFields miscounted = BindChecks.resultFormatCount(portal.resultFormats, result.columns().length);
        if (miscounted != null) {
            fail(miscounted);
            return;
        }
        PortalRows rows = portal.rows();
        boolean resumed = rows.position() > 0;
        long limit = execute.maxRows() <= 0 ? Long.MAX_VALUE : execute.maxRows();
        long sent;
        try {
            short[] formats = portal.formats(result.columns().length);
            ErrorFields unsupported = BindChecks.resultFormats(portal.resultFormats, formats);
            if (unsupported != null && rows.forward(1, PortalRows.SKIP) > 0) {
                // As in PostgreSQL: any code passes Bind and Describe; the first row sent in it fails.
                fail(unsupported);
                return;
            }
            rowEncoders = ResultFormats.encoders(result, portal.resultFormats, formats, backend);
            sent = rows.forward(limit, toClient);
        } catch (StatementFailure failure) {
            fail(failure.fields());
            return;
        } finally {
            rowEncoders = null;
        }
        notices(portal, result);
        if (sent == limit && limit != Long.MAX_VALUE) {
            out.write(PortalSuspended.INSTANCE);
            return;
        }
        // A portal read in pieces: PostgreSQL counts the rows of the last Execute.
        out.commandComplete(portal.cursor ? "SELECT " + sent : resumed ? CommandTags.withRowCount(result.tag(), sent) : result.tag());
    }

    /**
     * The result's NOTICEs not sent yet: at the first Execute those that came with the result, as they are; after rows
     * those a shard raised meanwhile (a function called per row), which the session puts in logical names.
     */
    private void notices(Portal portal, QueryResult result) {
        List<ErrorFields> notices = result.notices();
        boolean late = portal.noticesSent >= 0;
        for (int i = late ? portal.noticesSent : 0; i < notices.size(); i++) {
            out.notice(late ? backend.lateNotice(notices.get(i)) : notices.get(i));
        }
        portal.noticesSent = notices.size();
    }

    /** SQL DEALLOCATE of a named statement the client parsed: whether the session had it (it has not now). */
    boolean deallocate(String name) {
        return !name.isEmpty() && statements.remove(name) != null;
    }

    /**
     * A statement with this tag ran: DEALLOCATE ALL and DISCARD ALL drop the statements the client parsed too, as in
     * PostgreSQL (pgjdbc, seeing the tag, parses its statements again under new names; those it had stayed here).
     */
    void droppedStatements(String tag) {
        if (tag.equals("DEALLOCATE ALL") || tag.equals("DISCARD ALL")) {
            statements.clear();
        }
    }

    void close(Close close) {
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
            if (queued instanceof Sync || queued instanceof Query) {
                return result;
            }
        }
        return 2;
    }

    /**
     * Sync: skipping ends, and an implicit transaction the pipeline opened commits (or rolls back
     * if a statement in it failed). True when the pipeline failed; the ReadyForQuery is the caller's.
     */
    boolean sync() {
        boolean failed = skipping;
        skipping = false;
        batches.synced();
        try {
            backend.endImplicitTransaction();
        } catch (StatementFailure failure) {
            out.error(failure.fields());
            failed = true;
        }
        return failed;
    }

    /** The session ends: its statements and portals with it. */
    void close() {
        statements.clear();
        for (Portal portal : portals.values()) {
            portal.close();
        }
        portals.clear();
    }
}
