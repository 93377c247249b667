/**
 * The analysed statement, everything as immutable records. How the kernel uses it:
 *
 * <h2>Routing</h2>
 * {@link io.ashlar.parser.statement.AnalyzedStatement#tables()} lists every table occurrence;
 * those with {@link io.ashlar.parser.statement.TableReference#isAccess()} are the tables the
 * statement touches. Each belongs to a {@link io.ashlar.parser.statement.QueryBlock} (a SELECT core,
 * a subquery, a CTE body, or the DML statement itself) whose
 * {@link io.ashlar.parser.statement.QueryBlock#where()} is an OR of ANDs of
 * {@link io.ashlar.parser.statement.ShardingCondition}s: compute each block's shards from its own
 * conditions and union over blocks. Columns are matched to tables with
 * {@link io.ashlar.parser.statement.AnalyzedStatement#tablesFor}. Values are
 * {@link io.ashlar.parser.statement.LiteralValue}s (text plus kind and cast type) or
 * {@link io.ashlar.parser.statement.ParameterValue}s (take the value from Bind by number).
 * Binding tables propagate values through {@link io.ashlar.parser.statement.QueryBlock#joinEqualities()}.
 * INSERT routes per row: {@link io.ashlar.parser.statement.InsertStatement#columnIndex} gives the
 * sharding column's position in each {@link io.ashlar.parser.statement.ValuesRow}.
 * If {@link io.ashlar.parser.statement.AnalyzedStatement#gaps()} is not empty, something could not
 * be analysed: route to a single data source or refuse.
 *
 * <h2>Rewriting</h2>
 * Every position is a character offset into
 * {@link io.ashlar.parser.statement.AnalyzedStatement#sql()}. Replace each table occurrence's
 * {@link io.ashlar.parser.statement.TableReference#nameRange()} (or whole
 * {@link io.ashlar.parser.statement.TableReference#range()}), suffix index and constraint names
 * ({@link io.ashlar.parser.statement.IndexReference}), insert derived select-list items at
 * {@link io.ashlar.parser.statement.SelectStatement#projectionsEnd()} and sort keys at
 * {@link io.ashlar.parser.statement.SelectStatement#orderByInsertPosition()}, replace pagination
 * values through {@link io.ashlar.parser.statement.PaginationValue}, and append generated keys at
 * {@link io.ashlar.parser.statement.InsertStatement#columnsEnd()} and
 * {@link io.ashlar.parser.statement.ValuesRow#valuesEnd()}. Copy everything in between verbatim.
 *
 * <h2>Merging</h2>
 * {@link io.ashlar.parser.statement.SelectStatement} gives the select list
 * ({@link io.ashlar.parser.statement.ProjectionItem}: aggregates, output names, stars),
 * GROUP BY and ORDER BY items already resolved to select-list indexes where they name one,
 * DISTINCT, LIMIT / OFFSET values and the set operation.
 */
package io.ashlar.parser.statement;
