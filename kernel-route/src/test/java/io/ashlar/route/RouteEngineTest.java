package io.ashlar.route;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ashlar.parser.StatementAnalyzer;
import io.ashlar.route.rule.RowRouter;
import io.ashlar.route.rule.ShardingRules;
import io.ashlar.route.rule.ShardingTable;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Route engine behaviour that a golden file cannot show: generated keys, shared results, row routing for COPY. */
class RouteEngineTest {

    private static ShardingRules rules;

    private final RouteEngine engine = new RouteEngine();

    @BeforeAll
    static void compile() throws IOException {
        rules = RuleYaml.compile(Path.of("src/test/resources/route/rules/sharding.yaml"));
    }

    private RouteResult route(String sql, String parameters) {
        return engine.route(StatementAnalyzer.analyze(sql), RouteGoldenTest.parameters(parameters), rules);
    }

    @Test
    void generatedShardingKeysRouteEachRowWhereItsKeyBelongs() {
        RouteResult result = route("INSERT INTO t_order (user_id, status) VALUES (1, 'a'), (1, 'b'), (1, 'c'), (1, 'd'), (1, 'e'), (1, 'f')", "");
        RouteResult.GeneratedKeys keys = result.generatedKeys().orElseThrow();
        assertEquals("order_id", keys.column());
        assertEquals(6, keys.values().size());
        int rowsSeen = 0;
        for (RouteUnit unit : result.units()) {
            int[] rows = unit.hasRowSubset() ? unit.insertRows() : new int[] {0, 1, 2, 3, 4, 5};
            for (int row : rows) {
                rowsSeen++;
                Object key = keys.values().get(row);
                RouteResult single = route("SELECT * FROM t_order WHERE user_id = 1 AND order_id = $1", key + "L");
                assertEquals(unit.dataSource(), single.units().get(0).dataSource());
                assertEquals(unit.actualTable("t_order"), single.units().get(0).actualTable("t_order"));
            }
        }
        assertEquals(6, rowsSeen);
    }

    @Test
    void keysAreNotGeneratedWhenTheColumnIsGiven() {
        assertTrue(route("INSERT INTO t_order (order_id, user_id) VALUES (1, 1)", "").generatedKeys().isEmpty());
    }

    @Test
    void theCommonCaseReturnsAResultBuiltAtCompileTime() {
        RouteResult first = route("SELECT * FROM t_order WHERE user_id = $1 AND order_id = $2", "3, 4");
        RouteResult second = route("SELECT status FROM t_order WHERE order_id = $2 AND user_id = $1", "3, 4");
        assertSame(first, second);
        assertEquals(RouteKind.SINGLE, first.kind());
        assertSame(rules.sessionResult(), route("SET work_mem = '4MB'", ""));
        assertSame(rules.defaultResult(), route("SELECT 1", ""));
    }

    @Test
    void missingParameterValueIsAProtocolError() {
        RouteException e = assertThrows(RouteException.class, () -> route("SELECT * FROM t_order WHERE user_id = $2", "1"));
        assertEquals("08P01", e.sqlState());
    }

    @Test
    void textParameterWithACastIsConvertedLikeALiteral() {
        RouteResult text = route("SELECT * FROM t_order WHERE user_id = $1::int AND order_id = $2::bigint", "'3', '5'");
        RouteResult numbers = route("SELECT * FROM t_order WHERE user_id = 3 AND order_id = 5", "");
        assertSame(numbers, text);
    }

    @Test
    void dropIndexOfAKnownIndexReachesEveryNodeOfItsTable() {
        ShardingRules indexed = rules.withIndex("idx_status", "t_order");
        RouteResult result = engine.route(StatementAnalyzer.analyze("DROP INDEX idx_status"), RouteParameters.NONE, indexed);
        assertEquals(RouteKind.MULTI_WRITE, result.kind());
        assertEquals(4, result.units().size());
        assertEquals("t_order_1", result.units().get(1).actualTable("t_order"));
        assertEquals(RouteKind.BROADCAST_WRITE, engine.route(StatementAnalyzer.analyze("DROP INDEX idx_status"), RouteParameters.NONE, rules).kind());
    }

