package io.ashlar.backend.session;

import io.ashlar.backend.datasource.BackendConnection;
import io.ashlar.backend.datasource.BackendConnections;
import io.ashlar.backend.datasource.BackendDataSource;
import io.ashlar.backend.execute.BackendError;
import io.ashlar.backend.execute.ErrorFields;
import io.ashlar.backend.execute.ResultSink;
import io.ashlar.backend.execute.StatementFailure;
import io.ashlar.backend.execute.TextRows;
import io.netty.channel.EventLoop;
import java.sql.SQLException;

/**
 * The backend connections of a sharded session, one slot per data source (and one for the catalog
 * database): a connection is borrowed on the client's event loop when a statement first needs its
 * data source, is given the session's settings, and goes back after the statement unless something
 * keeps it: a transaction it <b>joined</b> (its BEGIN ran there), state only it has (it is
 * <b>bound</b> to the session for good: a temporary table, LISTEN, a cursor, SQL PREPARE), or a
 * result still streaming from it.
 *
 * <p>Used by the session's thread, except {@link #cancel()}.
 */
final class ShardConnections {

    private final LogicalDatabase database;
    /** The client's event loop: the session's backend connections are borrowed there. */
    private final EventLoop loop;
    private final SettingsTracker settings;
    private final BackendConnection[] held;
    private final boolean[] joined;
    private final boolean[] bound;
    /** The slot's connection changed data in the transaction in force (two-phase commit counts these). */
    private final boolean[] written;
    /** Per slot: the transaction holds a parent row there FOR KEY SHARE for a key the proxy enforces (it commits late). */
    private final boolean[] keyLocked;
    private boolean closed;
    /** Told when a connection kept for the session's state (a LISTEN) gets a notification while idle; null: nobody. */
    private Runnable asyncSignal;

    ShardConnections(LogicalDatabase database, EventLoop loop, SettingsTracker settings) {
        this.database = database;
        this.loop = loop;
        this.settings = settings;
        int slots = database.connectionSlots();
        this.held = new BackendConnection[slots];
        this.joined = new boolean[slots];
        this.bound = new boolean[slots];
        this.written = new boolean[slots];
        this.keyLocked = new boolean[slots];
    }

    /** How many slots there are (data sources and the catalog database). */
    int slots() {
        return held.length;
    }

    /** The slot whose connection ran a SET in the transaction block in force, not read back yet; -1 for none. */
    private int settingsPending = -1;

    /** A SET ran on {@code slot}'s connection in the transaction block ({@code -1}: the block ended, read back). */
    void settingsPending(int slot) {
        settingsPending = slot;
    }

    /**
     * After a transaction block whose settings changed: every held connection but {@code except} no longer knows which
     * settings it carries (it may have taken the block's, which a rollback undid), so that it is given the session's
     * anew, or, back in the pool, reset for whoever borrows it next.
     */
    void forgetSettings(BackendConnection except) {
        for (BackendConnection each : held) {
            if (each != null && each != except) {
                each.settings(SessionSettings.UNKNOWN);
            }
        }
    }

    /** The connection the session holds in a slot, or null. */
    BackendConnection held(int slot) {
        return held[slot];
    }

