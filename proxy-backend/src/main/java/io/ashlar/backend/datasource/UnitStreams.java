package io.ashlar.backend.datasource;

import io.ashlar.backend.execute.BackendError;
import io.ashlar.backend.execute.ErrorFields;
import io.ashlar.backend.pg.ServerLink;
import io.ashlar.merge.MemoryBudget;
import io.ashlar.protocol.Bind;
import io.ashlar.protocol.Close;
import io.ashlar.protocol.Describe;
import io.ashlar.protocol.Execute;
import io.ashlar.protocol.Flush;
import io.ashlar.protocol.Query;
import io.ashlar.protocol.Sync;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.sql.SQLException;

/**
 * Statements of one data source whose answers are read as their readers ask ({@link UnitStream}).
 *
 * <p>One unit on a connection ({@link #single}): the statement goes as usual (Bind, Execute with
 * no row limit, Sync, or a simple query) and its rows are read off the connection one by one; the
 * backend runs ahead only as far as the socket and the connection's hand-over queue let it.
 *
 * <p>Several units on one connection ({@link #portals}): a connection answers in order, so a
 * merge that needs every unit's next row at once (ORDER BY across them) could only read the
 * second unit after keeping every row of the first. Each unit instead gets a portal of its own,
 * bound in one write and read with Execute row limits (PortalSuspended between fetches) and
 * Flush, not Sync: the portals live in the statement's transaction (the session's, or the implicit
 * one that lasts until the Sync), and the proxy holds at most one fetch per unit (about
 * {@value #FETCH_BYTES} bytes, fewer rows when they are wide). The other way, buffering the units
 * before the last one, would hold whole shards (gigabytes for a big ORDER BY over two tables per
 * data source); the portals cost a round trip per fetch, and one more for the Close and Sync at
 * the end.
 */
public final class UnitStreams {

    /** About how much one portal fetch brings: the rows per Execute adapt to the rows' width. */
    static final int FETCH_BYTES = 1 << 20;
    private static final int FIRST_FETCH_ROWS = 256;
    private static final int MAX_FETCH_ROWS = 16_384;
    /** What a stream given up early reads and drops before it cancels its statement instead. */
    private static final long CLOSE_DRAIN_BYTES = 1L << 20;
    /** The portals units run in, numbered per connection ({@link #unitError}). */
    private static final String UNIT_PORTAL = "ashlar_unit_";
    private static final java.util.regex.Pattern UNIT_PORTAL_CONTEXT = java.util.regex.Pattern.compile("portal \"" + UNIT_PORTAL + "\\d+\"");

    private UnitStreams() {
    }

    /** The 53200 a statement past its memory budget fails with: which limit, and how to raise it. */
    public static ErrorFields outOfMemory(MemoryBudget.MemoryLimitExceededException e) {
        if (e.setting().isEmpty()) {
            return ErrorFields.error("53200", "out of memory: " + e.getMessage());
        }
        if (e.heap()) {
            return ErrorFields.error("53200", "out of memory: " + e.getMessage(), "Set " + e.setting() + " in server.yaml's"
                    + " props (now " + MemoryBudget.describe(e.limit()) + ") well below the proxy's heap (-Xmx), so that a"
                    + " statement stops at it before the heap runs out.");
        }
        return ErrorFields.error("53200", "out of memory: " + e.getMessage(), "Raise " + e.setting()
                + " in server.yaml's props (now " + MemoryBudget.describe(e.limit()) + "), or let the shards do the"
                + " work: ORDER BY or GROUP BY keys the shards can sort by, a LIMIT.");
    }

    /**
     * Sends one statement whose answer is read as its reader asks.
     *
     * @param begin whether a BEGIN goes first (the data source joins the session's transaction)
     */
    public static UnitStream single(BackendConnection connection, BackendConnection.Statement statement, boolean begin,
                                    MemoryBudget budget) throws SQLException {
        Single group = new Single(connection, statement, begin, budget);
        group.send(connection.status() == 'I' && !begin);
        return group.unit;
    }