    @Test
    void copyRowsAreRoutedToTheUnitsOfTheCopyStatement() {
        RouteResult copy = route("COPY t_order (status, order_id, user_id) FROM STDIN", "");
        ShardingTable table = (ShardingTable) rules.find("t_order").orElseThrow();
        RowRouter router = table.rowRouter(List.of("status", "order_id", "user_id"));
        int unit = router.route(new Object[] {"x", 3, 2});
        assertEquals("ds_0", copy.units().get(unit).dataSource());
        assertEquals("t_order_1", copy.units().get(unit).actualTable("t_order"));
        assertEquals(ShardingTable.SEVERAL_NODES, router.route(new Object[] {"x", 3, null}));
    }

    @Test
    void copyOfAShardedTableWithAServerSideFileIsRefused() {
        for (String sql : List.of("COPY t_order (status, order_id, user_id) FROM '/tmp/orders.csv' WITH CSV",
                "COPY t_order FROM PROGRAM 'cat /tmp/orders.csv'", "COPY t_order TO '/tmp/orders.csv'")) {
            RouteException refused = assertThrows(RouteException.class, () -> route(sql, ""), sql);
            assertEquals("0A000", refused.sqlState(), sql);
            assertTrue(refused.getMessage().contains("t_order") && refused.getMessage().contains("server-side file"), refused.getMessage());
        }
        assertEquals(RouteKind.MULTI_WRITE, route("COPY t_order FROM STDIN", "").kind());
        assertEquals(RouteKind.MULTI_QUERY, route("COPY t_order TO STDOUT", "").kind());
    }

    @Test
    void aPlainPoolerSendsEverythingToItsDataSource() {
        ShardingRules pooler = ShardingRules.compile(List.of(), List.of("only"), Map.of());
        RouteResult result = engine.route(StatementAnalyzer.analyze("SELECT * FROM t_order WHERE user_id = 1"), RouteParameters.NONE, pooler);
        assertEquals(RouteKind.DEFAULT, result.kind());
        assertEquals("only", result.units().get(0).dataSource());
        assertEquals(RouteKind.SESSION, engine.route(StatementAnalyzer.analyze("BEGIN"), RouteParameters.NONE, pooler).kind());
    }

    @Test
    void aValueNoAlgorithmCanUseReadsEveryNodeForTheShardsToAnswer() {
        RouteResult result = route("SELECT * FROM t_user WHERE id = 'abc'", "");
        assertEquals(RouteKind.MULTI_QUERY, result.kind());
        assertEquals(2, result.units().size());
        assertEquals(result.units(), route("SELECT * FROM t_user WHERE id = $1", "'abc'").units());
    }

    @Test
    void copyRowsAreRoutedByTheCanonicalFormOfTheirValues() {
        ShardingTable table = (ShardingTable) rules.find("t_order").orElseThrow();
        RowRouter router = table.rowRouter(List.of("order_id", "user_id"));
        int node = router.route(new Object[] {3, 2});
        assertEquals(node, router.route(new Object[] {3L, 2L}));
        assertEquals(node, router.route(new Object[] {"3", "2.0"}));
        assertEquals(ShardingTable.UNUSABLE_VALUE, table.routeRow(new Object[] {"abc", 3}));
        assertTrue(table.unusableReason(new Object[] {"abc", 3}).contains("abc"), table.unusableReason(new Object[] {"abc", 3}));
    }

    @Test
    void everySpellingOfAnIntegerIsOneValueForTheAlgorithms() {
        RouteResult literal = route("SELECT * FROM t_user WHERE id = 7", "");
        for (String sql : List.of("SELECT * FROM t_user WHERE id = 7::int8", "SELECT * FROM t_user WHERE id = CAST('7' AS bigint)",
                "SELECT * FROM t_user WHERE id = 7.00", "SELECT * FROM t_user WHERE id = '7'::numeric", "SELECT * FROM t_user WHERE id = 7e0::float8")) {
            assertSame(literal, route(sql, ""), sql);
        }
        assertSame(literal, route("SELECT * FROM t_user WHERE id = $1", "7L"));
        assertSame(literal, route("SELECT * FROM t_user WHERE id = $1", "7.000"));
    }

