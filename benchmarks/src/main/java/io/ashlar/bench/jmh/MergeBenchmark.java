package io.ashlar.bench.jmh;

import io.ashlar.merge.MergeEngine;
import io.ashlar.merge.RowCursor;
import io.ashlar.merge.plan.Aggregate;
import io.ashlar.merge.plan.MergePlan;
import io.ashlar.merge.plan.SortKey;
import io.ashlar.merge.step.MergeStep;
import io.ashlar.merge.value.TypeOids;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.Blackhole;

/**
 * kernel-merge over in-memory shard results: the step tree is compiled once (as the proxy caches
 * it per statement), and each operation opens it over {@code streams} rewound shard cursors and
 * reads every merged row, as the frontend does when it encodes them.
 * <ul>
 * <li>{@link #orderBy}: {@code SELECT id, name, amount ... ORDER BY id} over shards that each
 * return their rows sorted: a k-way merge of {@value #ORDER_BY_ROWS} rows in all (int8, text,
 * numeric), interleaved so that every output row comes from another shard than the last.</li>
 * <li>{@link #groupBySorted}: {@code SELECT k, count(*), sum(v), avg(v) ... GROUP BY k} with the
 * shards' groups sorted by k (the proxy adds ORDER BY k): the k-way merge feeding a streaming
 * group-by; every shard holds all {@value #GROUPS} groups, so {@value #GROUPS} x streams rows
 * in, {@value #GROUPS} out.</li>
 * <li>{@link #groupByMemory}: the same rows merged by the in-memory group-by (what the proxy does
 * when the shards' group order cannot be used).</li>
 * </ul>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class MergeBenchmark {

    /** Rows of the ORDER BY case, over all streams. */
    public static final int ORDER_BY_ROWS = 1024;

    /** Groups of the GROUP BY cases, in every stream. */
    public static final int GROUPS = 64;

    private static final int[] ORDER_BY_TYPES = {TypeOids.INT8, TypeOids.TEXT, TypeOids.NUMERIC};

    /** k, count(*), sum(v), avg(v), and avg's derived sum(v) and count(v). */
    private static final int[] GROUP_BY_TYPES = {TypeOids.INT8, TypeOids.INT8, TypeOids.NUMERIC, TypeOids.NUMERIC,
            TypeOids.NUMERIC, TypeOids.INT8};

    @Param({"4", "16"})
    public int streams;

    private MergeStep orderByStep;
    private MergeStep groupBySortedStep;
    private MergeStep groupByMemoryStep;
    private ArrayRowCursor[] orderByShards;
    private ArrayRowCursor[] groupByShards;
    private List<RowCursor> orderByList;
    private List<RowCursor> groupByList;

    @Setup
    public void setUp() {
        orderByStep = MergeEngine.compile(MergePlan.builder(3).orderBy(SortKey.ascending(0)).build());
        groupBySortedStep = MergeEngine.compile(groupByPlan().groupBySorted(SortKey.ascending(0)).build());
        groupByMemoryStep = MergeEngine.compile(groupByPlan().groupBy(SortKey.ascending(0)).build());
        orderByShards = new ArrayRowCursor[streams];
        groupByShards = new ArrayRowCursor[streams];
        int perShard = ORDER_BY_ROWS / streams;
        for (int s = 0; s < streams; s++) {
            byte[][][] rows = new byte[perShard][][];
            for (int r = 0; r < perShard; r++) {
                long id = (long) r * streams + s + 1_000_000L;
                rows[r] = new byte[][] {text(Long.toString(id)), text("customer-" + (id % 977)),
                        text((id % 10_000) + "." + (id % 100))};
            }
            orderByShards[s] = new ArrayRowCursor(ORDER_BY_TYPES, rows);
            byte[][][] groups = new byte[GROUPS][][];
            for (int g = 0; g < GROUPS; g++) {
                int count = 1 + (g + s) % 7;
                long sum = (long) count * (g * 31 + s);
                groups[g] = new byte[][] {text(Integer.toString(g * 10)), text(Integer.toString(count)),
                        text(sum + ".50"), text(sum / count + ".25"), text(sum + ".50"), text(Integer.toString(count))};
            }
            groupByShards[s] = new ArrayRowCursor(GROUP_BY_TYPES, groups);
        }
        orderByList = List.of(orderByShards);
        groupByList = List.of(groupByShards);
    }

    private static MergePlan.Builder groupByPlan() {
        return MergePlan.builder(6).visibleColumns(4)
                .aggregate(new Aggregate.Count(1), new Aggregate.Sum(2), new Aggregate.Avg(3, 4, 5));
    }

    private static byte[] text(String value) {
        return value.getBytes(StandardCharsets.UTF_8);
    }

    @Benchmark
    public int orderBy(Blackhole blackhole) {
        return drain(orderByStep, orderByShards, orderByList, blackhole);
    }

    @Benchmark
    public int groupBySorted(Blackhole blackhole) {
        return drain(groupBySortedStep, groupByShards, groupByList, blackhole);
    }

    @Benchmark
    public int groupByMemory(Blackhole blackhole) {
        return drain(groupByMemoryStep, groupByShards, groupByList, blackhole);
    }

    private static int drain(MergeStep step, ArrayRowCursor[] shards, List<RowCursor> list, Blackhole blackhole) {
        for (ArrayRowCursor each : shards) {
            each.rewind();
        }
        int rows = 0;
        try (RowCursor merged = step.open(list)) {
            while (merged.next()) {
                blackhole.consume(merged.row());
                rows++;
            }
        }
        return rows;
    }
}
