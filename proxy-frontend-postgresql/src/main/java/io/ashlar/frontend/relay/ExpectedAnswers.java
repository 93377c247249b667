package io.ashlar.frontend.relay;

import io.ashlar.backend.pg.ServerLink;
import java.util.ArrayDeque;

/**
 * What the backend will answer a {@link RelaySession}'s connection: one entry per message that
 * gets an answer, in order, saying whether the answer goes to the client, is swallowed (the
 * proxy's own messages: a Parse on a connection that lacked the statement, settings given or read
 * back), or is made by the proxy instead (a CloseComplete for a statement the session forgets
 * while the connection keeps it prepared). After an error the backend skips to Sync, and so do
 * the entries.
 */
final class ExpectedAnswers {

    /** What an entry waits for. */
    enum Kind {
        /** ParseComplete (or an error). */
        PARSE,
        BIND,
        /** ParameterDescription, then RowDescription or NoData. */
        DESCRIBE_STATEMENT,
        /** RowDescription or NoData. */
        DESCRIBE_PORTAL,
        /** DataRows, then CommandComplete, EmptyQueryResponse or PortalSuspended; or a COPY. */
        EXECUTE,
        CLOSE,
        SYNC,
        /** A simple query: everything up to ReadyForQuery. */
        QUERY,
        /** The proxy's own simple query whose answer nobody sees (settings given, a reset). */
        SILENT_QUERY,
        /** The proxy's read-back of the session's settings. */
        READ_BACK,
        /** An error the proxy raises through the backend (so that the backend skips to Sync as for its own). */
        RAISE,
        /** A message the proxy answers itself, at its place in the stream. */
        SYNTHETIC,
        /** A client's message whose body does not read, sent on as it came: only the backend's error ends it. */
        MALFORMED
    }

    /** One answer awaited. */
    static final class Expect {
        static final Expect SYNC = new Expect(Kind.SYNC, true, null, null);
        /** A Sync the client sent after its CopyDone or CopyFail: the backend answers it whatever came before. */
        static final Expect SYNC_AFTER_COPY = new Expect(Kind.SYNC, true, null, null);
        static final Expect BIND = new Expect(Kind.BIND, true, null, null);
        static final Expect EXECUTE = new Expect(Kind.EXECUTE, true, null, null);
        static final Expect DESCRIBE_PORTAL = new Expect(Kind.DESCRIBE_PORTAL, true, null, null);
        static final Expect DESCRIBE_STATEMENT = new Expect(Kind.DESCRIBE_STATEMENT, true, null, null);
        static final Expect CLOSE = new Expect(Kind.CLOSE, true, null, null);
        static final Expect CLOSE_SILENT = new Expect(Kind.CLOSE, false, null, null);
        static final Expect QUERY = new Expect(Kind.QUERY, true, null, null);
        static final Expect SILENT = new Expect(Kind.SILENT_QUERY, false, null, null);
        static final Expect READ_BACK = new Expect(Kind.READ_BACK, false, null, null);
        static final Expect RAISE = new Expect(Kind.RAISE, true, null, null);
        /** The proxy's own error raised as a simple query (its DO block's context is not the client's business). */
        static final Expect RAISE_QUERY = new Expect(Kind.QUERY, true, null, null);
        static final Expect MALFORMED = new Expect(Kind.MALFORMED, true, null, null);

        final Kind kind;
        /** Whether the answer goes to the client. */
        final boolean relay;
        /** PARSE: the statement being prepared (forgotten by the connection if the Parse fails). */
        final ServerLink.PreparedKey key;
        /** SYNTHETIC: the bytes to send. */
        final byte[] bytes;
        /** A Parse of a named statement (sent or answered by the proxy): its name, which the session drops if it fails or is skipped. */
        final String clientName;
        /** A Parse of the unnamed statement: the statement it makes the unnamed one. */
        final ClientStatements.ClientStatement parsedUnnamed;
        /** A Parse of the unnamed statement: the unnamed statement before it, the session's again if the Parse is skipped. */
        final ClientStatements.ClientStatement replacedUnnamed;

        Expect(Kind kind, boolean relay, ServerLink.PreparedKey key, byte[] bytes) {
            this(kind, relay, key, bytes, null);
        }

        Expect(Kind kind, boolean relay, ServerLink.PreparedKey key, byte[] bytes, String clientName) {
            this(kind, relay, key, bytes, clientName, null, null);
        }

        Expect(Kind kind, boolean relay, ServerLink.PreparedKey key, byte[] bytes, String clientName,
               ClientStatements.ClientStatement parsedUnnamed, ClientStatements.ClientStatement replacedUnnamed) {
            this.parsedUnnamed = parsedUnnamed;
            this.kind = kind;
            this.relay = relay;
            this.key = key;
            this.bytes = bytes;
            this.clientName = clientName;
            this.replacedUnnamed = replacedUnnamed;
        }
    }

    private final ArrayDeque<Expect> expected = new ArrayDeque<>();

    boolean isEmpty() {
        return expected.isEmpty();
    }

    /** The answer awaited first, or null. */
    Expect head() {
        return expected.peekFirst();
    }

    void add(Expect expect) {
        expected.addLast(expect);
    }

    /** The head, answered in full. */
    void poll() {
        expected.pollFirst();
    }

    void clear() {
        expected.clear();
    }

    /**
     * An Execute's COPY FROM STDIN started: its entry, {@code head}, stays first, and the Syncs right
     * behind it go, since the backend ignores them until the COPY's end.
     */
    void copyInStarted(Expect head) {
        expected.pollFirst();
        while (expected.peekFirst() == Expect.SYNC) {
            expected.pollFirst();
        }
        expected.addFirst(head);
    }

    /**
     * The next answer the backend drops as it skips to Sync after an error, taken off; null at a
     * Sync or at the end.
     */
    Expect pollBeforeSync() {
        Expect head = expected.peekFirst();
        return head == null || head.kind == Kind.SYNC ? null : expected.pollFirst();
    }

    /** The bytes of a message the proxy answers itself now at the head, taken off; null if the head is another answer. */
    byte[] pollSynthetic() {
        Expect head = expected.peekFirst();
        if (head == null || head.kind != Kind.SYNTHETIC) {
            return null;
        }
        expected.pollFirst();
        return head.bytes;
    }

    /** Whether a Parse of {@code clientName} is awaited (with {@code thenSync}: the last one, and a Sync after it). */
    boolean parsePending(String clientName, boolean thenSync) {
        boolean parse = false;
        boolean syncAfter = false;
        for (Expect each : expected) {
            if (each.kind == Kind.PARSE && clientName.equals(each.clientName)) {
                if (!thenSync) {
                    return true;
                }
                parse = true;
                syncAfter = false;
            } else if (parse && each.kind == Kind.SYNC) {
                syncAfter = true;
            }
        }
        return syncAfter;
    }

    /** Whether only answers nobody sees are awaited (the proxy's own statements: settings given or read back). */
    boolean onlyOwnPending() {
        for (Expect each : expected) {
            if (each.relay) {
                return false;
            }
        }
        return true;
    }
}
