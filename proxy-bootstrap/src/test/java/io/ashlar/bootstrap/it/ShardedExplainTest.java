package io.ashlar.bootstrap.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * EXPLAIN of a statement over several units is one plan: the proxy's merge on top, each unit's backend plan under it
 * labelled with its data source and actual table (both data sources hold a {@code t_order_0}), EXPLAIN ANALYZE ending
 * with the proxy's own time; a statement on one unit is explained by its backend alone, as before.
 */
final class ShardedExplainTest {

    private static OpsProxy ops;

    @BeforeAll
    static void start() throws Exception {
        ops = OpsProxy.start("");
    }

    @AfterAll
    static void stop() throws Exception {
        if (ops != null) {
            ops.close();
        }
    }

    @Test
    void explainPutsEachUnitsPlanUnderTheMergeLabelledWithItsDataSourceAndTable() throws Exception {
        try (Connection c = ops.connect(OpsProxy.SHARDED, "app", "extended")) {
            List<String> plan = OpsProxy.query(c, "EXPLAIN (COSTS OFF) SELECT order_id FROM t_order WHERE user_id = 1"
                    + " ORDER BY order_id LIMIT 10 OFFSET 20");
            assertEquals(List.of("QUERY PLAN:text",
                    "Ashlar Merge  (merge derived=0 orderBy=[#0 ASC] offset=20 limit=10, 2 units)",
                    "  ->  Unit 1: ds_1, t_order -> t_order_0",
                    "        Limit",
                    "          ->  Sort",
                    "                Sort Key: order_id",
                    "                ->  Seq Scan on t_order_0",
                    "                      Filter: (user_id = 1)",
                    "  ->  Unit 2: ds_1, t_order -> t_order_1",
                    "        Limit",
                    "          ->  Sort",
                    "                Sort Key: order_id",
                    "                ->  Seq Scan on t_order_1",
                    "                      Filter: (user_id = 1)"), plan);
        }
    }

    @Test
    void explainAnalyzeEndsWithTheProxysTimeAndOneUnitIsLeftToItsBackend() throws Exception {
        try (Connection c = ops.connect(OpsProxy.SHARDED, "app", "simple")) {
            List<String> plan = OpsProxy.query(c, "EXPLAIN ANALYZE SELECT count(*) FROM t_order");
            assertTrue(plan.get(1).startsWith("Ashlar Merge  (merge "), plan::toString);
            assertTrue(plan.get(1).endsWith(", 4 units)"), plan::toString);
            assertEquals(4, plan.stream().filter(line -> line.startsWith("  ->  Unit ")).count(), plan::toString);
            assertTrue(plan.contains("  ->  Unit 3: ds_1, t_order -> t_order_0"), plan::toString);
            assertEquals(4, plan.stream().filter(line -> line.startsWith("        Execution Time: ")).count(), plan::toString);
            assertTrue(plan.get(plan.size() - 1).matches("Proxy Time: \\d+\\.\\d{3} ms \\(every unit sent, answered and read\\)"),
                    plan::toString);
            List<String> single = OpsProxy.query(c, "EXPLAIN (COSTS OFF) SELECT * FROM t_order WHERE user_id = 1 AND order_id = 2");
            assertEquals(List.of("QUERY PLAN:text", "Index Scan using t_order_0_pkey on t_order_0",
                    "  Index Cond: (order_id = 2)", "  Filter: (user_id = 1)"), single);
            List<String> json = OpsProxy.query(c, "EXPLAIN (FORMAT JSON, COSTS OFF) SELECT order_id FROM t_order WHERE user_id = 1");
            assertEquals(3, json.size(), "one JSON document per unit, as the backends wrote them");
        }
    }
}
