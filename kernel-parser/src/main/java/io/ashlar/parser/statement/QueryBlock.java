package io.ashlar.parser.statement;

import java.util.List;

/**
 * One scope of table references with its own WHERE: a SELECT core (each branch of a UNION, each
 * subquery, each CTE body is one) or the target scope of an INSERT, UPDATE or DELETE. Tables belong
 * to blocks through {@link TableReference#block()}; block ids are indexes into
 * {@link AnalyzedStatement#blocks()}, and block 0 is the statement's main block.
 *
 * <p>Conditions apply to the tables of their own block only: a router computes the shards for each
 * block and unions them, so a subquery's {@code WHERE id = 1} never narrows the outer query.
 *
 * @param id             this block's index
 * @param parent         the enclosing block (whose columns a correlated subquery may use), or -1
 * @param where          the block's WHERE (ANDed with inner-join ON conditions when the block has no outer join)
 * @param joinEqualities column equalities that hold for every row of the block
 * @param outerJoin      whether the block's FROM has a LEFT, RIGHT or FULL join
 */
public record QueryBlock(int id, int parent, ShardingConditions where, List<ColumnEquality> joinEqualities,
                         boolean outerJoin) {
    public QueryBlock {
        joinEqualities = List.copyOf(joinEqualities);
    }
}
