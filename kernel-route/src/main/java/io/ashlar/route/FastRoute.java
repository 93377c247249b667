package io.ashlar.route;

import io.ashlar.parser.statement.AnalyzedStatement;
import io.ashlar.parser.statement.Assignment;
import io.ashlar.parser.statement.ConditionOperator;
import io.ashlar.parser.statement.Conjunction;
import io.ashlar.parser.statement.InsertStatement;
import io.ashlar.parser.statement.InsertValue;
import io.ashlar.parser.statement.SqlValue;
import io.ashlar.parser.statement.ShardingCondition;
import io.ashlar.parser.statement.ShardingConditions;
import io.ashlar.parser.statement.TableName;
import io.ashlar.parser.statement.TableReference;
import io.ashlar.parser.statement.UpdateStatement;
import io.ashlar.route.rule.RuleTable;
import io.ashlar.route.rule.ShardingRules;
import io.ashlar.route.rule.ShardingTable;
import io.ashlar.route.rule.ShardingValues;

import java.util.List;
import java.util.Optional;

/**
 * The common case in a few array reads: a SELECT, UPDATE or DELETE of one sharded table whose WHERE fixes every
 * sharding column with one {@code =} value ({@code SELECT ... FROM t_order WHERE user_id = $1 AND order_id = $2}),
 * and a one-row INSERT into one sharded table that gives every sharding column a value (each row of a client's
 * batch). The node comes straight from the bound algorithms and the answer is the node's SINGLE result built when
 * the rules were compiled; nothing else is allocated but the value array. Anything else returns {@code null} and
 * takes the general route: also text that spells a number ({@code user_id = '7'}), which may be compared with a
 * number column or a text column and is therefore routed both ways, a value the algorithm cannot use, which reads
 * every node, and every INSERT the general route would refuse or treat apart (so that it says why).
 */
final class FastRoute {

    private FastRoute() {
    }

    static RouteResult route(AnalyzedStatement statement, RouteParameters parameters, ShardingRules rules) {
        switch (statement.kind()) {
            case SELECT, UPDATE, DELETE -> {
                // candidates
            }
            case INSERT -> {
                return statement.body() instanceof InsertStatement insert ? insertRow(statement, insert, parameters, rules) : null;
            }
            default -> {
                return null;
            }
        }
        List<TableReference> tables = statement.tables();
        if (tables.size() != 1 || statement.blocks().size() != 1) {
            return null;
        }
        TableReference reference = tables.get(0);
        TableName name = reference.name();
        if (!reference.isAccess() || name.schema().isPresent() && !name.schema().get().equals("public")) {
            return null;
        }
        RuleTable rule = rules.find(name.name()).orElse(null);
        if (!(rule instanceof ShardingTable table)) {
            return null;
        }
        if (statement.body() instanceof UpdateStatement update && assignsShardingColumn(update, table)) {
            return null;
        }
        ShardingConditions where = statement.where();
        if (where.disjuncts().size() != 1) {
            return null;
        }
        Conjunction conjunction = where.disjuncts().get(0);
        List<ShardingCondition> conditions = conjunction.conditions();
        int columns = table.shardingColumns().size();
        if (columns == 0 || conditions.size() < columns) {
            return null;
        }
        Object[] values = new Object[columns];
        int found = 0;
        boolean nothing = false;
        for (int i = 0, n = conditions.size(); i < n; i++) {
            ShardingCondition condition = conditions.get(i);
            int id = table.columnId(condition.column().name());
            if (id < 0 || condition.column().qualifier().isPresent() && !StatementTables.qualifies(condition.column(), reference)) {
                continue;
            }
            boolean single = condition.operator() == ConditionOperator.EQUAL
                    || condition.operator() == ConditionOperator.IN && condition.values().size() == 1;
            if (!single || values[id] != null) {
                return null;
            }
            Object value = SqlValues.value(condition.values().get(0), parameters);
            if (value == null) {
                nothing = true;
                value = Boolean.FALSE;
            } else if (!(value instanceof Comparable<?>) || value instanceof String text && ShardingValues.integralText(text) != null) {
                return null;
            }
            values[id] = value;
            found++;
        }
        if (found != columns) {
            return null;
        }
        if (nothing) {
            return table.singleResult(0);
        }
        int node = table.routeRow(values);
        return node < 0 ? null : table.singleResult(node);
    }

    /** What {@link InsertRoute} makes of a one-row INSERT into one sharded table, when it takes no decision of its own. */
    private static RouteResult insertRow(AnalyzedStatement statement, InsertStatement insert, RouteParameters parameters,
                                         ShardingRules rules) {
        List<TableReference> tables = statement.tables();
        if (tables.size() != 1 || insert.target() != 0 || insert.rows().size() != 1 || insert.columns().isEmpty()
                || insert.onConflict().isPresent() || insert.query().isPresent() || parameters.placeholders()) {
            return null;
        }
        TableReference reference = tables.get(0);
        TableName name = reference.name();
        if (!reference.isAccess() || name.schema().isPresent() && !name.schema().get().equals("public")) {
            return null;
        }
        RuleTable rule = rules.find(name.name()).orElse(null);
        if (!(rule instanceof ShardingTable table)) {
            return null;
        }
        Optional<String> keyColumn = table.keyGenerateColumn();
        if (keyColumn.isPresent() && insert.columnIndex(keyColumn.get()) < 0) {
            return null; // the key is generated: the general route reports it
        }
        if (table.nodeCount() == 1) {
            return table.singleResult(0);
        }
        List<String> columns = table.shardingColumns();
        List<InsertValue> row = insert.rows().get(0).values();
        Object[] values = new Object[columns.size()];
        for (int c = 0; c < values.length; c++) {
            int position = insert.columnIndex(columns.get(c));
            if (position < 0 || position >= row.size() || row.get(position).value().isEmpty()) {
                return null;
            }
            SqlValue value = row.get(position).value().get();
            Object read = SqlValues.value(value, parameters);
            if (read instanceof UnreadableValue) {
                return null;
            }
            Object stored = SqlValues.isKnownText(value, parameters) ? read : ShardingValues.normaliseStored(read);
            if (stored == null) {
                return null;
            }
            values[c] = stored;
        }
        int node = table.routeRow(values);
        return node < 0 ? null : table.singleResult(node);
    }

    private static boolean assignsShardingColumn(UpdateStatement update, ShardingTable table) {
        for (Assignment assignment : update.assignments()) {
            for (String column : assignment.columns()) {
                if (table.columnId(column) >= 0) {
                    return true;
                }
            }
        }
        return false;
    }
}
