package io.ashlar.backend.sharding;

import io.ashlar.parser.StatementAnalyzer;
import io.ashlar.parser.lexer.StatementRange;
import io.ashlar.parser.lexer.TokenList;
import io.ashlar.parser.statement.AnalyzedStatement;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Analysed statements by SQL text, shared by every session of a logical database: a statement
 * is analysed once, and every later Parse or simple query of the same text reuses the analysis.
 * Reads take no lock; when the cache holds too many texts (applications that inline literals),
 * it starts over rather than tracking recency on every hit.
 */
public final class PlanCache {

    private static final int MAX_ENTRIES = 20_000;
    private static final int SEEN_SLOTS = 8192;

    private final int[] seenOnce = new int[SEEN_SLOTS];

    private final ConcurrentHashMap<String, Plan> plans = new ConcurrentHashMap<>();
    private final java.util.concurrent.atomic.AtomicLong schemaEpoch = new java.util.concurrent.atomic.AtomicLong();

    /** The plan for this SQL text; analyses it on a miss. Lexer errors propagate as SqlSyntaxException. */
    public Plan get(String sql) {
        Plan result = plans.get(sql);
        return result != null ? result : keep(sql, new Plan(StatementAnalyzer.analyze(sql)));
    }

    /** A plan for a text made once and never again (an INSERT carrying rows the proxy read): analysed, not kept. */
    public Plan uncached(String sql) {
        return new Plan(StatementAnalyzer.analyze(sql));
    }

    /**
     * The plan of a statement a simple query string starts with: {@code tokens} are the string's
     * (lexed once to split it), {@code range} the statement's. The statement is analysed from those
     * tokens, not lexed again, when it starts the string; its text is the cache key either way.
     */
    public Plan get(String sql, TokenList tokens, StatementRange range) {
        // A statement that starts the string is analysed from its tokens, whose text (the string up to the statement's
        // end) is cut once, for them and for the key.
        TokenList own = range.start() == 0 && range.firstToken() == 0 ? tokens.prefix(range.end(), range.endToken()) : null;
        String text = own != null ? own.sql() : range.text(sql);
        Plan result = plans.get(text);
        if (result != null) {
            return result;
        }
        return analysed(text, new Plan(own != null ? StatementAnalyzer.analyze(own) : StatementAnalyzer.analyze(text)));
    }

    /**
     * A simple query's plan just made, kept the second time its text is analysed, not the first:
     * simple queries mostly carry their literals and are seldom seen twice, and keeping each cost
     * a map insertion and, every {@value #MAX_ENTRIES} of them, the whole cache (Parse texts have
     * parameters and are kept at once). The texts seen once are a table of hash codes: a collision
     * keeps a text early or late, nothing worse; racy writes to it are harmless for the same reason.
     */
    private Plan analysed(String sql, Plan plan) {
        int hash = sql.hashCode();
        int slot = (hash ^ (hash >>> 16)) & (SEEN_SLOTS - 1);
        if (seenOnce[slot] != hash) {
            seenOnce[slot] = hash;
            return plan;
        }
        return keep(sql, plan);
    }

    private Plan keep(String sql, Plan plan) {
        if (plans.size() >= MAX_ENTRIES) {
            plans.clear();
        }
        Plan raced = plans.putIfAbsent(sql, plan);
        return raced != null ? raced : plan;
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