    /** The connection of a slot: the one held, or one borrowed now and given the session's settings. */
    BackendConnection acquire(int slot) throws StatementFailure {
        if (closed) {
            throw new StatementFailure(ErrorFields.error("08003", "the session is closed"));
        }
        int pending = settingsPending;
        if (pending >= 0 && pending != slot && held[pending] != null) {
            // A SET ran in this transaction block on another connection: the session's settings are read from it
            // before this one is used, which then takes them in the block, as PostgreSQL's one connection has them
            // (pg_dump RESETs search_path in its transaction before its -t look-up in the catalog). Not before: a read
            // right after the SET would take the block's snapshot ahead of the client's SET TRANSACTION.
            settingsPending = -1;
            settings.readBack(held[pending]);
            pending = -1;
        }
        BackendConnection connection = held[slot];
        if (connection != null) {
            // (Not while its own SET is unread: its settings are the session's then, the tracker's are not yet.)
            if (pending < 0 && connection.settings() != settings.settings()) {
                try {
                    settings.give(connection);
                } catch (SQLException e) {
                    throw new StatementFailure(ErrorFields.from(e), e);
                }
            }
            return connection;
        }
        BackendDataSource dataSource = database.slotDataSource(slot);
        try {
            connection = dataSource.borrow(loop);
        } catch (SQLException e) {
            // The pool's errors name the data source and say why (down, a login refused, none free in time).
            throw new StatementFailure(e instanceof BackendError ? ErrorFields.from(e) : ErrorFields.error("08006",
                    "could not get a connection to data source " + dataSource.name() + ": " + e.getMessage()), e);
        }
        try {
            settings.give(connection);
        } catch (SQLException e) {
            connection.release();
            throw new StatementFailure(ErrorFields.from(e), e);
        }
        held[slot] = connection;
        if (bound[slot] && asyncSignal != null) {
            connection.onAsync(asyncSignal); // kept for a LISTEN, the one before broke
        }
        return connection;
    }

    /**
     * A connection of {@code dataSource} apart from the session's (none of its transaction, its settings whatever the
     * last user left), borrowed on the client's event loop, for a question no statement of the session depends on; the
     * caller gives it back.
     */
    BackendConnection borrowApart(BackendDataSource dataSource) throws SQLException {
        return dataSource.borrow(loop);
    }

    /**
     * The slot's connection lent at once, on the event loop's own thread, when the session holds none and one is idle
     * in the pool already carrying the session's settings; else null (nothing is borrowed, opened or waited for): a
     * statement the loop runs itself takes its connection so, and leaves the rest to the session's thread.
     */
    BackendConnection lendNow(int slot) {
        if (closed || held[slot] != null || bound[slot] || settingsPending >= 0) {
            return null;
        }
        BackendConnection connection = database.slotDataSource(slot).borrowNow(loop);
        if (connection == null) {
            return null;
        }
        if (!connection.settings().equals(settings.settings())) {
            connection.release(); // the settings would take a round trip: the session's thread gives them
            return null;
        }
        connection.settings(settings.settings());
        held[slot] = connection;
        return connection;
    }

    /**
     * The slot's connection where it runs the client's transaction block already (its BEGIN went, it is not reading a
     * result, its settings are the session's), for a statement the event loop runs itself; else null.
     */
    BackendConnection inBlock(int slot) {
        BackendConnection connection = held[slot];
        if (closed || connection == null || !joined[slot] || settingsPending >= 0 || connection.isBroken()
                || connection.isStreaming() || connection.status() != 'T' || connection.settings() != settings.settings()) {
            return null;
        }
        return connection;
    }

    /** Whether a connection the session holds still streams a result (a portal read in pieces). */
    boolean anyStreaming() {
        for (BackendConnection each : held) {
            if (each != null && each.isStreaming()) {
                return true;
            }
        }
        return false;
    }

    /**
     * The slot of the only connection that joined the transaction in force: -1 when none did, -2 when several did (or
     * the session holds a joined connection that is not the one a statement run on the event loop may use, {@link
     * #inBlock}).
     */
    int onlyJoined() {
        int result = -1;
        for (int i = 0; i < held.length; i++) {
            if (joined[i]) {
                if (result != -1 || inBlock(i) == null) {
                    return -2;
                }
                result = i;
            }
        }
        return result;
    }

    /** Whether the session holds no connection. */
    boolean holdsNone() {
        for (BackendConnection each : held) {
            if (each != null) {
                return false;
            }
        }
        return true;
    }