    @Test
    void aDescribeRoutesAnInsertOfValuesNotBoundYetToTheFirstNode() {
        RouteParameters standIns = new RouteParameters() {
            @Override
            public int count() {
                return 2;
            }

            @Override
            public Object value(int index) {
                return null;
            }

            @Override
            public boolean placeholders() {
                return true;
            }
        };
        RouteResult result = engine.route(StatementAnalyzer.analyze("INSERT INTO t_order (order_id, user_id) VALUES ($1, $2)"), standIns, rules);
        ShardingTable table = (ShardingTable) rules.find("t_order").orElseThrow();
        assertEquals(List.of(table.unit(0)), result.units());
        RouteException refused = assertThrows(RouteException.class,
                () -> route("INSERT INTO t_order (order_id, user_id) VALUES ($1, $2)", "null, null"));
        assertTrue(refused.getMessage().startsWith("NULL in sharding column"), refused.getMessage());
    }

    /**
     * A one-row INSERT into one sharded table (each row of a client's batch) takes the fast route: the same units as
     * {@link InsertRoute} gives (the node's shared SINGLE result), or the same refusal, since every case it does not
     * settle itself goes the general way.
     */
    @Test
    void aOneRowInsertRoutesAsTheGeneralRouteDoes() {
        String[][] cases = {
            {"INSERT INTO t_order (order_id, user_id, status) VALUES ($1, $2, $3)", "10L, 3, 'NEW'"},
            {"INSERT INTO t_order (order_id, user_id, status) VALUES ($1, $2, $3)", "11L, 4, 'NEW'"},
            {"INSERT INTO t_order (user_id, order_id) VALUES (7, 12)", ""},
            {"INSERT INTO public.t_order (user_id, order_id) VALUES ('7', '13')", ""},
            {"INSERT INTO t_order (user_id, order_id) VALUES ($1::text, $2)", "'8', 9L"},
            {"INSERT INTO t_order (user_id, order_id) VALUES ($1, $2)", "typed:'8', 9L"},
            {"INSERT INTO t_user (id, name) VALUES ($1, $2)", "5, 'x'"},
            {"INSERT INTO t_user AS u (id, name) VALUES (6, 'y') RETURNING u.id", ""},
            {"INSERT INTO t_order (user_id, order_id, status) VALUES (1, 2, (SELECT status FROM t_dict LIMIT 1))", ""},
            {"INSERT INTO t_order (order_id, user_id) VALUES (1, 1) ON CONFLICT (order_id) DO NOTHING", ""},
            {"INSERT INTO t_order (order_id, user_id) VALUES ($1, $2)", "null, 1"},
            {"INSERT INTO t_order (order_id, user_id) VALUES (1, DEFAULT)", ""},
            {"INSERT INTO t_order (order_id) VALUES (1)", ""},
            {"INSERT INTO t_order (order_id, user_id) VALUES (1)", ""},
            {"INSERT INTO t_order VALUES (1, 1)", ""},
            {"INSERT INTO t_config (id) VALUES (1)", ""},
            {"INSERT INTO t_dict (id) VALUES (1)", ""},
        };
        for (String[] each : cases) {
            io.ashlar.parser.statement.AnalyzedStatement statement = StatementAnalyzer.analyze(each[0]);
            RouteParameters parameters = RouteGoldenTest.parameters(each[1]);
            String general;
            try {
                general = describe(InsertRoute.route(statement, (io.ashlar.parser.statement.InsertStatement) statement.body(),
                        parameters, rules));
            } catch (RouteException e) {
                general = "refused " + e.sqlState() + ": " + e.getMessage();
            }
            String routed;
            try {
                routed = describe(engine.route(statement, parameters, rules));
            } catch (RouteException e) {
                routed = "refused " + e.sqlState() + ": " + e.getMessage();
            }
            assertEquals(general, routed, each[0] + " with " + each[1]);
        }
        RouteResult fast = route("INSERT INTO t_order (order_id, user_id, status) VALUES ($1, $2, $3)", "10L, 3, 'NEW'");
        assertSame(route("SELECT * FROM t_order WHERE user_id = 3 AND order_id = 10", ""), fast, "the node's shared result");
    }

    private static String describe(RouteResult result) {
        StringBuilder text = new StringBuilder(result.kind().toString());
        for (RouteUnit unit : result.units()) {
            text.append(' ').append(unit.dataSource()).append(unit.tables()).append(java.util.Arrays.toString(unit.insertRows()));
        }
        return text.append(result.generatedKeys().isPresent() ? " generated keys" : "").toString();
    }
}