    /**
     * Sends several statements of one connection as portals read in turns (see the class comment).
     * Their rows must be read through the returned streams; the connection is busy until every one
     * of them is done or closed.
     */
    public static UnitStream[] portals(BackendConnection connection, BackendConnection.Statement[] statements, boolean begin,
                                       MemoryBudget budget) throws SQLException {
        Portals group = new Portals(connection, statements, begin, budget);
        group.send();
        return group.units;
    }

    /** The units of one connection and how they are read. */
    abstract static class Group implements BackendConnection.Stream {
        final BackendConnection connection;
        final MemoryBudget budget;
        /** Whether a cancel could harm the session: its transaction goes on after this statement. */
        boolean inTransaction;
        /** ReadyForQuery messages {@link #drain} read. */
        int readiesDrained;

        Group(BackendConnection connection, MemoryBudget budget) {
            this.connection = connection;
            this.budget = budget;
        }

        /** Reads on until {@code unit}'s header is known (or it failed). */
        abstract void header(UnitStream unit) throws SQLException;

        /** Reads on until {@code unit} has a row (returned, or queued: null), or is complete. */
        abstract byte[][] row(UnitStream unit) throws SQLException;

        /** {@code unit}'s rows ran out. */
        abstract void unitDone(UnitStream unit);

        /** {@code unit}'s reader gave up on it. */
        abstract void unitClosed(UnitStream unit);

        /** The frames of the exchange up to its end, read and dropped; an error among them is kept only when asked. */
        SQLException drain() {
            SQLException first = null;
            for (byte type = connection.frame(); type != 0; type = connection.frame()) {
                if (type == 'Z') {
                    readiesDrained++;
                }
                if (type == 'E' && first == null) {
                    first = unitError(connection);
                } else if (type == 'A') {
                    connection.frameNotification();
                }
                connection.skip();
            }
            return first;
        }
    }

    // ------------------------------------------------------------------ one unit

    private static final class Single extends Group {
        private final BackendConnection.Statement statement;
        private final UnitStream unit;
        private boolean begin;
        private boolean skippingBegin;
        private boolean retryStale;
        private boolean staleSeen;
        private ServerLink.PreparedKey key;
        /** The exchange is over: every frame of it was read. */
        private boolean ended;
        private boolean failedFrame;
        /** The statement ended on the backend (CommandComplete, an error): a cancel has nothing left to stop. */
        private boolean statementOver;

        Single(BackendConnection connection, BackendConnection.Statement statement, boolean begin, MemoryBudget budget) {
            super(connection, budget);
            this.statement = statement;
            this.begin = begin;
            this.unit = new UnitStream(this, 0, budget);
        }

        /** @param retryStale whether a statement whose plan went stale (DDL) runs again, prepared anew */
        void send(boolean retryStale) throws SQLException {
            this.retryStale = retryStale;
            this.inTransaction = begin || connection.status() != 'I';
            ByteBuf out = Unpooled.buffer(128 + statement.sql().length());
            int readies = 1;
            if (begin) {
                connection.writeTo(out, new Query("BEGIN"));
                readies++;
            }
            if (statement.simple()) {
                key = null;
                connection.writeTo(out, new Query(statement.sql()));
            } else {
                key = new ServerLink.PreparedKey(statement.sql(), statement.parameters().types());
                String name = connection.prepared(out, key);
                connection.writeTo(out, new Bind("", name, statement.parameters().formats(),
                        statement.parameters().values(), statement.bindFormats()));
                connection.writeTo(out, new Describe((byte) 'P', ""));
                connection.writeTo(out, new Execute("", 0));
                connection.writeTo(out, Sync.INSTANCE);
            }
            skippingBegin = begin;
            ended = false;
            failedFrame = false;
            statementOver = false;
            staleSeen = false;
            connection.sendForStream(out, readies);
            connection.stream(this);
        }

