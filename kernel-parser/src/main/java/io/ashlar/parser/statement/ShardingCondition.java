package io.ashlar.parser.statement;

import java.util.List;

/**
 * One comparison of a column with known values, normalised so that the column is on the left
 * ({@code 5 < id} becomes {@code id > 5}).
 *
 * @param column   the column compared
 * @param operator the comparison
 * @param values   one value for EQUAL and the ordering operators, the list for IN, low and high for BETWEEN
 */
public record ShardingCondition(ColumnReference column, ConditionOperator operator, List<SqlValue> values) {
    public ShardingCondition {
        values = List.copyOf(values);
    }
}
