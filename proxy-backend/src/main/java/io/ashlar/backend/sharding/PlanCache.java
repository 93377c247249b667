package io.ashlar.backend.sharding;

import io.ashlar.parser.StatementAnalyzer;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Analysed statements by SQL text, shared by every session of a logical database: a statement
 * is analysed once, and every later Parse or simple query of the same text reuses the analysis.
 * Reads take no lock; when the cache holds too many texts (applications that inline literals),
 * it starts over rather than tracking recency on every hit.
 */
public final class PlanCache {

    private static final int MAX_ENTRIES = 20_000;

    private final ConcurrentHashMap<String, Plan> plans = new ConcurrentHashMap<>();
    private final java.util.concurrent.atomic.AtomicLong schemaEpoch = new java.util.concurrent.atomic.AtomicLong();

    /** The plan for this SQL text; analyses it on a miss. Lexer errors propagate as SqlSyntaxException. */
    public Plan get(String sql) {
        Plan result = plans.get(sql);
        if (result == null) {
            result = new Plan(StatementAnalyzer.analyze(sql));
            if (plans.size() >= MAX_ENTRIES) {
                plans.clear();
            }
            Plan raced = plans.putIfAbsent(sql, result);
            if (raced != null) {
                result = raced;
            }
        }
        return result;
    }

    public int size() {
        return plans.size();
    }

    /** Counts the schema changes the proxy ran (DDL): parameter types learnt before one are not trusted after it. */
    public long schemaEpoch() {
        return schemaEpoch.get();
    }

    /** A DDL statement ran: what backends said about parameter types may have changed. */
    public void schemaChanged() {
        schemaEpoch.incrementAndGet();
    }
}
