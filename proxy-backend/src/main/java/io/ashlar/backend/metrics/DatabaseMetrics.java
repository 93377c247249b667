package io.ashlar.backend.metrics;

import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * The metrics of one logical database's client sessions: a {@link SessionCounters} per event loop, which a session
 * looks up once when it opens (never per statement), and errors by SQLSTATE (counted where an error goes to a client:
 * off the statement's path, so a map and a LongAdder are fine there).
 */
public final class DatabaseMetrics {

    private final Map<Object, SessionCounters> loops = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> errors = new ConcurrentHashMap<>();

    /** The counters of the sessions of one event loop. */
    public SessionCounters on(Object loop) {
        SessionCounters result = loops.get(loop);
        return result != null ? result : loops.computeIfAbsent(loop, ignored -> new SessionCounters());
    }

    /** An ErrorResponse with this SQLSTATE went to a client. */
    public void error(String sqlState) {
        LongAdder count = errors.get(sqlState);
        if (count == null) {
            count = errors.computeIfAbsent(sqlState, ignored -> new LongAdder());
        }
        count.increment();
    }

    /** Everything counted so far, added up over the loops. */
    public Totals totals() {
        Totals result = new Totals();
        for (SessionCounters each : loops.values()) {
            for (int i = 0; i < result.statements.length; i++) {
                result.statements[i] += each.statements[i];
            }
            result.transactions += each.transactions;
            result.onLoop += each.onLoop;
            result.bytesReceived += each.bytesReceived;
            result.bytesSent += each.bytesSent;
            result.requests.add(each.requests);
            result.parse.add(each.parse);
            result.route.add(each.route);
        }
        errors.forEach((state, count) -> result.errors.put(state, count.sum()));
        return result;
    }

    /** A database's counts at one moment. */
    public static final class Totals {
        public final long[] statements = new long[SessionCounters.Kind.values().length];
        public long transactions;
        public long onLoop;
        public long bytesReceived;
        public long bytesSent;
        public final Histogram.Sum requests = new Histogram.Sum();
        public final Histogram.Sum parse = new Histogram.Sum();
        public final Histogram.Sum route = new Histogram.Sum();
        public final Map<String, Long> errors = new java.util.TreeMap<>();
    }

    Collection<SessionCounters> counters() {
        return loops.values();
    }
}
