package io.ashlar.backend.sharding;

import io.ashlar.parser.statement.AnalyzedStatement;
import io.ashlar.rewrite.StatementRewriter;

/**
 * What the proxy keeps per SQL text: the analysis, computed once, and what later steps cache
 * for it.
 */
public final class Plan {

    /** {@link #parameterTypes(int[], long)} when no backend has described the statement yet. */
    public static final int[] NOT_LEARNT = new int[0];

    private final AnalyzedStatement statement;
    private final StatementRewriter rewriter;
    private final io.ashlar.backend.execute.CommandTags.Effect textEffect;
    /** What the statement does with sequences, or null: nothing (most statements). */
    private final SequenceStatement sequence;
    private volatile LearntTypes learntTypes;
    /** The shape of simple queries this text is one of (PlanCache), or null. Set once, before the plan is shared. */
    PlanCache.Shape shape;
    private volatile io.ashlar.backend.metadata.LogicalPlan logical;

    /** Parameter types a backend inferred for declared types, at a schema epoch of the {@link PlanCache}. */
    private record LearntTypes(int[] declared, int[] types, long epoch) {
    }

    Plan(AnalyzedStatement statement) {
        this.statement = statement;
        this.rewriter = StatementRewriter.of(statement);
        this.sequence = SequenceStatement.of(statement);
        this.textEffect = effect(statement, sequence);
    }

    /**
     * The plan of a text of {@code shapeOf}'s shape ({@link io.ashlar.parser.LiteralShape}), {@code statement} its
     * analysis rebound from that plan's. What the logical schema made of that plan serves this one when the statement
     * runs as it is (one it changes, with its columns written out, say, is made anew from this text). When only
     * digits vary, the text's sequence functions and its effect on the session are that plan's too: both are read
     * from names, which digits neither make nor break.
     */
    Plan(AnalyzedStatement statement, Plan shapeOf, boolean digitsVary) {
        this.statement = statement;
        this.rewriter = StatementRewriter.of(statement);
        if (digitsVary && shapeOf.sequence == null) {
            this.sequence = null;
            this.textEffect = shapeOf.textEffect;
        } else {
            this.sequence = SequenceStatement.of(statement);
            this.textEffect = effect(statement, sequence);
        }
        io.ashlar.backend.metadata.LogicalPlan state = shapeOf.logical;
        if (state != null && state.plain()) {
            this.logical = state;
        }
    }

    private static io.ashlar.backend.execute.CommandTags.Effect effect(AnalyzedStatement statement,
                                                                    SequenceStatement sequence) {
        // A session's currval and lastval live on the backend connection its nextval ran on: it keeps that connection.
        return sequence != null && sequence.kind() == SequenceStatement.Kind.NEXTVAL
                ? io.ashlar.backend.execute.CommandTags.Effect.SESSION_STATE
                : io.ashlar.backend.execute.CommandTags.textEffect(statement.sql());
    }

    /** Whether this is the plan of a text of a literal shape ({@link PlanCache#ofShape} may find others from it). */
    public boolean shaped() {
        return shape != null;
    }

    /** Whether both are plans of texts of one literal shape. */
    public boolean sameShape(Plan other) {
        return shape != null && shape == other.shape;
    }

    /** What the statement does with sequences, or null when it mentions none. */
    public SequenceStatement sequence() {
        return sequence;
    }

    /** What the text says about the session (a set_config call, a session advisory lock), worked out once. */
    public io.ashlar.backend.execute.CommandTags.Effect textEffect() {
        return textEffect;
    }

    /** What the logical schema made of this statement, or null before it was asked. */
    public io.ashlar.backend.metadata.LogicalPlan logical() {
        return logical;
    }

    public void logical(io.ashlar.backend.metadata.LogicalPlan logical) {
        this.logical = logical;
    }

    public AnalyzedStatement statement() {
        return statement;
    }

    /** The statement's rewriter, which caches the SQL it builds per unit shape. */
    public StatementRewriter rewriter() {
        return rewriter;
    }

    /**
     * The types PostgreSQL gives this statement's parameters when the client declares
     * {@code declared} (0 where it leaves the type to the server), as a backend's Describe
     * reported them (its ParameterDescription) since the last schema change the proxy saw.
     * Clients that leave types unspecified (asyncpg, node-postgres, psycopg's text) send the
     * same text again and again: one Describe serves every session and execution of it.
     *
     * @return the types, or {@link #NOT_LEARNT}
     */
    public int[] parameterTypes(int[] declared, long schemaEpoch) {
        LearntTypes learnt = learntTypes;
        if (learnt != null && learnt.epoch == schemaEpoch && java.util.Arrays.equals(learnt.declared, declared)) {
            return learnt.types;
        }
        return NOT_LEARNT;
    }

    /** Remembers what a backend's Describe said the parameter types are (one set of declared types at a time). */
    public void learnParameterTypes(int[] declared, int[] types, long schemaEpoch) {
        if (types.length == declared.length) {
            learntTypes = new LearntTypes(declared.clone(), types.clone(), schemaEpoch);
        }
    }
}
