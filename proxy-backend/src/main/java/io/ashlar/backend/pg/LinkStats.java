package io.ashlar.backend.pg;

/**
 * What the connections of one data source did on one event loop, for {@code SHOW STATS} (pgbouncer's columns): round
 * trips and transactions, bytes each way, time the backend spent answering, time sessions waited for a connection.
 * Written by that loop's thread only, as plain fields (no atomic, no lock, no allocation on the statement's path);
 * read by an admin command on another thread without synchronisation, which may see a count a moment old: fine for
 * counters that only grow and are read for a report.
 */
public final class LinkStats {

    /** ReadyForQuery messages: one per simple query or extended-protocol Sync (pgbouncer's {@code query_count}). */
    long queries;
    /** ReadyForQuery messages that end a transaction (status idle: an autocommit statement, or COMMIT/ROLLBACK). */
    long transactions;
    long bytesSent;
    long bytesReceived;
    /** Time from a request's first byte sent to its ReadyForQuery, summed. */
    long queryNanos;
    /** Time from the first request outside a transaction to the ReadyForQuery that ends it, summed. */
    long transactionNanos;
    /** Time sessions waited for a connection (to be opened, or to come free), summed. */
    long waitNanos;
    /** How many borrows waited (the others found an idle connection). */
    long waits;
    /** The backend's answer times: request to ReadyForQuery. */
    final io.ashlar.backend.metrics.Histogram queryTimes = new io.ashlar.backend.metrics.Histogram();

    /** The backend's answer times, for the metrics endpoint. */
    public io.ashlar.backend.metrics.Histogram queryTimes() {
        return queryTimes;
    }

    /** A consistent-enough copy for a report. */
    public Snapshot snapshot() {
        return new Snapshot(queries, transactions, bytesSent, bytesReceived, queryNanos / 1000, transactionNanos / 1000,
                waitNanos / 1000, waits);
    }

    /**
     * Totals, times in microseconds (pgbouncer's unit).
     */
    public record Snapshot(long queries, long transactions, long bytesSent, long bytesReceived, long queryMicros,
                           long transactionMicros, long waitMicros, long waits) {

        public static final Snapshot ZERO = new Snapshot(0, 0, 0, 0, 0, 0, 0, 0);

        public Snapshot plus(Snapshot other) {
            return new Snapshot(queries + other.queries, transactions + other.transactions, bytesSent + other.bytesSent,
                    bytesReceived + other.bytesReceived, queryMicros + other.queryMicros,
                    transactionMicros + other.transactionMicros, waitMicros + other.waitMicros, waits + other.waits);
        }
    }
}
