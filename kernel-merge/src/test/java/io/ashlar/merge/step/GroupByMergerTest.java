package io.ashlar.merge.step;

import io.ashlar.merge.RowCursor;
import io.ashlar.merge.TestRows;
import io.ashlar.merge.plan.Aggregate;
import io.ashlar.merge.plan.SortKey;
import io.ashlar.merge.value.ColumnCollations;
import io.ashlar.merge.value.NumericDivision;
import io.ashlar.merge.value.TypeOids;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import static io.ashlar.merge.TestRows.row;
import static io.ashlar.merge.TestRows.rows;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * {@code SELECT k, count(*), sum(v), min(n), max(n), avg(v) FROM t GROUP BY k} over shards that
 * each return {@code k, count(*), sum(v), min(n), max(n), avg(v), sum(v), count(v)} (the last
 * two derived for AVG), merged while streaming and in memory, checked against the aggregates
 * computed directly over all rows.
 */
class GroupByMergerTest {

    private static final int[] TYPES = {TypeOids.INT4, TypeOids.INT8, TypeOids.INT8, TypeOids.NUMERIC, TypeOids.NUMERIC,
        TypeOids.NUMERIC, TypeOids.INT8, TypeOids.INT8};
    private static final ColumnCollations C = ColumnCollations.of(Map.of(), TYPES.length);
    private static final List<Aggregate> AGGREGATES = List.of(new Aggregate.Count(1), new Aggregate.Sum(2), new Aggregate.Min(3),
            new Aggregate.Max(4), new Aggregate.Avg(5, 6, 7));
    private static final List<SortKey> KEYS = List.of(SortKey.ascending(0));

    /** One base row of t. */
    private record Base(Integer k, Integer v, BigDecimal n) {
    }

    @ParameterizedTest(name = "{0} shards")
    @ValueSource(ints = {1, 2, 4, 16})
    void streamingAndInMemoryMergesMatchTheDirectAggregates(int shardCount) {
        Random random = new Random(shardCount);
        for (int round = 0; round < 30; round++) {
            List<List<Base>> shardRows = new ArrayList<>();
            for (int s = 0; s < shardCount; s++) {
                shardRows.add(new ArrayList<>());
            }
            List<Base> all = new ArrayList<>();
            int size = random.nextInt(200);
            for (int i = 0; i < size; i++) {
                Base base = new Base(random.nextInt(10) == 0 ? null : random.nextInt(12),
                        random.nextInt(6) == 0 ? null : random.nextInt(2_000_001) - 1_000_000,
                        random.nextInt(6) == 0 ? null : BigDecimal.valueOf(random.nextInt(20_001) - 10_000, 2));
                all.add(base);
                shardRows.get(random.nextInt(shardCount)).add(base);
            }
            List<List<String>> expected = directAggregates(all);

            List<RowCursor> sorted = new ArrayList<>();
            List<RowCursor> unsorted = new ArrayList<>();
            for (List<Base> each : shardRows) {
                List<byte[][]> partials = partialAggregates(each);
                sorted.add(TestRows.shard(TYPES, partials));
                List<byte[][]> shuffled = new ArrayList<>(partials);
                Collections.shuffle(shuffled, random);
                unsorted.add(TestRows.shard(TYPES, shuffled));
            }
            MergeStep streaming = new GroupByStreamMerger(new OrderByStreamMerger(KEYS, C), KEYS, AGGREGATES, C);
            assertEquals(expected, visible(TestRows.drain(streaming.open(sorted))), "streaming, round " + round);
            MergeStep memory = new GroupByMemoryMerger(new IterationMerger(), KEYS, AGGREGATES, C);
            List<List<String>> fromMemory = visible(TestRows.drain(memory.open(unsorted)));
            fromMemory.sort(Comparator.comparing(each -> each.get(0) == null ? Integer.MAX_VALUE : Integer.parseInt(each.get(0))));
            assertEquals(expected, fromMemory, "memory, round " + round);
        }
    }