        @Override
        void header(UnitStream unit) throws SQLException {
            read(true, false);
        }

        @Override
        byte[][] row(UnitStream unit) throws SQLException {
            return read(false, unit.frames);
        }

        /**
         * Reads frames up to the next row (returned; with {@code frames}, kept in the unit as its DataRow body,
         * {@link UnitStream#FRAME} returned), or the header when asked (null), or the end of the exchange (null,
         * the unit complete).
         */
        private byte[][] read(boolean header, boolean frames) throws SQLException {
            while (true) {
                byte type = connection.frame();
                if (type == 0) {
                    end();
                    return null;
                }
                if (type == 'E') {
                    failedFrame = true;
                }
                if (!skippingBegin && (type == 'C' || type == 'E' || type == 'I')) {
                    statementOver = true;
                }
                if (skippingBegin) {
                    if (type == 'Z') {
                        skippingBegin = false;
                    } else if (type == 'E') {
                        unit.fail(unitError(connection));
                    }
                    connection.skip();
                    continue;
                }
                switch (type) {
                    case 'T' -> {
                        unit.columns = connection.frameColumns();
                        unit.headed = true;
                        connection.skip();
                        if (header) {
                            return null;
                        }
                    }
                    case 'D' -> {
                        byte[][] row = frames ? unit.frame(connection.frameBody()) : connection.frameRow();
                        connection.skip();
                        if (unit.error == null && !unit.closed) {
                            return row;
                        }
                    }
                    case 'C' -> {
                        unit.tag = connection.frameTag();
                        unit.headed = true;
                        connection.skip();
                    }
                    case 'I' -> {
                        unit.empty = true;
                        unit.headed = true;
                        connection.skip();
                    }
                    case 'N' -> {
                        unit.notices.add(connection.frameNotice());
                        connection.skip();
                    }
                    case 'A' -> {
                        connection.frameNotification();
                        connection.skip();
                    }
                    case 'E' -> {
                        BackendError error = unitError(connection);
                        connection.skip();
                        if (key != null) {
                            connection.retire(key); // parsed again next time, closed first
                        }
                        if (retryStale && unit.columns == null && BackendConnection.isStalePlan(error)) {
                            staleSeen = true; // prepared before DDL changed its result: runs once more
                        } else {
                            unit.fail(error);
                            unit.headed = true;
                            if (header) {
                                return null;
                            }
                        }
                    }
                    default -> connection.skip();
                }
            }
        }

        /** The exchange is over: the connection is free; a stale plan runs again. */
        private void end() throws SQLException {
            ended = true;
            if (connection.streamNow() == this) {
                connection.stream(null);
            }
            if (connection.endedEarly() && !failedFrame) {
                unit.fail(connection.brokenError("the backend connection ended during the statement"));
                unit.headed = true;
            }
            if (staleSeen && unit.error == null) {
                begin = false;
                send(false);
                return;
            }
            unit.complete = true;
            unit.headed = true;
        }

        @Override
        void unitDone(UnitStream unit) {
            finish(false);
        }

        @Override
        void unitClosed(UnitStream unit) {
            // Given up mid-answer. Most such answers are short (a driver that asked for one row, a
            // portal closed at Sync): they are read to their end, rows dropped, and nothing is
            // cancelled (a cancel that lands after the statement ended would hit the next one).
            // Past CLOSE_DRAIN_BYTES the statement is cancelled, unless that could harm the session:
            // inside a transaction (it would fail), or on a connection the session keeps for its
            // state (a late cancel would land on its next statement); those are read to the end.
            if (ended) {
                return;
            }
            long seen = 0;
            for (byte type = connection.frame(); type != 0; type = connection.frame()) {
                if (type == 'A') {
                    connection.frameNotification();
                } else if (type == 'C' || type == 'E' || type == 'I') {
                    statementOver = true;
                }
                seen += connection.frameBytes();
                connection.skip();
                if (seen >= CLOSE_DRAIN_BYTES) {
                    finish(!inTransaction && !connection.hasSessionState());
                    return;
                }
            }
            finish(false);
        }

