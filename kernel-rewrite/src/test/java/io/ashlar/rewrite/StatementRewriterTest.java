package io.ashlar.rewrite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ashlar.parser.StatementAnalyzer;
import io.ashlar.parser.statement.AnalyzedStatement;
import io.ashlar.route.RouteException;
import io.ashlar.route.RouteKind;
import io.ashlar.route.RouteParameters;
import io.ashlar.route.RouteResult;
import io.ashlar.route.RouteUnit;
import io.ashlar.route.TableMapping;

import java.util.List;
import org.junit.jupiter.api.Test;

/** What the golden files cannot show: which strings are reused, and what is cached per statement. */
class StatementRewriterTest {

    private static RouteUnit unit(String dataSource, String actual) {
        return new RouteUnit(dataSource, List.of(new TableMapping("t_order", actual)));
    }

    @Test
    void singleUnitThatRenamesNothingGetsTheSameString() {
        AnalyzedStatement statement = StatementAnalyzer.analyze("SELECT * FROM t_order WHERE id = $1");
        RewriteResult result = StatementRewriter.of(statement).rewrite(
                new RouteResult(RouteKind.SINGLE, List.of(unit("ds_0", "t_order"))), RouteParameters.NONE);
        assertSame(statement.sql(), result.units().get(0).sql());
        assertEquals(1, result.units().get(0).parameterMap().length);
    }

    @Test
    void repeatedExecutionsOfTheSameShapeReuseTheRewrittenString() {
        StatementRewriter rewriter = StatementRewriter.of(StatementAnalyzer.analyze("SELECT * FROM t_order WHERE id = $1"));
        RouteResult route = new RouteResult(RouteKind.SINGLE, List.of(unit("ds_1", "t_order_3")));
        String first = rewriter.rewrite(route, RouteParameters.NONE).units().get(0).sql();
        RouteResult sameShape = new RouteResult(RouteKind.SINGLE, List.of(unit("ds_1", new String("t_order_3"))));
        assertSame(first, rewriter.rewrite(sameShape, RouteParameters.NONE).units().get(0).sql());
        String other = rewriter.rewrite(new RouteResult(RouteKind.SINGLE, List.of(unit("ds_1", "t_order_2"))),
                RouteParameters.NONE).units().get(0).sql();
        assertEquals("SELECT * FROM t_order_2 WHERE id = $1", other);
    }

    @Test
    void cacheStaysCorrectWithMoreShapesThanSlots() {
        StatementRewriter rewriter = StatementRewriter.of(StatementAnalyzer.analyze("SELECT 1 FROM t_order"));
        for (int round = 0; round < 2; round++) {
            for (int i = 0; i < 300; i++) {
                RouteResult route = new RouteResult(RouteKind.SINGLE, List.of(unit("ds_0", "t_order_" + i)));
                assertEquals("SELECT 1 FROM t_order_" + i, rewriter.rewrite(route, RouteParameters.NONE).units().get(0).sql());
            }
        }
    }

    @Test
    void literalPaginationSharesOneMergeTemplateAndParametersBindPerExecution() {
        RouteResult route = new RouteResult(RouteKind.MULTI_QUERY, List.of(unit("ds_0", "t_order_0"), unit("ds_1", "t_order_1")));
        StatementRewriter literal = StatementRewriter.of(StatementAnalyzer.analyze("SELECT id FROM t_order ORDER BY id LIMIT 5"));
        assertSame(literal.rewrite(route, RouteParameters.NONE).merge().orElseThrow(),
                literal.rewrite(route, RouteParameters.NONE).merge().orElseThrow());
        StatementRewriter parameter = StatementRewriter.of(StatementAnalyzer.analyze("SELECT id FROM t_order ORDER BY id LIMIT $1"));
        MergeTemplate three = parameter.rewrite(route, RewriteMergeTest.parameters(3L)).merge().orElseThrow();
        MergeTemplate four = parameter.rewrite(route, RewriteMergeTest.parameters(4)).merge().orElseThrow();
        assertNotSame(three, four);
        assertEquals(3, three.limit().getAsLong());
        assertEquals(4, four.limit().getAsLong());
        assertSame(three.merge(new int[] {20}).step().inputs().get(0), four.merge(new int[] {20}).step().inputs().get(0));
    }

    @Test
    void refusalIsRememberedAndRepeated() {
        StatementRewriter rewriter = StatementRewriter.of(StatementAnalyzer.analyze("SELECT DISTINCT ON (a) a FROM t_order"));
        RouteResult route = new RouteResult(RouteKind.MULTI_QUERY, List.of(unit("ds_0", "t_order_0"), unit("ds_1", "t_order_1")));
        RouteException first = assertThrows(RouteException.class, () -> rewriter.rewrite(route, RouteParameters.NONE));
        RouteException second = assertThrows(RouteException.class, () -> rewriter.rewrite(route, RouteParameters.NONE));
        assertEquals("0A000", first.sqlState());
        assertSame(first, second);
        // The same statement on one unit needs no merge and is not refused.
        RouteResult single = new RouteResult(RouteKind.SINGLE, List.of(unit("ds_0", "t_order_0")));
        assertEquals("SELECT DISTINCT ON (a) a FROM t_order_0", rewriter.rewrite(single, RouteParameters.NONE).units().get(0).sql());
    }
}
