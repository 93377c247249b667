package io.ashlar.merge;

import static io.ashlar.merge.TestRows.row;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ashlar.merge.plan.SortKey;
import io.ashlar.merge.step.IterationMerger;
import io.ashlar.merge.step.MemorySortMerger;
import io.ashlar.merge.value.ColumnCollations;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The statement's memory budget as the merges that keep rows charge it, and large sorts on the CPU executor. */
final class MemoryBudgetTest {

    private static final int[] TYPES = {23};

    private static List<RowCursor> shards(int rowsEach) {
        List<byte[][]> a = new ArrayList<>();
        List<byte[][]> b = new ArrayList<>();
        for (int i = 0; i < rowsEach; i++) {
            a.add(row(Integer.toString(2 * i)));
            b.add(row(Integer.toString(2 * i + 1)));
        }
        return List.of(TestRows.shard(TYPES, a), TestRows.shard(TYPES, b));
    }

    private static MemorySortMerger descending() {
        return new MemorySortMerger(new IterationMerger(), List.of(SortKey.descending(0)), ColumnCollations.of(Map.of(), 1));
    }

    @Test
    void aSortPastItsBudgetFailsAndGivesBackWhatItTook() {
        MemoryBudget budget = new MemoryBudget(10_000, "proxy-statement-memory-limit");
        RowCursor cursor = descending().open(shards(1000), new MergeContext(budget, null, Integer.MAX_VALUE));
        MemoryBudget.MemoryLimitExceededException e = assertThrows(MemoryBudget.MemoryLimitExceededException.class, cursor::next);
        assertTrue(e.getMessage().contains("proxy-statement-memory-limit"), e.getMessage());
        cursor.close();
        assertEquals(0, budget.used());
    }

    @Test
    void aSortWithinItsBudgetGivesEachRowBackAsItGoesOut() {
        MemoryBudget budget = new MemoryBudget(1 << 20, "x");
        RowCursor cursor = descending().open(shards(100), new MergeContext(budget, null, Integer.MAX_VALUE));
        assertTrue(cursor.next());
        assertEquals("199", new String(cursor.value(0)));
        long held = budget.used();
        assertTrue(held > 0);
        assertTrue(cursor.next());
        assertTrue(budget.used() < held);
        cursor.close();
        assertEquals(0, budget.used());
    }

    @Test
    void aLargeSortRunsOnTheCpuExecutor() {
        AtomicReference<String> sortedOn = new AtomicReference<>();
        ExecutorService cpu = Executors.newSingleThreadExecutor(task -> new Thread(task, "merge-cpu"));
        try {
            MergeContext context = new MergeContext(MemoryBudget.unbounded(), work -> cpu.execute(() -> {
                sortedOn.set(Thread.currentThread().getName());
                work.run();
            }), 100);
            List<List<String>> rows = TestRows.drain(descending().open(shards(100), context));
            assertEquals(200, rows.size());
            assertEquals("199", rows.get(0).get(0));
            assertEquals("merge-cpu", sortedOn.get());
            sortedOn.set(null);
            TestRows.drain(descending().open(shards(10), context));
            assertEquals(null, sortedOn.get(), "a small sort stays on the caller's thread");
        } finally {
            cpu.shutdownNow();
        }
    }

    @Test
    void describesLimitsAsPeopleWriteThem() {
        assertEquals("256 MiB", MemoryBudget.describe(256L << 20));
        assertEquals("1 GiB", MemoryBudget.describe(1L << 30));
        assertEquals("1000 bytes", MemoryBudget.describe(1000));
    }

    @Test
    void afterTheHeapRanOutTheNextStatementHoldingAMegabyteFailsAndOnlyThatOne() {
        MemoryBudget small = new MemoryBudget(1L << 30, "proxy-statement-memory-limit");
        MemoryBudget large = new MemoryBudget(1L << 30, "proxy-statement-memory-limit");
        MemoryBudget other = new MemoryBudget(1L << 30, "proxy-statement-memory-limit");
        large.charge(MemoryBudget.VICTIM_FLOOR - 10);
        other.charge(MemoryBudget.VICTIM_FLOOR - 10);
        MemoryBudget.heapRanOut();
        small.charge(1000); // holds less than the floor: goes on
        MemoryBudget.MemoryLimitExceededException failed = assertThrows(MemoryBudget.MemoryLimitExceededException.class,
                () -> large.charge(100));
        assertTrue(failed.heap(), failed.getMessage());
        assertTrue(failed.getMessage().contains("heap ran out while this statement held about 1 MiB"), failed.getMessage());
        assertEquals(MemoryBudget.VICTIM_FLOOR - 10, large.used(), "the failed charge took nothing");
        other.charge(100); // one statement per time the heap ran out
        assertEquals(MemoryBudget.VICTIM_FLOOR + 90, other.used());
    }

    @Test
    void onlyAnOutOfMemoryErrorOrOneWrappedMarksTheHeapAsRunOut() {
        MemoryBudget large = new MemoryBudget(1L << 30, "proxy-statement-memory-limit");
        large.charge(MemoryBudget.VICTIM_FLOOR);
        MemoryBudget.heapRanOutIf(new IllegalStateException("not memory"));
        large.charge(100);
        MemoryBudget.heapRanOutIf(new RuntimeException("a decoder's", new OutOfMemoryError("Java heap space")));
        assertThrows(MemoryBudget.MemoryLimitExceededException.class, () -> large.charge(100));
    }
}
