package io.ashlar.rewrite;

import java.util.List;
import java.util.Optional;

/**
 * One execution's rewrite: the SQL per route unit, in the route's unit order, and how the proxy
 * merges the units' rows. {@link #merge()} is present only for a query over several units
 * ({@link io.ashlar.route.RouteKind#MULTI_QUERY} of a SELECT); a single unit passes its result
 * through and the units of a write are summed by their command tags (RETURNING rows concatenated).
 *
 * @param units one per route unit
 * @param merge the merge of a multi-unit query, bound to this execution's LIMIT and OFFSET
 */
public record RewriteResult(List<RewrittenUnit> units, Optional<MergeTemplate> merge) {

    public RewriteResult {
        units = List.copyOf(units);
    }
}
