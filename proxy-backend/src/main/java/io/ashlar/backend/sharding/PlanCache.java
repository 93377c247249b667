package io.ashlar.backend.sharding;

import io.ashlar.parser.LiteralShape;
import io.ashlar.parser.StatementAnalyzer;
import io.ashlar.parser.lexer.StatementRange;
import io.ashlar.parser.lexer.TokenList;
import io.ashlar.parser.statement.AnalyzedStatement;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Analysed statements by SQL text, shared by every session of a logical database: a statement
 * is analysed once, and every later Parse or simple query of the same text reuses the analysis.
 * Reads take no lock; when the cache holds too many texts (applications that inline literals),
 * it starts over rather than tracking recency on every hit.
 */
public final class PlanCache {

    private static final int MAX_ENTRIES = 20_000;
    private static final int MAX_SHAPES = 4096;
    private static final int SEEN_SLOTS = 8192;

    private final int[] seenOnce = new int[SEEN_SLOTS];

    private final ConcurrentHashMap<String, Plan> plans = new ConcurrentHashMap<>();
    /** Simple queries' shapes by {@link LiteralShape#key}, with the plan each was made from. */
    private final ConcurrentHashMap<String, Shape> shapes = new ConcurrentHashMap<>();
    private final java.util.concurrent.atomic.AtomicLong schemaEpoch = new java.util.concurrent.atomic.AtomicLong();
    private final LongAdder analyses = new LongAdder();
    private final LongAdder rebinds = new LongAdder();

    /** The plan for this SQL text; analyses it on a miss. Lexer errors propagate as SqlSyntaxException. */
    public Plan get(String sql) {
        Plan result = plans.get(sql);
        return result != null ? result : keep(sql, new Plan(analyze(sql)));
    }

    /** A plan for a text made once and never again (an INSERT carrying rows the proxy read): analysed, not kept. */
    public Plan uncached(String sql) {
        return new Plan(analyze(sql));
    }

    private AnalyzedStatement analyze(String sql) {
        analyses.increment();
        return StatementAnalyzer.analyze(sql);
    }

    private AnalyzedStatement analyze(TokenList tokens) {
        analyses.increment();
        return StatementAnalyzer.analyze(tokens);
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
        // A text of a verified shape is its template's analysis with its own constants, made without parsing; a text
        // seen again just before gets the same plan (and what later steps cached for it, its rewrite, say).
        String key = own == null ? null : LiteralShape.key(own);
        Shape shape = key == null ? null : shapes.get(key);
        if (shape != null && shape.literals.verified()) {
            Plan last = shape.last;
            if (last != null && last.statement().sql().equals(text)) {
                return last;
            }
            AnalyzedStatement rebound = shape.literals.rebind(own);
            if (rebound != null) {
                return rebound(shape, rebound);
            }
        }
        Plan result = plans.get(text);
        if (result != null) {
            return result;
        }
        if (own == null) {
            return analysed(text, new Plan(analyze(text)));
        }
        Plan plan = new Plan(analyze(own));
        if (shape != null) {
            shape.literals.verify(own, plan.statement());
        } else if (key != null) {
            LiteralShape literals = LiteralShape.of(plan.statement(), own);
            if (literals != null) {
                if (shapes.size() >= MAX_SHAPES) {
                    shapes.clear();
                }
                Shape made = new Shape(literals, plan);
                plan.shape = made;
                shapes.putIfAbsent(key, made);
            }
        }
        return analysed(text, plan);
    }

    /**
     * The plan of a simple query string that is a text of the shape {@code previous}'s was (the plan of the session's
     * last simple query, say), found from its characters alone ({@link LiteralShape#textEnd}): not lexed, not split,
     * not looked up. Sessions that send one shape again and again with other constants (pgbench's {@code -S}, an
     * application's lookups by key) get each plan for a compare of the texts.
     *
     * @return the plan, or null when the string is not of that shape (or the shape is not verified yet)
     */
    public Plan ofShape(String sql, Plan previous) {
        Shape shape = previous.shape;
        if (shape == null || !shape.literals.verified()) {
            return null;
        }
        int end = shape.literals.textEnd(sql);
        if (end < 0) {
            return null;
        }
        String text = end == sql.length() ? sql : sql.substring(0, end);
        Plan last = shape.last;
        if (last != null && last.statement().sql().equals(text)) {
            return last;
        }
        return rebound(shape, shape.literals.rebind(text));
    }

    private Plan rebound(Shape shape, AnalyzedStatement statement) {
        rebinds.increment();
        Plan plan = new Plan(statement, shape.plan, shape.literals.digitsVary());
        plan.shape = shape;
        shape.last = plan;
        return plan;
    }

    /**
     * The shape of simple queries that differ only in the constants they compare columns with, and the plan of the
     * text it was made from: a text of the shape is not parsed once the shape is verified, its analysis is the
     * template's with its own constants, and what the logical schema made of the template serves it too.
     */
    static final class Shape {
        final LiteralShape literals;
        final Plan plan;
        /**
         * The plan made last for a text of this shape. Written racily: a Plan's final fields make it safe to read from
         * any thread, and a lost write only costs a rebinding.
         */
        Plan last;

        Shape(LiteralShape literals, Plan plan) {
            this.literals = literals;
            this.plan = plan;
        }
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

    /** How many texts were parsed and analysed: neither their own plan nor their shape's served them. */
    public long analyses() {
        return analyses.sum();
    }

    /** How many texts had their analysis made from their shape's ({@link LiteralShape#rebind}), without parsing. */
    public long rebinds() {
        return rebinds.sum();
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
