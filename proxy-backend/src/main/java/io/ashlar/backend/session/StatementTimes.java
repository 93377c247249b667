package io.ashlar.backend.session;

import io.ashlar.backend.metrics.SessionCounters;
import io.ashlar.backend.metrics.StatementLog;
import io.ashlar.backend.sharding.Plan;
import io.ashlar.backend.sharding.ShardedExecution;

/**
 * A sharded session's statements as metrics and the statement log see them: the parse's and the route's times counted
 * (the client's loop's counters of this database), the routed statement shown (sql-show), and the last routed
 * statement with its stages' times kept for the slow-query log ({@link #lastStatement}). While metrics and the log are
 * off nothing is timed: the clock is read only when someone counts.
 */
final class StatementTimes {

    /** Where the parse's and the route's times are counted (the client's loop's counters of this database), or null: metrics off. */
    private final SessionCounters counters;
    /** sql-show and the slow-query log, or null while both are off. */
    private final StatementLog statementLog;
    /** The last routed statement and its stages' times, kept for the slow-query log. */
    private ShardedExecution lastExecution;
    private long lastRouteNanos;
    private long lastRunNanos;

    StatementTimes(SessionCounters counters, StatementLog statementLog) {
        this.counters = counters;
        this.statementLog = statementLog;
    }

    /** A new statement from the client: the last one is forgotten. */
    void forgetLast() {
        lastExecution = null;
    }

    /** When parsing starts, if its time is counted; else 0. */
    long parseStarted() {
        return counters == null ? 0 : System.nanoTime();
    }

    /** The parse begun at {@code started} (not 0) ended. */
    void parsed(long started) {
        counters.parse(System.nanoTime() - started);
    }

    /** When routing starts, if its time is counted or logged; else 0. */
    long routeStarted() {
        return counters == null && statementLog == null ? 0 : System.nanoTime();
    }

    /** The route begun at {@code started} (not 0) made {@code execution}: its time counted, the statement kept and shown. */
    void routed(long started, Plan plan, ShardedExecution execution) {
        long routed = System.nanoTime() - started;
        if (counters != null) {
            counters.route(routed);
        }
        if (statementLog != null) {
            lastExecution = execution;
            lastRouteNanos = routed;
            lastRunNanos = 0;
            if (statementLog.showsSql()) {
                statementLog.logic(plan.statement().sql());
                execution.show(statementLog);
            }
        }
    }

    /** When the backends' run starts, if the slow-query log wants its time; else 0. */
    long runStarted() {
        return statementLog == null ? 0 : System.nanoTime();
    }

    /** The run begun at {@code started} (not 0) has its first rows. */
    void ran(long started) {
        lastRunNanos = System.nanoTime() - started;
    }

    /** The last routed statement's stages and units, for the slow-query log; empty when none was routed. */
    String lastStatement() {
        ShardedExecution last = lastExecution;
        if (last == null) {
            return "";
        }
        return "route " + StatementLog.millis(lastRouteNanos) + " ms, backend "
                + StatementLog.millis(lastRunNanos) + " ms (to the first rows of a streamed result);"
                + " units: " + last.describeUnits();
    }
}
