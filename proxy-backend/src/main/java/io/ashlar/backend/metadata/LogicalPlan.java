package io.ashlar.backend.metadata;

import io.ashlar.backend.sharding.Plan;

/**
 * What the logical database makes of one statement, worked out once per statement text and kept with its
 * {@link Plan}.
 *
 * @param sessionValues whether its session values are the proxy's to answer
 */
public record LogicalPlan(boolean sessionValues) {

    /** Whether the statement runs as it is. */
    boolean plain() {
        return !sessionValues;
    }
}
