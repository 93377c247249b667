package io.ashlar.frontend.session;

import io.ashlar.backend.datasource.ParameterValues;
import io.ashlar.backend.execute.ErrorFields;
import io.ashlar.backend.execute.QueryResult;
import io.ashlar.backend.execute.ResultSink;
import io.ashlar.backend.execute.StatementFailure;
import io.ashlar.backend.session.BackendSession;
import io.ashlar.backend.sharding.TagResult;
import io.ashlar.protocol.BatchBind;
import io.ashlar.protocol.Bind;
import io.ashlar.protocol.BindComplete;
import io.ashlar.protocol.Describe;
import io.ashlar.protocol.Execute;
import io.ashlar.protocol.FrontendMessage;
import io.ashlar.protocol.NoData;
import io.ashlar.protocol.Sync;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * A client's batch, run as one backend batch per data source instead of a round trip per row
 * ({@link BackendSession#executeBatch}): pgjdbc's {@code executeBatch}, a pipeline of Bind/Execute
 * groups of one statement before one Sync, found by looking ahead in the session's inbox; and
 * openGauss's batch bind ({@code U}), all the rows in one message. Each message is answered as
 * PostgreSQL answers it; the first failing row fails the pipeline up to its Sync.
 */
final class ClientBatches {

    /** PostgreSQL's output buffer (pqcomm.c): answers it holds until Sync, Flush or a full buffer. */
    private static final int PQ_SEND_BUFFER_SIZE = 8192;
    /** What a batch row is answered with: BindComplete (5 bytes) and CommandComplete "INSERT 0 1" (16). */
    private static final int ROW_ANSWER_BYTES = 21;

    private final SessionInbox inbox;
    private final OutputBuffer out;
    private final BackendSession backend;
    private final ResultSink sink;
    private final Map<String, PreparedStatement> statements;
    private final Map<String, Portal> portals;
    /** Fails the pipeline: the error goes out, the rest up to Sync is skipped. */
    private final Consumer<ErrorFields> fail;
    /** A statement whose rows could not run as a backend batch in the current pipeline. */
    private PreparedStatement refused;

    /**
     * @param sink where the rows' status messages go (ParameterStatus, notices)
     * @param statements the session's prepared statements, by name
     * @param portals the session's portals, by name: a batch leaves its last row's in the one it binds
     * @param fail fails the extended-protocol pipeline with an error
     */
    ClientBatches(SessionInbox inbox, OutputBuffer out, BackendSession backend, ResultSink sink,
                  Map<String, PreparedStatement> statements, Map<String, Portal> portals, Consumer<ErrorFields> fail) {
        this.inbox = inbox;
        this.out = out;
        this.backend = backend;
        this.sink = sink;
        this.statements = statements;
        this.portals = portals;
        this.fail = fail;
    }

    /** The client's Sync: a statement refused as a batch may be tried again in the next pipeline. */
    void synced() {
        refused = null;
    }

    /**
     * A Bind was just answered: if more Bind/Execute groups of the same statement and portal follow
     * it in the inbox (pgjdbc's executeBatch sends hundreds before one Sync, each with a Describe
     * of the portal when it wants the row shape), the rows run as one backend batch per data source
     * and each message is answered as PostgreSQL answers the pipeline: per row BindComplete, NoData
     * for a Describe (a batchable statement returns no rows) and CommandComplete, in order; at the
     * first failing row its error, and the rest skipped until Sync (whose transaction then rolls
     * back). Anything else leaves the messages to run one by one; a statement that cannot run as a
     * batch is not tried again until Sync.
     */
    void afterBind(Portal portal, String portalName) {
        PreparedStatement statement = portal.statement;
        if (statement == refused || statement.prepared.analysis() instanceof CannedAnswer || statement.isTransactionControl()) {
            return;
        }
        if (!anotherRowFollows(portalName)) {
            return; // the common case, Bind/Execute/Sync: no batch, and no look at the socket
        }
        // Row 0 is this Bind; a group is [Describe portal] Execute, and for later rows a Bind first.
        List<Bind> binds;
        List<Boolean> described;
        int consumed;
        // The first message after the groups taken (null: none has arrived yet).
        FrontendMessage afterGroups;
        while (true) {
            long seen = inbox.received();
            binds = new ArrayList<>();
            described = new ArrayList<>();
            binds.add(null);
            consumed = 0;
            Iterator<FrontendMessage> queued = inbox.iterator();
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
            inbox.awaitMessagesAfter(seen);
        }
        int rowCount = described.size();
        if (rowCount < 2) {
            return;
        }
        boolean lastBeforeSync = afterGroups instanceof Sync;
        ParameterValues[] rows = new ParameterValues[rowCount];
        rows[0] = portal.parameters;
        int[] types = statement.prepared.parameterTypes();
        for (int i = 1; i < rowCount; i++) {
            Bind bind = binds.get(i);
            rows[i] = ParameterValues.of(types, bind.parameterFormats(), bind.parameterValues());
        }
        BackendSession.BatchOutcome outcome;
        try {
            outcome = backend.executeBatch(statement.prepared, rows, sink, lastBeforeSync);
        } catch (StatementFailure failure) {
            fail.accept(failure.fields());
            return;
        }
        if (outcome == null) {
            refused = statement;
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
            fail.accept(outcome.error());
            return;
        }
        Portal last = new Portal(statement, rows[rowCount - 1], portal.resultFormats);
        last.result = new TagResult(tags.length > 0 ? tags[tags.length - 1] : "", List.of());
        portals.put(portalName, last);
    }

    /**
     * Whether this Bind's [Describe] Execute is followed by another Bind, or by nothing yet (the
     * rest of a batch may still be in the socket).
     */
    private boolean anotherRowFollows(String portalName) {
        Iterator<FrontendMessage> queued = inbox.iterator();
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

    /**
     * openGauss's batch bind ({@code U}): every row runs with its own parameters, all in one
     * transaction that the following Sync ends (as a pipeline of Bind/Execute pairs would run);
     * the client gets one BindComplete and one CommandComplete whose count is the batch's total.
     * The first failing row fails the batch: the error is reported and the rest is skipped until
     * Sync, which rolls the transaction back. Rows run as one backend batch per data source when
     * the statement allows, else one by one.
     */
    void batchBind(BatchBind batch) {
        PreparedStatement statement = statements.get(batch.statement());
        if (statement == null) {
            fail.accept(ErrorFields.error("26000", "prepared statement \"" + batch.statement() + "\" does not exist"));
            return;
        }
        int required = statement.prepared.parameterTypes().length;
        if (batch.parametersPerRow() != required) {
            fail.accept(ErrorFields.error("08P01", "batch bind message supplies " + batch.parametersPerRow()
                    + " parameters per row, but prepared statement \"" + batch.statement() + "\" requires " + required));
            return;
        }
        short[] formats = batch.parameterFormats();
        if (formats.length > 1 && formats.length != required) {
            fail.accept(ErrorFields.error("08P01", "batch bind message has " + formats.length
                    + " parameter formats but " + required + " parameters"));
            return;
        }
        if (statement.prepared.analysis() instanceof CannedAnswer || statement.isTransactionControl()) {
            fail.accept(ErrorFields.error("0A000", "this statement cannot run as a batch through Ashlar",
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
            // the batch commits (see afterBind on waiting).
            long seen = inbox.received();
            if (inbox.isEmpty()) {
                inbox.awaitMessagesAfter(seen);
            }
        }
        BackendSession.BatchOutcome outcome;
        try {
            outcome = rows.length > 1 ? backend.executeBatch(statement.prepared, rows, sink, inbox.peek() instanceof Sync) : null;
        } catch (StatementFailure failure) {
            fail.accept(failure.fields());
            return;
        }
        if (outcome != null) {
            if (outcome.failedRow() >= 0) {
                fail.accept(outcome.error());
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
                result = backend.execute(statement.prepared, rows[i], sink, true);
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
                fail.accept(failure.fields());
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
}
