package io.ashlar.frontend.relay;

import io.ashlar.backend.pg.LinkPool;

/**
 * A {@link RelaySession}'s requests as the metrics and the statement log see them: when each began
 * (its first message) and ended (the client's ReadyForQuery), the statements it passed on
 * (sql-show's lines), and the slow ones. Nothing is timed while both are off.
 */
final class RequestLog {

    private final LinkPool.LoopPool pool;
    /** Where statements and transactions are counted; null while metrics are off. */
    private io.ashlar.backend.metrics.SessionCounters counters;
    /** When the request being answered began (its first message); 0 between requests. */
    private long requestStarted;
    /** sql-show and the slow-query log, or null while both are off. */
    private io.ashlar.backend.metrics.StatementLog statementLog;
    private String database = "";
    /** The SQL the request ran last (its query, or its last bound statement's), for the slow-query log. */
    private String lastSql = "";

    /** @param pool the connections the session's statements run on, named in the slow-query log and sql-show */
    RequestLog(LinkPool.LoopPool pool) {
        this.pool = pool;
    }

    /** Counts requests in {@code counters} (null: none). */
    void counters(io.ashlar.backend.metrics.SessionCounters counters) {
        this.counters = counters;
    }

    /** Logs statements (sql-show) and slow requests in {@code log} (null: none). */
    void statementLog(io.ashlar.backend.metrics.StatementLog log, String database) {
        this.statementLog = log;
        this.database = database;
    }

    /** A message from the client: the first of a request starts its clock. */
    void message() {
        if ((counters != null || statementLog != null) && requestStarted == 0) {
            requestStarted = System.nanoTime();
        }
    }

    /** A ReadyForQuery of the client's went out: its request is over. */
    void ended(char status, String loginUser) {
        if (requestStarted == 0) {
            return;
        }
        long elapsed = System.nanoTime() - requestStarted;
        requestStarted = 0;
        if (counters != null) {
            counters.requestEnded(elapsed, status);
        }
        if (statementLog != null && statementLog.slow(elapsed)) {
            statementLog.slow(database, loginUser, elapsed, "units: " + pool.dataSourceName() + " ::: " + lastSql);
        }
    }

    /** sql-show's lines of a statement the relay passes on as it is, and what the slow-query log names. */
    void shown(String sql) {
        if (statementLog == null) {
            return;
        }
        lastSql = sql;
        if (statementLog.showsSql()) {
            statementLog.logic(sql);
            if (statementLog.simple()) {
                statementLog.actualSimple(java.util.List.of(pool.dataSourceName()), 1);
            } else {
                statementLog.actual(pool.dataSourceName(), sql, io.ashlar.backend.datasource.ParameterValues.NONE);
            }
        }
    }
}
