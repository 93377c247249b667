package io.ashlar.parser.statement;

import java.util.List;

/**
 * A WHERE clause reduced to what a router can use: an OR of {@link Conjunction}s (disjunctive normal
 * form). Every row the clause lets through satisfies at least one conjunction, so the shards a
 * statement needs are the union, over the conjunctions, of the shards that satisfy all of a
 * conjunction's conditions on sharding columns.
 *
 * <p>Parts the analyzer cannot use ({@code NOT}, {@code <>}, functions, subqueries, {@code LIKE},
 * ...) are dropped from the conjunction they are ANDed into, which only widens the route, and turn a
 * disjunct into {@link Conjunction#UNRESTRICTED} when ORed, which means "any shard". So the
 * conditions never exclude a shard that holds a matching row. When normalising would give more than
 * {@link #MAX_CONJUNCTIONS} conjunctions, the clause becomes {@link #UNRESTRICTED} instead.
 *
 * @param disjuncts never empty; a single unrestricted conjunction when nothing restricts the rows
 */
public record ShardingConditions(List<Conjunction> disjuncts) {
    /** The most conjunctions kept before giving up and routing to every shard. */
    public static final int MAX_CONJUNCTIONS = 64;

    /** No WHERE clause, or nothing usable in it. */
    public static final ShardingConditions UNRESTRICTED = new ShardingConditions(List.of(Conjunction.UNRESTRICTED));

    public ShardingConditions {
        if (disjuncts.isEmpty()) {
            throw new IllegalArgumentException("no conjunctions");
        }
        disjuncts = List.copyOf(disjuncts);
    }

    /** Whether some disjunct restricts nothing, so that the statement may need every shard. */
    public boolean isUnrestricted() {
        for (Conjunction conjunction : disjuncts) {
            if (conjunction.isUnrestricted()) {
                return true;
            }
        }
        return false;
    }
}