    private static List<List<String>> visible(List<List<String>> rows) {
        List<List<String>> result = new ArrayList<>();
        rows.forEach(each -> result.add(new ArrayList<>(each.subList(0, 6))));
        return result;
    }

    /** What one shard returns: its groups, sorted by k ASC NULLS LAST. */
    private static List<byte[][]> partialAggregates(List<Base> rows) {
        Map<Integer, List<Base>> groups = group(rows);
        List<byte[][]> result = new ArrayList<>();
        groups.forEach((k, members) -> {
            Totals totals = Totals.of(members);
            result.add(row(k == Integer.MAX_VALUE ? null : k.toString(), Long.toString(members.size()),
                    totals.sum == null ? null : totals.sum.toString(), text(totals.min), text(totals.max),
                    "shard avg, ignored", totals.sum == null ? null : totals.sum.toString(), Long.toString(totals.count)));
        });
        return result;
    }

    /** What PostgreSQL answers over all rows: count(*) bigint, sum(int4) bigint, min/max numeric bytes, avg numeric. */
    private static List<List<String>> directAggregates(List<Base> rows) {
        List<List<String>> result = new ArrayList<>();
        group(rows).forEach((k, members) -> {
            Totals totals = Totals.of(members);
            String average = totals.count == 0 ? null
                    : NumericDivision.divide(BigDecimal.valueOf(totals.sum), BigDecimal.valueOf(totals.count)).toPlainString();
            result.add(java.util.Arrays.asList(k == Integer.MAX_VALUE ? null : k.toString(), Long.toString(members.size()),
                    totals.sum == null ? null : totals.sum.toString(), text(totals.min), text(totals.max), average));
        });
        return result;
    }

    private static Map<Integer, List<Base>> group(List<Base> rows) {
        Map<Integer, List<Base>> result = new TreeMap<>();
        for (Base each : rows) {
            result.computeIfAbsent(each.k() == null ? Integer.MAX_VALUE : each.k(), key -> new ArrayList<>()).add(each);
        }
        return result;
    }

    private static String text(BigDecimal value) {
        return value == null ? null : value.toPlainString();
    }

    private record Totals(Long sum, long count, BigDecimal min, BigDecimal max) {
        static Totals of(List<Base> rows) {
            Long sum = null;
            long count = 0;
            BigDecimal min = null;
            BigDecimal max = null;
            for (Base each : rows) {
                if (each.v() != null) {
                    sum = (sum == null ? 0 : sum) + each.v();
                    count++;
                }
                if (each.n() != null) {
                    min = min == null || each.n().compareTo(min) < 0 ? each.n() : min;
                    max = max == null || each.n().compareTo(max) > 0 ? each.n() : max;
                }
            }
            return new Totals(sum, count, min, max);
        }
    }

    @Test
    void plainAggregateOverNoRowsIsOneRowWithCountZeroAndNulls() {
        MergeStep step = new GroupByStreamMerger(new IterationMerger(), List.of(), AGGREGATES, C);
        List<List<String>> result = visible(TestRows.drain(step.open(List.of(TestRows.shard(TYPES), TestRows.shard(TYPES)))));
        assertEquals(rows("∅|0|∅|∅|∅|∅"), result);
    }

    @Test
    void groupByOverNoRowsIsNoRows() {
        MergeStep step = new GroupByStreamMerger(new OrderByStreamMerger(KEYS, C), KEYS, AGGREGATES, C);
        assertEquals(List.of(), TestRows.drain(step.open(List.of(TestRows.shard(TYPES), TestRows.shard(TYPES)))));
        MergeStep memory = new GroupByMemoryMerger(new IterationMerger(), KEYS, AGGREGATES, C);
        assertEquals(List.of(), TestRows.drain(memory.open(List.of(TestRows.shard(TYPES)))));
    }

