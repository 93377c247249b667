package io.ashlar.merge.step;

import io.ashlar.merge.ListRowCursor;
import io.ashlar.merge.RowCursor;
import io.ashlar.merge.TestRows;
import io.ashlar.merge.plan.SortKey;
import io.ashlar.merge.value.ColumnCollations;
import io.ashlar.merge.value.TypeOids;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static io.ashlar.merge.TestRows.row;
import static io.ashlar.merge.TestRows.rows;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class OrderByStreamMergerTest {

    private static final int[] TYPES = {TypeOids.INT4, TypeOids.TEXT, TypeOids.NUMERIC, TypeOids.INT8};
    private static final ColumnCollations C = ColumnCollations.of(Map.of(), TYPES.length);

    /** Key sets over (int4 #0, text #1, numeric #2); #3 is the row's identity. */
    private static final List<List<SortKey>> KEY_SETS = List.of(
            List.of(SortKey.ascending(0)),
            List.of(SortKey.descending(0)),
            List.of(new SortKey(0, false, true)),
            List.of(new SortKey(0, true, false)),
            List.of(SortKey.ascending(1), SortKey.descending(0)),
            List.of(SortKey.descending(2), SortKey.ascending(1), new SortKey(0, false, true)),
            List.of(SortKey.ascending(2)));

    @ParameterizedTest(name = "{0} shards")
    @ValueSource(ints = {1, 2, 4, 16})
    void mergesRandomSortedStreamsLikeASortOfTheirConcatenation(int shardCount) {
        Random random = new Random(shardCount * 31L);
        for (List<SortKey> keys : KEY_SETS) {
            for (int round = 0; round < 20; round++) {
                Comparator<String[]> reference = reference(keys);
                List<List<String[]>> shards = new ArrayList<>();
                long identity = 0;
                for (int s = 0; s < shardCount; s++) {
                    List<String[]> rows = new ArrayList<>();
                    int size = random.nextInt(round % 5 == 0 ? 3 : 40);
                    for (int i = 0; i < size; i++) {
                        rows.add(new String[] {
                            random.nextInt(8) == 0 ? null : Integer.toString(random.nextInt(21) - 10),
                            random.nextInt(8) == 0 ? null : Character.toString('a' + random.nextInt(4)) + (random.nextBoolean() ? "" : "x"),
                            random.nextInt(8) == 0 ? null : BigDecimal.valueOf(random.nextInt(200) - 100, random.nextInt(3)).toPlainString(),
                            Long.toString(identity++)});
                    }
                    rows.sort(reference);
                    shards.add(rows);
                }
                List<String[]> expected = new ArrayList<>();
                shards.forEach(expected::addAll);
                expected.sort(reference);

                List<RowCursor> cursors = new ArrayList<>();
                for (List<String[]> each : shards) {
                    List<byte[][]> rows = new ArrayList<>();
                    each.forEach(values -> rows.add(row(values)));
                    cursors.add(TestRows.shard(TYPES, rows));
                }
                List<List<String>> merged = TestRows.drain(new OrderByStreamMerger(keys, C).open(cursors));
                List<List<String>> expectedRows = new ArrayList<>();
                expected.forEach(values -> expectedRows.add(java.util.Arrays.asList(values)));
                assertEquals(expectedRows, merged, "keys " + keys + " round " + round);
                for (RowCursor each : cursors) {
                    assertTrue(((ListRowCursor) each).isClosed());
                }
            }
        }
    }

    /** An independent comparator: numbers as numbers, text as Java strings (ASCII here), NULLs per key. */
    private static Comparator<String[]> reference(List<SortKey> keys) {
        return (a, b) -> {
            for (SortKey key : keys) {
                String x = a[key.column()];
                String y = b[key.column()];
                if (x == null || y == null) {
                    if (x == y) {
                        continue;
                    }
                    return (x == null) == key.nullsFirst() ? -1 : 1;
                }
                int result = switch (key.column()) {
                    case 0 -> Integer.compare(Integer.parseInt(x), Integer.parseInt(y));
                    case 2 -> new BigDecimal(x).compareTo(new BigDecimal(y));
                    default -> x.compareTo(y);
                };
                if (result != 0) {
                    return key.descending() ? -result : result;
                }
            }
            return 0;
        };
    }

    @Test
    void tiesComeOutInShardOrder() {
        int[] types = {TypeOids.INT4, TypeOids.TEXT};
        RowCursor merged = new OrderByStreamMerger(List.of(SortKey.ascending(0)), ColumnCollations.of(Map.of(), 2)).open(List.of(
                TestRows.shard(types, row("1", "s0a"), row("2", "s0b")),
                TestRows.shard(types, row("1", "s1a"), row("1", "s1b"), row("2", "s1c")),
                TestRows.shard(types, row("0", "s2a"), row("2", "s2b"))));
        assertEquals(rows("0|s2a", "1|s0a", "1|s1a", "1|s1b", "2|s0b", "2|s1c", "2|s2b"), TestRows.drain(merged));
    }

    @Test
    void nullsFollowTheKeysPlacement() {
        int[] types = {TypeOids.INT8};
        ColumnCollations collations = ColumnCollations.of(Map.of(), 1);
        // ASC: NULLS LAST by default; DESC: NULLS FIRST by default
        assertEquals(rows("1", "2", "∅", "∅"), TestRows.drain(new OrderByStreamMerger(List.of(SortKey.ascending(0)), collations)
                .open(List.of(TestRows.shard(types, row("1"), row((String) null)), TestRows.shard(types, row("2"), row((String) null))))));
        assertEquals(rows("∅", "∅", "2", "1"), TestRows.drain(new OrderByStreamMerger(List.of(SortKey.descending(0)), collations)
                .open(List.of(TestRows.shard(types, row((String) null), row("1")), TestRows.shard(types, row((String) null), row("2"))))));
        assertEquals(rows("∅", "1", "2"), TestRows.drain(new OrderByStreamMerger(List.of(new SortKey(0, false, true)), collations)
                .open(List.of(TestRows.shard(types, row("1")), TestRows.shard(types, row((String) null), row("2"))))));
    }

    @Test
    void ordersTypedValuesAsPostgresql() {
        int[] types = {TypeOids.FLOAT8, TypeOids.TIMESTAMPTZ};
        ColumnCollations collations = ColumnCollations.of(Map.of(), 2);
        RowCursor floats = new OrderByStreamMerger(List.of(SortKey.ascending(0)), collations).open(List.of(
                TestRows.shard(types, row("-Infinity", null), row("-0", null), row("NaN", null)),
                TestRows.shard(types, row("-1e+300", null), row("0", null), row("1e+20", null), row("Infinity", null))));
        assertEquals(List.of("-Infinity", "-1e+300", "-0", "0", "1e+20", "Infinity", "NaN"),
                TestRows.drain(floats).stream().map(each -> each.get(0)).toList());
        RowCursor instants = new OrderByStreamMerger(List.of(SortKey.ascending(1)), collations).open(List.of(
                TestRows.shard(types, row(null, "2024-01-01 09:00:00+01"), row(null, "2024-01-01 12:00:00+00")),
                TestRows.shard(types, row(null, "2024-01-01 05:00:00-05"), row(null, "2024-01-01 11:30:00+00"))));
        assertEquals(List.of("2024-01-01 09:00:00+01", "2024-01-01 05:00:00-05", "2024-01-01 11:30:00+00", "2024-01-01 12:00:00+00"),
                TestRows.drain(instants).stream().map(each -> each.get(1)).toList());
    }

    @Test
    void emptyShardsAreSkippedAndClosed() {
        int[] types = {TypeOids.INT4};
        ListRowCursor empty = TestRows.shard(types);
        ListRowCursor full = TestRows.shard(types, row("1"), row("3"));
        ListRowCursor other = TestRows.shard(types, row("2"));
        RowCursor merged = new OrderByStreamMerger(List.of(SortKey.ascending(0)), ColumnCollations.of(Map.of(), 1))
                .open(List.of(empty, full, other));
        assertTrue(merged.next());
        assertTrue(empty.isClosed());
        assertEquals(rows("2", "3"), TestRows.drain(merged));
        assertTrue(full.isClosed() && other.isClosed());
    }

    @Test
    void refusesToMergeTypesWhoseOrderItDoesNotKnow() {
        int[] types = {TypeOids.MONEY};
        ListRowCursor a = TestRows.shard(types, row("$9.00"));
        ListRowCursor b = TestRows.shard(types, row("$10.00"));
        OrderByStreamMerger merger = new OrderByStreamMerger(List.of(SortKey.ascending(0)), ColumnCollations.of(Map.of(), 1));
        IllegalArgumentException error = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> merger.open(List.of(a, b)));
        assertTrue(error.getMessage().contains("type OID 790"), error.getMessage());
        assertTrue(a.isClosed() && b.isClosed());
        // one shard already sorted it: nothing to merge, so nothing to refuse
        assertEquals(rows("$9.00"), TestRows.drain(merger.open(List.of(TestRows.shard(types, row("$9.00"))))));
    }

    @Test
    void describesItself() {
        assertEquals("OrderByStreamMerger keys=[#1 DESC NULLS FIRST, #0 ASC NULLS LAST]",
                new OrderByStreamMerger(List.of(SortKey.descending(1), SortKey.ascending(0)), C).describe());
    }
}
