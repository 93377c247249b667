package io.ashlar.backend.metrics;

/**
 * What the client sessions of one logical database on one event loop did: statements by kind (read from the command
 * tags the clients get), transactions, bytes each way, and how long requests took. Written by that loop's thread only
 * (its relayed sessions, and the virtual threads of its sharded sessions, which run on it), in plain fields: no
 * atomic, no lock, no allocation per statement; read by the metrics endpoint without synchronisation.
 */
public final class SessionCounters {

    /** The statement kinds counted, by the command tag's first word. */
    public enum Kind {
        SELECT, INSERT, UPDATE, DELETE, MERGE, COPY, OTHER;

        public String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    private static final Kind[] KINDS = Kind.values();

    final long[] statements = new long[KINDS.length];
    long transactions;
    /** Statements the event loop ran itself, without the session's thread (a sharded read of one shard). */
    long onLoop;
    long bytesReceived;
    long bytesSent;
    /** From a request's first message to its ReadyForQuery. */
    final Histogram requests = new Histogram();
    /** A sharded statement's parse: the text lexed and split, and its analysis found in the plan cache (or made). */
    final Histogram parse = new Histogram();
    /** A sharded statement's route and rewrite (its plan, taken from the plan cache, included). */
    final Histogram route = new Histogram();

    /** A CommandComplete whose tag starts with these three characters (NUL past its end) went to the client. */
    public void statement(int c0, int c1, int c2) {
        statements[kind(c0, c1, c2).ordinal()]++;
    }

    /** The kind of a command tag, by its first letters (SELECT and not SET or SHOW, DELETE and not DECLARE, ...). */
    static Kind kind(int c0, int c1, int c2) {
        return switch (c0) {
            case 'S' -> c1 == 'E' && c2 == 'L' ? Kind.SELECT : Kind.OTHER;
            case 'I' -> c1 == 'N' ? Kind.INSERT : Kind.OTHER;
            case 'U' -> c1 == 'P' ? Kind.UPDATE : Kind.OTHER;
            case 'D' -> c1 == 'E' && c2 == 'L' ? Kind.DELETE : Kind.OTHER;
            case 'M' -> c1 == 'E' ? Kind.MERGE : Kind.OTHER;
            case 'C' -> c1 == 'O' && c2 == 'P' ? Kind.COPY : Kind.OTHER;
            default -> Kind.OTHER;
        };
    }

    /** A statement whose tag is {@code tag}. */
    public void statement(String tag) {
        int n = tag.length();
        statement(n > 0 ? tag.charAt(0) : 0, n > 1 ? tag.charAt(1) : 0, n > 2 ? tag.charAt(2) : 0);
    }

    /** A statement the event loop ran itself. */
    public void ranOnLoop() {
        onLoop++;
    }

    public void received(int bytes) {
        bytesReceived += bytes;
    }

    public void sent(int bytes) {
        bytesSent += bytes;
    }

    /**
     * A request (a simple query, or extended-protocol messages up to Sync) ended with a ReadyForQuery of this status: its time is counted, and a transaction when it left the
     * session outside one.
     */
    public void requestEnded(long nanos, char status) {
        if (status == 'I') {
            transactions++;
        }
        requests.record(nanos);
    }

    /** A sharded statement's parse took this long. */
    public void parse(long nanos) {
        parse.record(nanos);
    }

    /** A sharded statement's route and rewrite took this long. */
    public void route(long nanos) {
        route.record(nanos);
    }
}