    @Test
    void groupKeysEqualByValueMergeIntoOneGroup() {
        int[] types = {TypeOids.NUMERIC, TypeOids.INT8};
        ColumnCollations collations = ColumnCollations.of(Map.of(), 2);
        List<SortKey> keys = List.of(SortKey.ascending(0));
        List<Aggregate> count = List.of(new Aggregate.Count(1));
        MergeStep streaming = new GroupByStreamMerger(new OrderByStreamMerger(keys, collations), keys, count, collations);
        // 1.0 and 1.00 are one numeric value, so one group; the first shard's bytes name it
        assertEquals(rows("1.0|5", "2|1"), TestRows.drain(streaming.open(List.of(
                TestRows.shard(types, row("1.0", "2"), row("2", "1")),
                TestRows.shard(types, row("1.00", "3"))))));
        MergeStep memory = new GroupByMemoryMerger(new IterationMerger(), keys, count, collations);
        assertEquals(rows("1.0|5", "2|1"), TestRows.drain(memory.open(List.of(
                TestRows.shard(types, row("1.0", "2"), row("2", "1")),
                TestRows.shard(types, row("1.00", "3"))))));
    }

    @Test
    void sumsKeepTheirTypeAndPostgresqlText() {
        int[] types = {TypeOids.NUMERIC, TypeOids.FLOAT8, TypeOids.FLOAT4, TypeOids.INT8};
        ColumnCollations collations = ColumnCollations.of(Map.of(), 4);
        List<Aggregate> sums = List.of(new Aggregate.Sum(0), new Aggregate.Sum(1), new Aggregate.Sum(2), new Aggregate.Sum(3));
        RowCursor merged = new GroupByStreamMerger(new IterationMerger(), List.of(), sums, collations).open(List.of(
                TestRows.shard(types, row("1.10", "0.1", "0.1", "9223372036854775000")),
                TestRows.shard(types, row("2.125", "0.2", "0.2", "7")),
                TestRows.shard(types, row(null, null, null, null))));
        // numeric keeps the largest display scale; float8 and float4 add in their own precision
        assertEquals(rows("3.225|0.30000000000000004|0.3|9223372036854775007"), TestRows.drain(merged));
        assertEquals(TypeOids.NUMERIC, merged.typeOid(0));
        assertEquals(TypeOids.FLOAT4, merged.typeOid(2));
    }

    @Test
    void numericSumsPastLongRangeStayExact() {
        int[] types = {TypeOids.NUMERIC};
        ColumnCollations collations = ColumnCollations.of(Map.of(), 1);
        RowCursor merged = new GroupByStreamMerger(new IterationMerger(), List.of(), List.of(new Aggregate.Sum(0)), collations).open(List.of(
                TestRows.shard(types, row("999999999999999999"), row("0.000000000000000001")),
                TestRows.shard(types, row("123456789012345678901234567890.5"), row("-1"))));
        assertEquals(rows("123456789013345678901234567888.500000000000000001"), TestRows.drain(merged));
    }

    @Test
    void numericSpecialValuesCombineAsPostgresql() {
        int[] types = {TypeOids.NUMERIC, TypeOids.NUMERIC, TypeOids.NUMERIC};
        ColumnCollations collations = ColumnCollations.of(Map.of(), 3);
        List<Aggregate> sums = List.of(new Aggregate.Sum(0), new Aggregate.Sum(1), new Aggregate.Sum(2));
        RowCursor merged = new GroupByStreamMerger(new IterationMerger(), List.of(), sums, collations).open(List.of(
                TestRows.shard(types, row("1", "Infinity", "Infinity")),
                TestRows.shard(types, row("NaN", "5", "-Infinity"))));
        assertEquals(rows("NaN|Infinity|NaN"), TestRows.drain(merged));
    }

    @Test
    void bigintSumOverflowIsAnError() {
        int[] types = {TypeOids.INT8};
        RowCursor merged = new GroupByStreamMerger(new IterationMerger(), List.of(), List.of(new Aggregate.Sum(0)),
                ColumnCollations.of(Map.of(), 1)).open(List.of(
                TestRows.shard(types, row("9223372036854775807")), TestRows.shard(types, row("1"))));
        ArithmeticException error = assertThrows(ArithmeticException.class, merged::next);
        assertEquals("bigint out of range", error.getMessage());
    }