    /**
     * Borrows together the connections of {@code slots} not held yet, so that none of them is held while another is
     * waited for ({@link BackendConnections#borrowAll}); a single missing one is left to {@link #acquire}.
     */
    void acquireAll(int[] slots) throws StatementFailure {
        int missing = 0;
        for (int slot : slots) {
            if (held[slot] == null) {
                missing++;
            }
        }
        if (missing < 2 || closed) {
            return;
        }
        int[] wanted = new int[missing];
        BackendDataSource[] sources = new BackendDataSource[missing];
        for (int i = 0, k = 0; i < slots.length; i++) {
            if (held[slots[i]] == null) {
                wanted[k] = slots[i];
                sources[k++] = database.slotDataSource(slots[i]);
            }
        }
        BackendConnections.Borrowed borrowed = BackendConnections.borrowAll(sources, loop);
        if (borrowed.error() != null) {
            // Each error names its data source already (down, a login refused, no connection free in time).
            throw new StatementFailure(borrowed.error());
        }
        BackendConnection[] got = borrowed.connections();
        for (int k = 0; k < missing; k++) {
            try {
                settings.give(got[k]);
            } catch (SQLException e) {
                for (int j = k; j < missing; j++) {
                    got[j].release();
                }
                throw new StatementFailure(ErrorFields.from(e), e);
            }
            held[wanted[k]] = got[k];
        }
    }

    /** Whether the slot's connection joined the transaction in force. */
    boolean joined(int slot) {
        return joined[slot];
    }

    /** The slot's connection ran its transaction's BEGIN. */
    void join(int slot) {
        joined[slot] = true;
    }

    /** The slot's connection changed data (or may have) in the transaction in force. */
    /** The transaction locked a parent row FOR KEY SHARE on this slot's data source: it commits after the others written to. */
    void markKeyLocked(int slot) {
        keyLocked[slot] = true;
    }

    boolean keyLocked(int slot) {
        return keyLocked[slot];
    }

    void markWritten(int slot) {
        written[slot] = true;
    }

    /** The slots' connections changed data (or may have) in the transaction in force. */
    void markWritten(int[] slots) {
        for (int slot : slots) {
            written[slot] = true;
        }
    }

    /** Whether the slot's connection changed data in the transaction in force. */
    boolean written(int slot) {
        return written[slot];
    }

    /** The slot's connection is out of the transaction (it ended there: PREPARE TRANSACTION, COMMIT or ROLLBACK ran). */
    void leave(int slot) {
        joined[slot] = false;
        written[slot] = false;
    }

    /** The connections whose statement was sent with a BEGIN joined, unless the backend is idle after it. */
    void markJoined(int[] slots, boolean[] begin) {
        for (int i = 0; i < slots.length; i++) {
            if (begin[i] && held[slots[i]] != null && held[slots[i]].status() != 'I') {
                joined[slots[i]] = true;
            }
        }
    }

    /** Whether the slot's connection holds state of the session's for good. */
    boolean bound(int slot) {
        return bound[slot];
    }

    /** The slot's connection holds state of the session's: it stays until the session ends. */
    void markBound(int slot) {
        bound[slot] = true;
        BackendConnection connection = held[slot];
        if (connection != null && asyncSignal != null) {
            connection.onAsync(asyncSignal);
        }
    }

    /** Whether a joined connection's transaction failed on its backend. */
    boolean anyJoinedFailed() {
        for (int i = 0; i < held.length; i++) {
            if (held[i] != null && joined[i] && held[i].status() == 'E') {
                return true;
            }
        }
        return false;
    }

    /** The data source of a joined connection that ended (its part of the transaction is gone), or null. */
    String brokenJoined() {
        for (int i = 0; i < held.length; i++) {
            if (held[i] != null && joined[i] && held[i].isBroken()) {
                return held[i].dataSource().name();
            }
        }
        return null;
    }

