package io.ashlar.rewrite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ashlar.merge.ListRowCursor;
import io.ashlar.merge.RowCursor;
import io.ashlar.parser.StatementAnalyzer;
import io.ashlar.route.RouteException;
import io.ashlar.route.RouteKind;
import io.ashlar.route.RouteParameters;
import io.ashlar.route.RouteResult;
import io.ashlar.route.RouteUnit;
import io.ashlar.route.TableMapping;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The rewriter's shard SQL and merge together: shard rows written by hand as PostgreSQL would
 * return them for the rewritten SQL, merged by kernel-merge, compared with what one database
 * holding all the rows answers for the client's SQL.
 */
class RewriteMergeTest {

    private static final int INT4 = 23;
    private static final int INT8 = 20;
    private static final int NUMERIC = 1700;
    private static final int TEXT = 25;

    private static final RouteResult TWO_SHARDS = new RouteResult(RouteKind.MULTI_QUERY, List.of(
            new RouteUnit("ds_0", List.of(new TableMapping("t_order", "t_order_0"))),
            new RouteUnit("ds_1", List.of(new TableMapping("t_order", "t_order_1")))));

    @Test
    void averageByGroupMergesDerivedSumAndCountAndHidesThem() {
        RewriteResult rewrite = rewrite("SELECT user_id, avg(amount) FROM t_order GROUP BY user_id", RouteParameters.NONE);
        assertEquals("SELECT user_id, avg(amount), SUM(amount) AS \"__ashlar_d1\", COUNT(amount) AS \"__ashlar_d2\""
                + " FROM t_order_0 GROUP BY user_id ORDER BY 1", rewrite.units().get(0).sql());
        int[] types = {INT4, NUMERIC, INT8, INT8};
        // t_order_0: user 1 has 10 and 20, user 2 has 5; t_order_1: user 1 has 30, user 3 has 7.
        List<String> merged = merge(rewrite, types,
                rows(row("1", "15.0000000000000000", "30", "2"), row("2", "5.0000000000000000", "5", "1")),
                rows(row("1", "30.0000000000000000", "30", "1"), row("3", "7.0000000000000000", "7", "1")));
        assertEquals(List.of("1|20.0000000000000000", "2|5.0000000000000000", "3|7.0000000000000000"), merged);
    }

    @Test
    void countDistinctCountsValuesSeenOnSeveralShardsOnce() {
        RewriteResult rewrite = rewrite("SELECT status, count(DISTINCT user_id) AS users FROM t_order GROUP BY status",
                RouteParameters.NONE);
        assertEquals("SELECT status, user_id AS users FROM t_order_1 GROUP BY status, user_id ORDER BY 1",
                rewrite.units().get(1).sql());
        int[] types = {TEXT, INT4};
        List<String> merged = merge(rewrite, types,
                rows(row("new", "1"), row("new", "2"), row("paid", "1")),
                rows(row("new", "2"), row("new", "3"), row("paid", "1")));
        assertEquals(List.of("new|3", "paid|1"), merged);
    }

    @Test
    void orderByHiddenKeyWithParameterPagination() {
        RewriteResult rewrite = rewrite("SELECT order_id FROM t_order ORDER BY created DESC LIMIT $1 OFFSET $2",
                parameters(2L, 1L));
        assertEquals("SELECT order_id, created AS \"__ashlar_d1\" FROM t_order_0 ORDER BY created DESC"
                + " LIMIT ($1::int8 + $2::int8)", rewrite.units().get(0).sql());
        int[] types = {INT8, TEXT};
        List<String> merged = merge(rewrite, types,
                rows(row("10", "2024-05"), row("11", "2024-02")),
                rows(row("20", "2024-04"), row("21", "2024-03")));
        assertEquals(List.of("20", "21"), merged);
    }

    @Test
    void havingIsAppliedAfterTheGroupsAreMerged() {
        RewriteResult rewrite = rewrite("SELECT user_id FROM t_order GROUP BY user_id HAVING count(*) > 1",
                RouteParameters.NONE);
        int[] types = {INT4, INT8};
        // User 1 has one order on each shard: 2 in all, which no shard alone could see.
        List<String> merged = merge(rewrite, types,
                rows(row("1", "1"), row("2", "1")),
                rows(row("1", "1"), row("3", "1")));
        assertEquals(List.of("1"), merged);
    }

    @Test
    void distinctOverGroupsWithHiddenKeyMergesTheGroupsThenTheVisibleRows() {
        RewriteResult rewrite = rewrite("SELECT DISTINCT status FROM t_order GROUP BY status, user_id", RouteParameters.NONE);
        int[] types = {TEXT, INT4};
        // PostgreSQL: groups (new,1) (new,2) (paid,1) -> DISTINCT status -> new, paid.
        List<String> merged = merge(rewrite, types,
                rows(row("new", "1"), row("new", "2"), row("paid", "1")),
                rows(row("new", "1"), row("paid", "1")));
        assertEquals(List.of("new", "paid"), merged);
    }