    @Test
    void averagesPrintPostgresqlDigits() {
        // avg(int4) of 1 on shard 0 and 2, 2 on shard 1: sum 5, count 3 -> numeric_div(5, 3), scale 16;
        // the derived SUM and COUNT columns are not aggregates themselves: they keep the first row's bytes
        int[] types = {TypeOids.NUMERIC, TypeOids.INT8, TypeOids.INT8};
        ColumnCollations collations = ColumnCollations.of(Map.of(), 3);
        List<Aggregate> average = List.of(new Aggregate.Avg(0, 1, 2));
        assertEquals(rows("1.6666666666666667|1|1"), TestRows.drain(new GroupByStreamMerger(new IterationMerger(), List.of(), average,
                collations).open(List.of(TestRows.shard(types, row("1", "1", "1")), TestRows.shard(types, row("2", "4", "2"))))));
        assertEquals(rows("1.5000000000000000|1|1"), TestRows.drain(new GroupByStreamMerger(new IterationMerger(), List.of(), average,
                collations).open(List.of(TestRows.shard(types, row("1", "1", "1")), TestRows.shard(types, row("2", "2", "1"))))));
        // avg(numeric): the sums' display scale 24 beats the 20 select_div_scale asks for
        int[] numericTypes = {TypeOids.NUMERIC, TypeOids.NUMERIC, TypeOids.INT8};
        assertEquals(rows("0.333333333333333333333333|0.500000000000000000000000|2"), TestRows.drain(new GroupByStreamMerger(
                new IterationMerger(), List.of(), average, collations).open(List.of(
                TestRows.shard(numericTypes, row("x", "0.500000000000000000000000", "2")),
                TestRows.shard(numericTypes, row("x", "0.5", "1"))))));
        // avg(float8) is sum / count in double precision, printed as float8out does
        int[] floatTypes = {TypeOids.FLOAT8, TypeOids.FLOAT8, TypeOids.INT8};
        RowCursor floats = new GroupByStreamMerger(new IterationMerger(), List.of(), average, collations).open(List.of(
                TestRows.shard(floatTypes, row("x", "0.1", "1")), TestRows.shard(floatTypes, row("x", "0.2", "2"))));
        assertEquals(rows("0.10000000000000002|0.1|1"), TestRows.drain(floats));
        assertEquals(TypeOids.FLOAT8, floats.typeOid(0));
        // no non-NULL values: count 0, sum NULL -> avg NULL
        assertEquals(rows("∅|∅|0"), TestRows.drain(new GroupByStreamMerger(new IterationMerger(), List.of(), average, collations)
                .open(List.of(TestRows.shard(types, row("x", null, "0"))))));
    }

    @Test
    void averageOfRealWidensEachSumExactly() {
        // shards asked for SUM(x) over real return real text; avg(real) works in double precision
        int[] types = {TypeOids.FLOAT8, TypeOids.FLOAT4, TypeOids.INT8};
        RowCursor merged = new GroupByStreamMerger(new IterationMerger(), List.of(), List.of(new Aggregate.Avg(0, 1, 2)),
                ColumnCollations.of(Map.of(), 3)).open(List.of(TestRows.shard(types, row("x", "0.1", "1"))));
        // select avg(0.1::real) prints 0.10000000149011612: the float nearest 0.1, widened
        assertEquals("0.10000000149011612", TestRows.drain(merged).get(0).get(0));
    }

    @Test
    void minAndMaxKeepTheWinningBytes() {
        int[] types = {TypeOids.NUMERIC, TypeOids.NUMERIC, TypeOids.TEXT, TypeOids.TEXT};
        List<Aggregate> extremes = List.of(new Aggregate.Min(0), new Aggregate.Max(1), new Aggregate.Min(2), new Aggregate.Max(3));
        RowCursor merged = new GroupByStreamMerger(new IterationMerger(), List.of(), extremes, ColumnCollations.of(Map.of(), 4)).open(List.of(
                TestRows.shard(types, row("1.50", "9.9", "b", "B")),
                TestRows.shard(types, row("1.5", "10.00", "a", "a")),
                TestRows.shard(types, row(null, null, null, null))));
        assertEquals(rows("1.50|10.00|a|a"), TestRows.drain(merged));
    }

