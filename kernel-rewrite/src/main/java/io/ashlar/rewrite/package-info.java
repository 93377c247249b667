/**
 * The rewrite engine: for each route unit, the SQL to run on its data source, spliced from the
 * user's text ({@link io.ashlar.rewrite.StatementRewriter}, {@link io.ashlar.rewrite.RewriteEngine}),
 * and for a query over several units the merge the proxy applies to their rows
 * ({@link io.ashlar.rewrite.MergeTemplate}). Constructs that cannot be answered exactly across
 * units are refused with SQLSTATE 0A000 through {@link io.ashlar.route.RouteException}.
 */
package io.ashlar.rewrite;