        @Override
        public void detach() {
            // Another statement needs the connection: the rest of the answer is kept, within the budget.
            try {
                while (!ended) {
                    byte[][] row = read(false, false);
                    if (row != null && !unit.keep(row)) {
                        finish(!inTransaction && !connection.hasSessionState());
                        return;
                    }
                }
            } catch (SQLException e) {
                unit.fail(e);
            }
        }

        @Override
        public void abandon() {
            finish(true);
        }

        /** Reads the exchange to its end, rows dropped; cancels the statement first when asked. */
        private void finish(boolean cancel) {
            if (ended) {
                return;
            }
            if (cancel && !statementOver) {
                connection.cancel();
            }
            if (drain() != null && key != null) {
                connection.retire(key); // its Parse may be what failed: parsed again next time, closed first
            }
            ended = true;
            unit.complete = true;
            if (connection.streamNow() == this) {
                connection.stream(null);
            }
        }
    }

    // ------------------------------------------------------------------ several units: portals

    private static final class Portals extends Group {
        private final BackendConnection.Statement[] statements;
        final UnitStream[] units;
        private final String[] names;
        private final int[] fetchRows;
        private final boolean[] suspended;
        private final ServerLink.PreparedKey[] keys;
        private final boolean begin;
        /** BEGIN's ReadyForQuery has not come yet. */
        private boolean beginPending;
        /** Whether every frame of the last request was read. */
        private boolean exchangeOver = true;
        private boolean failed;
        private boolean finished;

        Portals(BackendConnection connection, BackendConnection.Statement[] statements, boolean begin, MemoryBudget budget) {
            super(connection, budget);
            this.statements = statements;
            this.begin = begin;
            this.units = new UnitStream[statements.length];
            this.names = new String[statements.length];
            this.fetchRows = new int[statements.length];
            this.suspended = new boolean[statements.length];
            this.keys = new ServerLink.PreparedKey[statements.length];
            for (int i = 0; i < units.length; i++) {
                units[i] = new UnitStream(this, i, budget);
                names[i] = UNIT_PORTAL + i;
                fetchRows[i] = FIRST_FETCH_ROWS;
            }
        }

        /** Whether a unit whose plan went stale (DDL) makes every unit run again, prepared anew. */
        private boolean retryStale;
        private boolean staleSeen;

        void send() throws SQLException {
            inTransaction = begin || connection.status() != 'I';
            retryStale = !inTransaction;
            sendUnits();
        }

        private void sendUnits() throws SQLException {
            ByteBuf out = Unpooled.buffer(256);
            int terminals = units.length;
            if (begin) {
                connection.writeTo(out, new Query("BEGIN"));
                terminals++;
                beginPending = true;
            }
            for (int i = 0; i < units.length; i++) {
                BackendConnection.Statement each = statements[i];
                ServerLink.PreparedKey key = new ServerLink.PreparedKey(each.sql(), each.parameters().types());
                keys[i] = key;
                String name = connection.prepared(out, key);
                connection.writeTo(out, new Bind(names[i], name, each.parameters().formats(),
                        each.parameters().values(), each.bindFormats()));
                connection.writeTo(out, new Describe((byte) 'P', names[i]));
                connection.writeTo(out, new Execute(names[i], fetchRows[i]));
            }
            connection.writeTo(out, Flush.INSTANCE);
            exchangeOver = false;
            connection.sendPortals(out, terminals);
            connection.stream(this);
        }

        @Override
        void header(UnitStream unit) throws SQLException {
            if (!exchangeOver) {
                readFirst();
            } else {
                unit.headed = true;
            }
        }

