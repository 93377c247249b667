package io.ashlar.backend.metadata;

import io.ashlar.backend.sharding.Plan;

/**
 * What the logical schema makes of one statement, worked out once per statement text and schema version and kept
 * with its {@link Plan}: whether it is a catalog query, and whether it reads session values the proxy answers.
 *
 * @param version      the {@link LogicalSchema#version()} it was worked out against
 * @param catalogQuery whether it reads the catalog of relations (the catalog database answers it)
 * @param sessionValues whether its session values are the proxy's to answer
 */
public record LogicalPlan(long version, boolean catalogQuery, boolean sessionValues) {

    /** Whether the statement runs as it is. */
    boolean plain() {
        return !catalogQuery && !sessionValues;
    }
}
