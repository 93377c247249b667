package io.ashlar.backend.metadata;

import io.ashlar.backend.sharding.Plan;

/**
 * What the logical schema makes of one statement, worked out once per statement text and schema version and kept
 * with its {@link Plan}: whether it is a catalog query, whether it reads session values the proxy answers, and the
 * statement it becomes when it needs the table's columns written out.
 *
 * @param version      the {@link LogicalSchema#version()} it was worked out against
 * @param catalogQuery whether it reads the catalog of relations (the catalog database answers it)
 * @param sessionValues whether its session values are the proxy's to answer
 * @param withColumns  the same statement with its columns written out (an INSERT's column list, a star over a
 *                     sharded table whose actual tables order their columns differently), or null
 * @param sessionViews whether it reads a view of the session's own objects, which the proxy answers ({@link SessionViews})
 */
public record LogicalPlan(long version, boolean catalogQuery, boolean sessionValues, Plan withColumns, boolean sessionViews) {

    /** Whether the statement runs as it is. */
    public boolean plain() {
        return !catalogQuery && !sessionValues && withColumns == null && !sessionViews;
    }
}
