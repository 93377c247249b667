package io.ashlar.parser.statement;

import java.util.List;

/**
 * Conditions that all hold together (an AND). An empty conjunction restricts nothing: the rows it
 * describes may be on any shard.
 */
public record Conjunction(List<ShardingCondition> conditions) {
    /** The conjunction that restricts nothing. */
    public static final Conjunction UNRESTRICTED = new Conjunction(List.of());

    public Conjunction {
        conditions = List.copyOf(conditions);
    }

    public boolean isUnrestricted() {
        return conditions.isEmpty();
    }
}