        /** The first request's answers: each unit's description and first fetch, in order. */
        private void readFirst() {
            int at = 0;
            for (byte type = connection.frame(); type != 0; type = connection.frame()) {
                UnitStream unit = units[Math.min(at, units.length - 1)];
                if (beginPending && at == 0 && (type == 'C' || type == 'Z' || type == 'E')) {
                    if (type == 'Z') {
                        beginPending = false;
                    } else if (type == 'E') {
                        failAll(unitError(connection));
                    }
                    connection.skip();
                    continue;
                }
                switch (type) {
                    case 'T' -> unit.columns = connection.frameColumns();
                    case 'D' -> {
                        if (!failed) {
                            unit.keepFetched(connection.frameRow());
                        }
                    }
                    case 's' -> {
                        suspended[at] = true;
                        unit.headed = true;
                        at++;
                    }
                    case 'C' -> {
                        unit.tag = connection.frameTag();
                        unit.headed = true;
                        unit.complete = true;
                        at++;
                    }
                    case 'I' -> {
                        unit.empty = true;
                        unit.headed = true;
                        unit.complete = true;
                        at++;
                    }
                    case 'N' -> unit.notices.add(connection.frameNotice());
                    case 'A' -> connection.frameNotification();
                    case 'E' -> {
                        BackendError error = unitError(connection);
                        staleSeen = retryStale && BackendConnection.isStalePlan(error);
                        failAll(error);
                    }
                    default -> { }
                }
                connection.skip();
            }
            exchangeOver = true;
            afterExchange();
            if (staleSeen) {
                // Prepared before DDL changed a unit's result, outside any transaction: the units run
                // once more, each prepared anew (failAll retired their statements), as one unit does.
                staleSeen = false;
                retryStale = false;
                failed = false;
                finished = false;
                beginPending = false;
                for (int i = 0; i < units.length; i++) {
                    units[i].reset();
                    suspended[i] = false;
                    fetchRows[i] = FIRST_FETCH_ROWS;
                }
                try {
                    sendUnits();
                } catch (SQLException e) {
                    failAll(e);
                    return;
                }
                readFirst();
                return;
            }
            for (UnitStream each : units) {
                each.headed = true;
            }
        }

        private void afterExchange() {
            if (connection.endedEarly() && !failed) {
                failAll(connection.brokenError("the backend connection ended during the statement"));
            }
            for (UnitStream each : units) {
                if (each.error != null && !failed) {
                    failAll(each.error); // one unit's failure (past the budget) is the statement's
                }
            }
            for (int i = 0; i < units.length; i++) {
                UnitStream each = units[i];
                if (each.queuedRows() > 0) {
                    long average = Math.max(1, each.queuedBytes() / each.queuedRows());
                    fetchRows[i] = (int) Math.max(16, Math.min(MAX_FETCH_ROWS, FETCH_BYTES / average));
                }
            }
            if (failed) {
                finish();
            }
        }

        /** A unit's error ends the statement; the backend skips everything up to the Sync. */
        private void failAll(SQLException error) {
            if (!failed) {
                // The failing statement may be stale (DDL), and the backend skipped every message after
                // the error, Parses included: each is parsed again next time, closed first.
                for (ServerLink.PreparedKey key : keys) {
                    if (key != null) {
                        connection.retire(key);
                    }
                }
            }
            failed = true;
            units[0].fail(error);
            for (UnitStream each : units) {
                if (each.error == null) {
                    each.fail(error);
                }
                each.complete = true;
                each.headed = true;
            }
        }

        @Override
        byte[][] row(UnitStream unit) throws SQLException {
            fetch(unit, fetchRows[unit.index]);
            return null;
        }

