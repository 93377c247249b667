package io.ashlar.rewrite.query;

import io.ashlar.rewrite.template.SqlTemplate;

/**
 * A SELECT compiled for several shards: the shard SQL and the merge.
 *
 * @param template the shard SQL, with derived columns, pushed-down LIMIT and the proxy's own
 *                 clauses (GROUP BY of DISTINCT aggregate arguments, ORDER BY of the group keys)
 * @param merge    what the proxy does with the shards' rows
 */
public record QueryPlan(SqlTemplate template, MergeSpec merge) {
}
