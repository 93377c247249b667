package io.ashlar.route;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.ashlar.parser.StatementAnalyzer;
import io.ashlar.route.rule.ShardingRules;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** What a recursive plan makes of a read that spans shards, and what it declines. */
class RecursivePlanTest {

    private static ShardingRules rules;

    @BeforeAll
    static void compile() throws IOException {
        rules = RuleYaml.compile(Path.of("src/test/resources/route/rules/sharding.yaml"));
    }

    private static RecursivePlan plan(String sql) {
        return RecursivePlan.plan(StatementAnalyzer.analyze(sql), rules, "ir");
    }

    @Test
    void shardedTablesBecomeIntermediateResultsUnderTheNamesTheStatementUses() {
        RecursivePlan plan = plan("SELECT t_order.status, count(*) FROM t_order JOIN t_user u ON u.id = t_order.user_id"
                + " WHERE t_order.order_id IN (SELECT order_id FROM public.t_order_item) GROUP BY 1");
        assertEquals("SELECT t_order.status, count(*) FROM ir_1 AS t_order JOIN ir_2 u ON u.id = t_order.user_id"
                + " WHERE t_order.order_id IN (SELECT order_id FROM ir_3 AS t_order_item) GROUP BY 1", plan.finishingSql());
        assertEquals("ds_0", plan.coordinatorDataSource());
        assertEquals(List.of("t_order", "t_user", "t_order_item"), plan.intermediates().stream().map(each -> each.table().logicTable()).toList());
        assertEquals(4, plan.intermediates().get(0).nodes().size());
        assertEquals("CREATE TEMP TABLE ir_1 (LIKE \"t_order_0\") ON COMMIT DROP", plan.intermediates().get(0).createSql());
    }

    @Test
    void oneTableReadTwiceIsOneIntermediateResultAndTableTakesNoAlias() {
        assertEquals("SELECT user_id FROM ir_1 AS t_order INTERSECT TABLE ir_1",
                plan("SELECT user_id FROM t_order INTERSECT TABLE t_order").finishingSql());
        assertEquals("WITH x AS (SELECT * FROM ir_1 AS \"t_order\") SELECT * FROM x JOIN ir_1 o USING (order_id)",
                plan("WITH x AS (SELECT * FROM \"t_order\") SELECT * FROM x JOIN t_order o USING (order_id)").finishingSql());
    }

    @Test
    void anIntermediateResultHoldsTheActualTablesTheConditionsOfEveryBlockReadingItLeave() {
        RecursivePlan plan = plan("SELECT string_agg(status, ',') FROM t_order WHERE user_id = 1 AND order_id IN (SELECT order_id FROM t_order_item)");
        assertEquals("[ds_1.t_order_0, ds_1.t_order_1]", plan.intermediates().get(0).nodes().toString());
        assertEquals("ds_1", plan.coordinatorDataSource(), "ds_1 holds four of the six actual tables needed");
        assertEquals("ds_1", plan("SELECT string_agg(status, ',') FROM t_order WHERE user_id = 1").coordinatorDataSource(),
                "the data source holding every table needed finishes the statement: no row leaves it");
        assertEquals(4, plan.intermediates().get(1).nodes().size());
        RecursivePlan twice = plan("SELECT user_id FROM t_order WHERE user_id = 1 AND order_id = 4 EXCEPT SELECT user_id FROM t_order WHERE user_id = 2");
        assertEquals("[ds_0.t_order_0, ds_0.t_order_1, ds_1.t_order_0]", twice.intermediates().get(0).nodes().toString());
        RecursivePlan parameter = RecursivePlan.plan(StatementAnalyzer.analyze("SELECT string_agg(status, ',') FROM t_order WHERE user_id = $1"),
                rules, RouteGoldenTest.parameters("2"), "ir");
        assertEquals("[ds_0.t_order_0, ds_0.t_order_1]", parameter.intermediates().get(0).nodes().toString());
    }

    @Test
    void conditionsOnOneTablesQualifiedColumnsGoToItsShardsOredOverDisjunctsAndOccurrences() {
        RecursivePlan plan = plan("SELECT count(*) FROM t_order o JOIN t_user u ON u.id = o.user_id WHERE (o.status = 'x' AND u.age > 3 AND o.price"
                + " BETWEEN 1 AND 2::numeric) OR (o.status IN ('y', E'z') AND lower(o.note) = 'n')");
        assertEquals("((\"status\" = 'x' AND \"price\" BETWEEN 1 AND 2::numeric) OR (\"status\" IN ('y', E'z')))", plan.intermediates().get(0).filter());
        assertEquals("", plan.intermediates().get(1).filter(), "u's second disjunct restricts nothing");
        assertEquals("COPY (SELECT * FROM \"t_order_0\" WHERE ((\"status\" = 'x' AND \"price\" BETWEEN 1 AND 2::numeric) OR (\"status\" IN ('y', E'z'))))"
                + " TO STDOUT (FORMAT binary)", plan.intermediates().get(0).copyOutSql(plan.intermediates().get(0).nodes().get(0)));
        assertEquals("((\"price\" > 5) OR (\"price\" < 1))",
                plan("SELECT count(*) FROM t_order a JOIN t_order b ON a.user_id = b.user_id WHERE a.price > 5 AND b.price < 1").intermediates().get(0).filter());
        assertEquals("", plan("SELECT count(*) FROM t_order a JOIN t_order b ON a.user_id = b.user_id WHERE a.price > 5").intermediates().get(0).filter());
        assertEquals("", plan("SELECT count(*) FROM t_user u LEFT JOIN t_order o ON o.user_id = u.id WHERE o.price > 5").intermediates().get(1).filter(),
                "a WHERE after an outer join may keep NULL-extended rows");
        assertEquals("", plan("SELECT count(*) FROM t_user u JOIN t_order o ON o.user_id = u.id WHERE price > 5 AND o.price = $1").intermediates().get(1).filter(),
                "unqualified columns and parameters stay on the coordinator");
    }

    @Test
    void aSingleTableMakesItsDataSourceTheCoordinator() {
        assertEquals("ds_1", plan("SELECT c.*, o.order_id FROM t_config c LEFT JOIN t_order o ON o.user_id = c.id").coordinatorDataSource());
        assertNull(plan("SELECT * FROM t_config c, t_local l, t_order o"));
    }

    @Test
    void writesLocksSequencesAndSelectIntoAreDeclined() {
        assertNull(plan("DELETE FROM t_order WHERE order_id IN (SELECT order_id FROM t_order_item)"));
        assertNull(plan("SELECT * FROM t_order WHERE order_id IN (SELECT order_id FROM t_order_item) FOR UPDATE"));
        assertNull(plan("SELECT nextval('s'), order_id FROM t_order WHERE order_id IN (SELECT order_id FROM t_order_item)"));
        assertNull(plan("SELECT * INTO t_new FROM t_order WHERE order_id IN (SELECT order_id FROM t_order_item)"));
        assertNull(plan("SELECT 1"));
    }
}
