package io.ashlar.merge;

import io.ashlar.merge.plan.Aggregate;
import io.ashlar.merge.plan.CompareOperator;
import io.ashlar.merge.plan.HavingPredicate;
import io.ashlar.merge.plan.MergePlan;
import io.ashlar.merge.plan.SortKey;
import io.ashlar.merge.plan.TextCollation;
import io.ashlar.merge.step.MergeStep;
import io.ashlar.merge.value.TypeOids;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.OptionalLong;

import static io.ashlar.merge.TestRows.row;
import static io.ashlar.merge.TestRows.rows;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class MergeEngineTest {

    /** Shard rows of SELECT k, count(*), avg(v) ... with derived sum(v), count(v): k text, bigint, numeric, bigint, bigint. */
    private static final int[] GROUPED = {TypeOids.TEXT, TypeOids.INT8, TypeOids.NUMERIC, TypeOids.INT8, TypeOids.INT8};

    private static MergePlan.Builder groupedPlan() {
        return MergePlan.builder(5).visibleColumns(3)
                .aggregate(new Aggregate.Count(1), new Aggregate.Avg(2, 3, 4));
    }

    private static List<RowCursor> groupedShards() {
        return List.of(
                TestRows.shard(GROUPED, row("a", "2", "1.5", "3", "2"), row("b", "1", "5", "5", "1"), row("d", "1", "1", "1", "1")),
                TestRows.shard(GROUPED, row("a", "1", "2", "2", "1"), row("c", "3", "2", "6", "3"), row("d", "2", "1.5", "3", "2")));
    }

    @Test
    void groupedStatementWithHavingOrderAndPage() {
        // SELECT k, count(*), avg(v) FROM t GROUP BY k HAVING count(*) > 1 ORDER BY k LIMIT 2 OFFSET 1
        MergeStep step = MergeEngine.compile(groupedPlan().groupBySorted(SortKey.ascending(0))
                .having(HavingPredicate.compare(1, CompareOperator.GT, "1", TypeOids.INT4))
                .orderBy(SortKey.ascending(0)).offset(1).limit(2).build());
        assertEquals("""
                LimitDecorator offset=1 limit=2
                  DerivedColumnStripper visible=3
                    HavingFilter #1 > '1'::23
                      GroupByStreamMerger keys=[#0 ASC NULLS LAST] aggregates=[#1=COUNT, #2=AVG(sum #3, count #4)]
                        OrderByStreamMerger keys=[#0 ASC NULLS LAST]""", step.describe());
        RowCursor merged = step.open(groupedShards());
        // groups: a 3 rows avg 5/3, b 1 row (dropped by HAVING), c 3 rows avg 2, d 3 rows avg 4/3; skip a
        assertEquals(rows("c|3|2.0000000000000000", "d|3|1.3333333333333333"), TestRows.drain(merged));
        assertEquals(TypeOids.NUMERIC, merged.typeOid(2));
        assertEquals(3, merged.columnCount());
    }

    @Test
    void orderByAnAggregateSortsTheMergedGroupsInMemory() {
        // SELECT k, count(*), avg(v) FROM t GROUP BY k ORDER BY count(*) DESC, k
        MergeStep step = MergeEngine.compile(groupedPlan().groupBy(SortKey.ascending(0))
                .orderBy(SortKey.descending(1), SortKey.ascending(0)).build());
        assertEquals("""
                DerivedColumnStripper visible=3
                  MemorySortMerger keys=[#1 DESC NULLS FIRST, #0 ASC NULLS LAST]
                    GroupByMemoryMerger keys=[#0 ASC NULLS LAST] aggregates=[#1=COUNT, #2=AVG(sum #3, count #4)]
                      IterationMerger""", step.describe());
        assertEquals(rows("a|3|1.6666666666666667", "c|3|2.0000000000000000", "d|3|1.3333333333333333", "b|1|5.0000000000000000"),
                TestRows.drain(step.open(groupedShards())));
    }

    @Test
    void plainAggregateNeedsNoSortAndMergesEveryShardRow() {
        // SELECT count(*), avg(v) FROM t (column #0 would be k, absent here: the shards return their one row)
        int[] types = {TypeOids.INT8, TypeOids.NUMERIC, TypeOids.INT8, TypeOids.INT8};
        MergeStep step = MergeEngine.compile(MergePlan.builder(4).visibleColumns(2)
                .aggregate(new Aggregate.Count(0), new Aggregate.Avg(1, 2, 3)).orderBy(SortKey.ascending(0)).build());
        assertEquals("""
                DerivedColumnStripper visible=2
                  GroupByStreamMerger keys=[] aggregates=[#0=COUNT, #1=AVG(sum #2, count #3)]
                    IterationMerger""", step.describe());
        assertEquals(rows("3|2.0000000000000000"), TestRows.drain(step.open(List.of(
                TestRows.shard(types, row("2", "1.5", "3", "2")), TestRows.shard(types, row("1", "3", "3", "1"))))));
        assertEquals(rows("0|∅"), TestRows.drain(step.open(List.of(
                TestRows.shard(types, row("0", null, null, "0")), TestRows.shard(types, row("0", null, null, "0"))))));
    }

    @Test
    void orderByANonSelectedColumnMergesThenStripsIt() {
        // SELECT name FROM t ORDER BY age DESC LIMIT 3: the rewriter appends age as derived column #1
        int[] types = {TypeOids.VARCHAR, TypeOids.INT4};
        MergeStep step = MergeEngine.compile(MergePlan.builder(2).visibleColumns(1).orderBy(SortKey.descending(1)).limit(3).build());
        assertEquals(rows("eve", "bob", "amy"), TestRows.drain(step.open(List.of(
                TestRows.shard(types, row("eve", "50"), row("amy", "30"), row("joe", "20")),
                TestRows.shard(types, row("bob", "40"), row("tim", "10"))))));
    }

    @Test
    void distinctWithOrderStreams() {
        int[] types = {TypeOids.TEXT};
        MergeStep step = MergeEngine.compile(MergePlan.builder(1).distinct().orderBy(SortKey.ascending(0)).build());
        assertEquals("DistinctMerger columns=1\n  OrderByStreamMerger keys=[#0 ASC NULLS LAST]", step.describe());
        assertEquals(rows("a", "b", "c"), TestRows.drain(step.open(List.of(
                TestRows.shard(types, row("a"), row("b")), TestRows.shard(types, row("a"), row("c"))))));
    }

    @Test
    void groupOrderDifferentFromOrderByAddsASort() {
        MergeStep sameOrder = MergeEngine.compile(groupedPlan().groupBySorted(SortKey.ascending(0)).orderBy(SortKey.ascending(0)).build());
        MergeStep reversed = MergeEngine.compile(groupedPlan().groupBySorted(SortKey.ascending(0)).orderBy(SortKey.descending(0)).build());
        assertEquals(false, sameOrder.describe().contains("MemorySortMerger"));
        assertEquals(true, reversed.describe().contains("MemorySortMerger keys=[#0 DESC NULLS FIRST]"));
        assertEquals(List.of("d", "c", "b", "a"), TestRows.drain(reversed.open(groupedShards())).stream().map(each -> each.get(0)).toList());
    }

    @Test
    void paginationCanBeReplacedPerExecution() {
        MergeStep compiled = MergeEngine.compile(MergePlan.builder(1).orderBy(SortKey.ascending(0)).limit(1).build());
        MergeStep page = MergeEngine.withPagination(compiled, 1, OptionalLong.of(2));
        assertEquals("LimitDecorator offset=1 limit=2\n  OrderByStreamMerger keys=[#0 ASC NULLS LAST]", page.describe());
        int[] types = {TypeOids.INT4};
        assertEquals(rows("2", "3"), TestRows.drain(page.open(List.of(
                TestRows.shard(types, row("1"), row("3")), TestRows.shard(types, row("2"), row("4"))))));
        assertEquals("OrderByStreamMerger keys=[#0 ASC NULLS LAST]", MergeEngine.withPagination(compiled, 0, OptionalLong.empty()).describe());
    }

    @Test
    void aCollationHookOrdersText() {
        // a case-insensitive collation that breaks ties by bytes, as a deterministic collation must
        TextCollation caseInsensitive = TextCollation.of((a, b) -> {
            int result = new String(a, StandardCharsets.UTF_8).compareToIgnoreCase(new String(b, StandardCharsets.UTF_8));
            return result != 0 ? result : java.util.Arrays.compareUnsigned(a, b);
        });
        int[] types = {TypeOids.TEXT};
        MergeStep step = MergeEngine.compile(MergePlan.builder(1).orderBy(SortKey.ascending(0)).collation(0, caseInsensitive).build());
        assertEquals(rows("a", "B", "c", "D"), TestRows.drain(step.open(List.of(
                TestRows.shard(types, row("a"), row("c")), TestRows.shard(types, row("B"), row("D"))))));
    }

    @Test
    void plansRejectColumnsOutsideTheShardRows() {
        assertThrows(IllegalArgumentException.class, () -> MergePlan.builder(2).orderBy(SortKey.ascending(2)).build());
        assertThrows(IllegalArgumentException.class, () -> MergePlan.builder(2).visibleColumns(3).build());
        assertThrows(IllegalArgumentException.class, () -> MergePlan.builder(3).aggregate(new Aggregate.Avg(0, 1, 3)).build());
        assertThrows(IllegalArgumentException.class, () -> MergePlan.builder(2).aggregate(new Aggregate.Count(0), new Aggregate.Sum(0)).build());
        assertThrows(IllegalArgumentException.class, () -> MergePlan.builder(1).offset(-1).build());
        assertThrows(IllegalArgumentException.class, () -> MergeEngine.compile(MergePlan.builder(1).build()).open(List.of()));
    }
}