        /** One more fetch of a suspended portal; {@code rows} 0 for all it has left. */
        private void fetch(UnitStream unit, int rows) throws SQLException {
            int i = unit.index;
            if (!suspended[i] || failed || finished) {
                unit.complete = true;
                return;
            }
            suspended[i] = false;
            ByteBuf out = Unpooled.buffer(64);
            connection.writeTo(out, new Execute(names[i], rows));
            connection.writeTo(out, Flush.INSTANCE);
            connection.stream(null); // this request is the stream's own
            exchangeOver = false;
            try {
                connection.sendPortals(out, 1);
            } finally {
                connection.stream(this);
            }
            for (byte type = connection.frame(); type != 0; type = connection.frame()) {
                switch (type) {
                    case 'D' -> {
                        if (failed) {
                            break;
                        }
                        if (rows != 0) {
                            unit.keepFetched(connection.frameRow());
                        } else if (!unit.keep(connection.frameRow())) {
                            // Past the budget (a detach keeping every row): the rest is read and dropped.
                            failed = true;
                        }
                    }
                    case 's' -> suspended[i] = true;
                    case 'C' -> {
                        unit.tag = connection.frameTag();
                        unit.complete = true;
                    }
                    case 'N' -> unit.notices.add(connection.frameNotice());
                    case 'A' -> connection.frameNotification();
                    case 'E' -> failAll(unitError(connection));
                    default -> { }
                }
                connection.skip();
            }
            exchangeOver = true;
            if (!suspended[i]) {
                unit.complete = true;
            }
            afterExchange();
        }

        @Override
        void unitDone(UnitStream unit) {
            finishWhenAllDone();
        }

        @Override
        void unitClosed(UnitStream unit) {
            finishWhenAllDone();
        }

        private void finishWhenAllDone() {
            for (UnitStream each : units) {
                if (!each.closed && !(each.complete && each.queuedRows() == 0)) {
                    return;
                }
            }
            finish();
        }

        @Override
        public void detach() {
            // Another statement needs the connection: each unit's rest is kept, within the budget.
            try {
                if (!exchangeOver) {
                    readFirst();
                }
                for (UnitStream each : units) {
                    if (!each.closed && !failed && suspended[each.index]) {
                        fetch(each, 0);
                    }
                }
            } catch (SQLException e) {
                failAll(e);
            }
            finish();
        }

        @Override
        public void abandon() {
            finish();
        }

        /**
         * Closes the portals and ends the request with a Sync (which also ends the implicit
         * transaction they lived in, when the session has none): the connection is then free.
         */
        private void finish() {
            if (finished) {
                return;
            }
            finished = true;
            if (!exchangeOver) {
                readiesDrained = 0;
                SQLException unread = drain();
                if (unread != null && !failed) {
                    // An error in the request nobody read (another data source failed the statement
                    // first): the backend skipped what followed it, Parses included, so the connection
                    // must not believe it has those statements (failAll retires them).
                    failAll(unread);
                }
                exchangeOver = true;
                if (readiesDrained > 0) {
                    beginPending = false; // BEGIN's ReadyForQuery was among the frames dropped
                }
            }
            if (connection.streamNow() == this) {
                connection.stream(null);
            }
            for (UnitStream each : units) {
                each.complete = true;
            }
            ByteBuf out = Unpooled.buffer(64);
            for (String name : names) {
                connection.writeTo(out, new Close((byte) 'P', name));
            }
            connection.writeTo(out, Sync.INSTANCE);
            try {
                connection.sendForStream(out, beginPending ? 2 : 1);
            } catch (SQLException e) {
                failAll(e);
                return;
            }
            SQLException error = drain();
            if (error != null && !failed) {
                failAll(error);
            }
        }
    }

    /**
     * A backend's error on a connection running units, whose context names the proxy's own portal ({@code portal
     * "ashlar_unit_0" parameter $1}) as PostgreSQL names the client's ({@code unnamed portal parameter $1}).
     */
    static BackendError unitError(BackendConnection connection) {
        BackendError error = connection.frameError();
        String where = error.fields().field('W');
        if (!where.contains(UNIT_PORTAL)) {
            return error;
        }
        return new BackendError(error.fields().withField('W',
                UNIT_PORTAL_CONTEXT.matcher(where).replaceAll("unnamed portal")));
    }
}
