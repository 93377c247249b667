package io.ashlar.merge.step;

import io.ashlar.merge.RowCursor;
import io.ashlar.merge.TestRows;
import io.ashlar.merge.plan.CompareOperator;
import io.ashlar.merge.plan.HavingPredicate;
import io.ashlar.merge.value.ColumnCollations;
import io.ashlar.merge.value.TypeOids;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static io.ashlar.merge.TestRows.row;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class HavingFilterTest {

    /** Merged groups: k text, count bigint, avg numeric, max float8, total int4, label char(4), day date. */
    private static final int[] TYPES = {TypeOids.TEXT, TypeOids.INT8, TypeOids.NUMERIC, TypeOids.FLOAT8, TypeOids.INT4,
        TypeOids.BPCHAR, TypeOids.DATE};
    private static final ColumnCollations C = ColumnCollations.of(Map.of(), TYPES.length);

    private static List<String> keep(HavingPredicate predicate) {
        RowCursor shard = TestRows.shard(TYPES,
                row("a", "10", "2.50", "1e+20", "3", "x   ", "2024-01-01"),
                row("b", "2", "10", "NaN", "12", "y   ", "2024-06-30"),
                row("c", "9", null, null, null, null, null),
                row("d", "100", "2.5", "-0", "100", "x   ", "2023-12-31"));
        return TestRows.drain(new HavingFilter(new IterationMerger(), predicate, C).open(List.of(shard)))
                .stream().map(each -> each.get(0)).toList();
    }

    @Test
    void comparesColumnsWithConstantsByTheColumnType() {
        // bigint compared as a number: "9" > "10" as text, but 9 < 10
        assertEquals(List.of("a", "d"), keep(HavingPredicate.compare(1, CompareOperator.GE, "10", 0)));
        // numeric 2.50 = 2.5
        assertEquals(List.of("a", "d"), keep(HavingPredicate.compare(2, CompareOperator.EQ, "2.5", TypeOids.NUMERIC)));
        // float8: NaN above everything, -0 = 0
        assertEquals(List.of("b"), keep(HavingPredicate.compare(3, CompareOperator.GT, "Infinity", 0)));
        assertEquals(List.of("d"), keep(HavingPredicate.compare(3, CompareOperator.EQ, "0", 0)));
        // character(n): padding ignored against an untyped literal
        assertEquals(List.of("a", "d"), keep(HavingPredicate.compare(5, CompareOperator.EQ, "x", 0)));
        assertEquals(List.of("b"), keep(HavingPredicate.compare(6, CompareOperator.GT, "2024-01-01", 0)));
    }

    @Test
    void mixedNumberTypesCompareAsPostgresqlResolvesThem() {
        // bigint vs numeric literal: numeric comparison
        assertEquals(List.of("a", "c", "d"), keep(HavingPredicate.compare(1, CompareOperator.GT, "2.5", TypeOids.NUMERIC)));
        // int4 column vs bigint column
        assertEquals(List.of("b", "d"), keep(HavingPredicate.compareColumns(4, CompareOperator.GE, 1)));
        // numeric column vs int4 column (c has NULLs: unknown)
        assertEquals(List.of("a", "b", "d"), keep(HavingPredicate.compareColumns(2, CompareOperator.LT, 4)));
        // date vs timestamp literal
        assertEquals(List.of("a", "b"), keep(HavingPredicate.compare(6, CompareOperator.GE, "2024-01-01 00:00:00", TypeOids.TIMESTAMP)));
    }

    @Test
    void nullsMakeComparisonsUnknownAndUnknownIsNotTrue() {
        // c has NULL avg: neither avg > 0 nor NOT (avg > 0) keeps it
        assertEquals(List.of("a", "b", "d"), keep(HavingPredicate.compare(2, CompareOperator.GT, "0", 0)));
        assertEquals(List.of(), keep(new HavingPredicate.Not(HavingPredicate.compare(2, CompareOperator.GT, "0", 0))));
        // unknown OR true is true; unknown AND false is false
        assertEquals(List.of("a", "b", "c", "d"), keep(new HavingPredicate.Or(List.of(
                HavingPredicate.compare(2, CompareOperator.GT, "0", 0), HavingPredicate.compare(1, CompareOperator.GT, "0", 0)))));
        assertEquals(List.of("a", "d"), keep(new HavingPredicate.And(List.of(
                HavingPredicate.compare(2, CompareOperator.LT, "5", 0), HavingPredicate.compare(1, CompareOperator.GE, "10", 0)))));
        assertEquals(List.of("c"), keep(new HavingPredicate.NullTest(2, false)));
        assertEquals(List.of("a", "b", "d"), keep(new HavingPredicate.NullTest(2, true)));
        assertEquals(List.of("b", "c"), keep(new HavingPredicate.And(List.of(
                HavingPredicate.compare(0, CompareOperator.NE, "a", 0), HavingPredicate.compare(0, CompareOperator.LE, "c", 0)))));
    }

    @Test
    void badConstantsAndImpossibleComparisonsFailWhenOpened() {
        RowCursor shard = TestRows.shard(TYPES);
        assertThrows(IllegalArgumentException.class, () -> new HavingFilter(new IterationMerger(),
                HavingPredicate.compare(1, CompareOperator.GT, "ten", 0), C).open(List.of(shard)));
        assertThrows(IllegalArgumentException.class, () -> new HavingFilter(new IterationMerger(),
                HavingPredicate.compareColumns(0, CompareOperator.EQ, 1), C).open(List.of(TestRows.shard(TYPES))));
    }

    @Test
    void describesItself() {
        assertEquals("HavingFilter (#1 > '5' AND #2 IS NOT NULL)\n  IterationMerger",
                new HavingFilter(new IterationMerger(), new HavingPredicate.And(List.of(
                        HavingPredicate.compare(1, CompareOperator.GT, "5", 0), new HavingPredicate.NullTest(2, true))), C).describe());
    }
}