    /**
     * Ends the transaction on every joined connection, COMMIT where it may commit (its backend's
     * transaction did not fail), else ROLLBACK.
     *
     * @return the first failure, or null
     */
    StatementFailure endJoined(boolean commit) {
        StatementFailure first = null;
        // The data sources written to first, those holding a parent row FOR KEY SHARE for a foreign key the proxy
        // enforces after them, and those only read last: such a lock is released after the rows it protects are visible.
        for (int n = 0; n < 3 * held.length; n++) {
            int i = n % held.length;
            int wave = n / held.length;
            BackendConnection connection = held[i];
            if (connection == null || !joined[i] || wave != (!written[i] ? 2 : keyLocked[i] ? 1 : 0)) {
                continue;
            }
            boolean doCommit = commit && first == null && connection.status() == 'T';
            try {
                runOn(connection, doCommit ? "COMMIT" : "ROLLBACK");
            } catch (StatementFailure failure) {
                if (first == null) {
                    first = failure;
                }
            }
            joined[i] = false;
        }
        leaveAll();
        return first;
    }

    /** The transaction ended on every joined connection (the event loop ran its COMMIT or ROLLBACK): none is joined. */
    void leaveAll() {
        java.util.Arrays.fill(joined, false);
        java.util.Arrays.fill(written, false);
        java.util.Arrays.fill(keyLocked, false);
    }

    /** Runs a statement on every joined connection; throws the first failure after all ran. */
    void runOnJoined(String sql) throws StatementFailure {
        StatementFailure first = null;
        for (int i = 0; i < held.length; i++) {
            if (joined[i] && held[i] != null) {
                try {
                    runOn(held[i], sql);
                } catch (StatementFailure failure) {
                    if (first == null) {
                        first = failure;
                    }
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    static void runOn(BackendConnection connection, String sql) throws StatementFailure {
        try {
            TextRows.run(connection, sql);
        } catch (SQLException e) {
            throw new StatementFailure(ErrorFields.from(e), e);
        }
    }

    /**
     * After a statement: broken connections are dropped, and connections nothing keeps go back
     * to their pools.
     *
     * @param inTransaction whether a transaction is in force (its joined connections stay)
     * @return the data source of a joined connection that broke (the transaction lost its part there), or null
     */
    String releaseUnused(boolean inTransaction) {
        String lost = null;
        for (int i = 0; i < held.length; i++) {
            BackendConnection connection = held[i];
            if (connection == null) {
                continue;
            }
            if (connection.isBroken()) {
                held[i] = null;
                if (joined[i]) {
                    lost = connection.dataSource().name();
                }
                joined[i] = false;
                written[i] = false;
                connection.settings(SessionSettings.EMPTY);
                connection.release();
                continue;
            }
            if (inTransaction || bound[i] || joined[i] || connection.isStreaming()) {
                continue;
            }
            if (connection.status() != 'I') {
                continue;
            }
            held[i] = null;
            connection.release();
        }
        return lost;
    }

    /** Whom to tell when a connection kept for the session's state gets a notification while no statement runs. */
    void onAsync(Runnable signal) {
        asyncSignal = signal;
    }

    /** Passes on what the connections kept for the session's state received of themselves since their last statement. */
    void relayAsync(ResultSink sink) {
        for (int i = 0; i < held.length; i++) {
            BackendConnection connection = held[i];
            if (connection != null && bound[i]) {
                connection.relayAsync(sink);
            }
        }
    }

    /** Cancels what runs on every connection held (called from another thread). */
    void cancel() {
        BackendConnection[] now = held;
        for (BackendConnection connection : now) {
            if (connection != null) {
                connection.cancel();
            }
        }
    }

    /** The session ends: every connection goes back, rolled back and reset ({@link SettingsTracker#releaseAtEnd}). */
    void close() {
        for (int i = 0; i < held.length; i++) {
            BackendConnection connection = held[i];
            if (connection == null) {
                continue;
            }
            held[i] = null;
            SettingsTracker.releaseAtEnd(connection, bound[i]);
        }
        closed = true;
    }
}