    @Test
    void distinctAggregatesCountEachValueOnce() {
        // SELECT k, count(DISTINCT x), sum(DISTINCT x), avg(DISTINCT x), count(*) ... shards return k, x, x, x, count(*) grouped by k, x
        int[] types = {TypeOids.TEXT, TypeOids.INT4, TypeOids.INT4, TypeOids.INT4, TypeOids.INT8};
        ColumnCollations collations = ColumnCollations.of(Map.of(), 5);
        List<SortKey> keys = List.of(SortKey.ascending(0));
        List<Aggregate> aggregates = List.of(new Aggregate.CountDistinct(1, 1), new Aggregate.SumDistinct(2, 2),
                new Aggregate.AvgDistinct(3, 3), new Aggregate.Count(4));
        List<RowCursor> shards = List.of(
                TestRows.shard(types, row("a", "1", "1", "1", "2"), row("a", "2", "2", "2", "1"), row("a", null, null, null, "4")),
                TestRows.shard(types, row("a", "2", "2", "2", "5"), row("b", "7", "7", "7", "1")));
        RowCursor merged = new GroupByStreamMerger(new OrderByStreamMerger(keys, collations), keys, aggregates, collations).open(shards);
        assertEquals(rows("a|2|3|1.5000000000000000|12", "b|1|7|7.0000000000000000|1"), TestRows.drain(merged));
        assertEquals(TypeOids.INT8, merged.typeOid(1));
        assertEquals(TypeOids.INT8, merged.typeOid(2));
        assertEquals(TypeOids.NUMERIC, merged.typeOid(3));
    }

    @Test
    void distinctValuesAreEqualByValue() {
        int[] types = {TypeOids.NUMERIC, TypeOids.NUMERIC};
        List<Aggregate> aggregates = List.of(new Aggregate.CountDistinct(0, 0), new Aggregate.SumDistinct(1, 1));
        RowCursor merged = new GroupByStreamMerger(new IterationMerger(), List.of(), aggregates, ColumnCollations.of(Map.of(), 2)).open(List.of(
                TestRows.shard(types, row("1.0", "1.0"), row("2", "2")), TestRows.shard(types, row("1.00", "1.00"))));
        // 1.00 is 1.0 again: counted and summed once
        assertEquals(rows("2|3.0"), TestRows.drain(merged));
    }

    /**
     * MIN over a type whose order the proxy does not know is refused when the merge opens, whatever the rows: it failed
     * only when two shards' values met, so that the same statement worked or not depending on where rows were, and past
     * the point where the session has PostgreSQL finish such a statement instead.
     */
    @Test
    void minOverATypeWithUnknownOrderIsRefusedWhenOpened() {
        int[] types = {TypeOids.JSONB};
        MergeStep step = new GroupByStreamMerger(new IterationMerger(), List.of(), List.of(new Aggregate.Min(0)), ColumnCollations.of(Map.of(), 1));
        assertThrows(IllegalArgumentException.class,
                () -> step.open(List.of(TestRows.shard(types, row("{\"a\": 1}")), TestRows.shard(types))));
        assertThrows(IllegalArgumentException.class,
                () -> step.open(List.of(TestRows.shard(types, row("{\"a\": 1}")), TestRows.shard(types, row("{\"b\": 1}")))));
    }

    @Test
    void sumOverAnUnmergeableTypeIsRefusedWhenOpened() {
        int[] types = {TypeOids.INTERVAL};
        MergeStep step = new GroupByStreamMerger(new IterationMerger(), List.of(), List.of(new Aggregate.Sum(0)), ColumnCollations.of(Map.of(), 1));
        assertThrows(IllegalArgumentException.class, () -> step.open(List.of(TestRows.shard(types, row("1 day")))));
    }
}
