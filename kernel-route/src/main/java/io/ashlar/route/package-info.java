/**
 * Routing: where a statement runs. {@link io.ashlar.route.RouteEngine} takes an analysed statement
 * (kernel-parser), the values bound to its parameters and the compiled rules of the logical database
 * ({@link io.ashlar.route.rule.ShardingRules}) and answers a {@link io.ashlar.route.RouteResult}: the
 * {@link io.ashlar.route.RouteKind} that tells the executor how to run and merge, and the
 * {@link io.ashlar.route.RouteUnit}s (data source, logic to actual tables, INSERT row subsets). Statements
 * that cannot be answered across shards exactly as one PostgreSQL would answer them fail here with a
 * {@link io.ashlar.route.RouteException} (SQLSTATE 0A000) before anything runs.
 *
 * @see <a href="https://shardingsphere.apache.org/document/5.4.1/en/features/sharding/">ShardingSphere sharding</a>
 */
package io.ashlar.route;