    @Test
    void distinctAggregateResultTypesAreTheMergedValuesTypes() {
        RewriteResult rewrite = rewrite("SELECT count(DISTINCT user_id), sum(DISTINCT user_id), avg(DISTINCT amount),"
                + " min(amount) FROM t_order", RouteParameters.NONE);
        int[] types = {INT4, INT4, NUMERIC, NUMERIC};
        MergeTemplate.Merge merge = rewrite.merge().orElseThrow().merge(types);
        assertEquals(List.of(new MergeTemplate.ResultType(0, INT8, (short) 8, -1),
                new MergeTemplate.ResultType(1, INT8, (short) 8, -1),
                new MergeTemplate.ResultType(2, NUMERIC, (short) -1, -1)), merge.resultTypes());
        try (RowCursor cursor = merge.step().open(List.of(
                new ListRowCursor(types, rows(row("1", "1", "2.50", "2.50"), row("2", "2", "3", "3"))),
                new ListRowCursor(types, rows(row("2", "2", "2.50", "2.50")))))) {
            for (MergeTemplate.ResultType each : merge.resultTypes()) {
                assertEquals(each.typeOid(), cursor.typeOid(each.column()), "column " + each.column());
            }
            assertEquals(true, cursor.next());
            assertEquals("2|3|2.7500000000000000|2.50", String.join("|",
                    text(cursor.value(0)), text(cursor.value(1)), text(cursor.value(2)), text(cursor.value(3))));
        }
    }

    @Test
    void distinctOrderedByUnselectedColumnAddsNoColumnAndTheMergeRefuses() {
        RewriteResult rewrite = rewrite("SELECT DISTINCT status FROM t_order ORDER BY amount", RouteParameters.NONE);
        assertEquals("SELECT DISTINCT status FROM t_order_0 ORDER BY amount", rewrite.units().get(0).sql());
        RouteException error = assertThrows(RouteException.class,
                () -> rewrite.merge().orElseThrow().merge(new int[] {TEXT}));
        assertEquals("0A000", error.sqlState());
    }

    @Test
    void distinctOverGroupsOrderedByHiddenGroupKeyIsPostgresqlsError() {
        RouteException error = assertThrows(RouteException.class, () -> rewrite(
                "SELECT DISTINCT status FROM t_order GROUP BY status, user_id ORDER BY user_id", RouteParameters.NONE));
        assertEquals("42P10", error.sqlState());
    }

    private static String text(byte[] value) {
        return value == null ? "NULL" : new String(value, StandardCharsets.UTF_8);
    }

    @Test
    void negativeLimitParameterIsRefusedAtRewrite() {
        RouteException error = assertThrows(RouteException.class,
                () -> rewrite("SELECT order_id FROM t_order LIMIT $1", parameters(-1L)));
        assertEquals("2201W", error.sqlState());
    }

    private static RewriteResult rewrite(String sql, RouteParameters parameters) {
        return StatementRewriter.of(StatementAnalyzer.analyze(sql)).rewrite(TWO_SHARDS, parameters);
    }

    private static List<String> merge(RewriteResult rewrite, int[] types, List<byte[][]> first, List<byte[][]> second) {
        MergeTemplate.Merge merge = rewrite.merge().orElseThrow().merge(types);
        List<String> result = new ArrayList<>();
        try (RowCursor cursor = merge.step().open(List.of(new ListRowCursor(types, first), new ListRowCursor(types, second)))) {
            while (cursor.next()) {
                StringBuilder line = new StringBuilder();
                for (int i = 0; i < merge.visibleColumns(); i++) {
                    byte[] value = cursor.value(i);
                    line.append(i == 0 ? "" : "|").append(value == null ? "NULL" : new String(value, StandardCharsets.UTF_8));
                }
                result.add(line.toString());
            }
        }
        return result;
    }

    private static List<byte[][]> rows(byte[][]... rows) {
        return List.of(rows);
    }

    private static byte[][] row(String... values) {
        byte[][] result = new byte[values.length][];
        for (int i = 0; i < values.length; i++) {
            result[i] = values[i] == null ? null : values[i].getBytes(StandardCharsets.UTF_8);
        }
        return result;
    }

    static RouteParameters parameters(Object... values) {
        return new RouteParameters() {
            @Override
            public int count() {
                return values.length;
            }

            @Override
            public Object value(int index) {
                return values[index];
            }
        };
    }
}
