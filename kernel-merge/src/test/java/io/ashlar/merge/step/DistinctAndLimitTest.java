package io.ashlar.merge.step;

import io.ashlar.merge.ListRowCursor;
import io.ashlar.merge.RowCursor;
import io.ashlar.merge.TestRows;
import io.ashlar.merge.plan.SortKey;
import io.ashlar.merge.value.ColumnCollations;
import io.ashlar.merge.value.TypeOids;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

import static io.ashlar.merge.TestRows.row;
import static io.ashlar.merge.TestRows.rows;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DistinctAndLimitTest {

    private static final int[] TYPES = {TypeOids.NUMERIC, TypeOids.TEXT, TypeOids.INT4};
    private static final ColumnCollations C = ColumnCollations.of(Map.of(), 3);

    @Test
    void distinctDropsRowsSeenOnAnotherShardByValue() {
        RowCursor merged = new DistinctMerger(new IterationMerger(), 2, C).open(List.of(
                TestRows.shard(TYPES, row("1.0", "a", "1"), row(null, "b", "2"), row("2", "a", "3")),
                TestRows.shard(TYPES, row("1.00", "a", "4"), row(null, "b", "5"), row("2", "A", "6"))));
        // only the first two columns make a row distinct; 1.0 = 1.00 and NULL = NULL for DISTINCT
        assertEquals(rows("1.0|a|1", "∅|b|2", "2|a|3", "2|A|6"), TestRows.drain(merged));
    }

    @Test
    void distinctKeepsASortedMergesOrder() {
        RowCursor merged = new DistinctMerger(new OrderByStreamMerger(List.of(SortKey.descending(2)), C), 2, C).open(List.of(
                TestRows.shard(TYPES, row("1", "x", "9"), row("2", "y", "5")),
                TestRows.shard(TYPES, row("1", "x", "7"), row("3", "z", "1"))));
        assertEquals(rows("1|x|9", "2|y|5", "3|z|1"), TestRows.drain(merged));
    }

    private static List<List<String>> page(long offset, OptionalLong limit, ListRowCursor... shards) {
        return TestRows.drain(new LimitDecorator(new OrderByStreamMerger(List.of(SortKey.ascending(2)), C), offset, limit)
                .open(List.of(shards)));
    }

    private static ListRowCursor[] shards() {
        return new ListRowCursor[] {
            TestRows.shard(TYPES, row("1", "a", "1"), row("1", "c", "3"), row("1", "e", "5")),
            TestRows.shard(TYPES, row("1", "b", "2"), row("1", "d", "4"))};
    }

    @Test
    void limitAndOffsetApplyToTheMergedRows() {
        assertEquals(rows("1|c|3", "1|d|4"), page(2, OptionalLong.of(2), shards()));
        assertEquals(rows("1|a|1", "1|b|2"), page(0, OptionalLong.of(2), shards()));
        assertEquals(rows("1|d|4", "1|e|5"), page(3, OptionalLong.empty(), shards()));
        assertEquals(List.of(), page(0, OptionalLong.of(0), shards()));
    }

    @Test
    void offsetBeyondTheEndGivesNothingAndReleasesTheShards() {
        ListRowCursor[] shards = shards();
        assertEquals(List.of(), page(5, OptionalLong.of(10), shards));
        assertEquals(List.of(), page(50, OptionalLong.empty(), shards()));
        assertTrue(shards[0].isClosed() && shards[1].isClosed());
    }

    @Test
    void reachingTheLimitClosesTheShardsOnTheNextRead() {
        ListRowCursor[] shards = shards();
        RowCursor limited = new LimitDecorator(new OrderByStreamMerger(List.of(SortKey.ascending(2)), C), 1, OptionalLong.of(1))
                .open(List.of(shards));
        assertTrue(limited.next());
        assertEquals("b", new String(limited.value(1)));
        assertFalse(shards[0].isClosed());
        assertFalse(limited.next());
        assertTrue(shards[0].isClosed() && shards[1].isClosed());
    }

    @Test
    void strippingHidesDerivedColumns() {
        RowCursor stripped = new DerivedColumnStripper(new IterationMerger(), 2).open(List.of(TestRows.shard(TYPES, row("1", "a", "9"))));
        assertEquals(2, stripped.columnCount());
        assertEquals(rows("1|a"), TestRows.drain(stripped));
    }
}
