package io.ashlar.bench.jmh;

import io.ashlar.backend.datasource.ParameterValues;
import io.ashlar.backend.session.LogicalDatabase;
import io.ashlar.backend.sharding.Plan;
import io.ashlar.backend.sharding.RouteValues;
import io.ashlar.backend.sharding.ShardedExecution;
import io.ashlar.parser.lexer.StatementRange;
import io.ashlar.parser.lexer.StatementSplitter;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * {@code pgbench -S -M simple} as the proxy plans it ({@code ShardedSession.executeSimple}): each
 * query string carries a new literal key, so every query is split into statements, misses the
 * plan cache, is analysed, and is routed and rewritten; no backend runs it. The keys cycle over
 * {@value #KEYS} texts, more than the plan cache keeps, as pgbench's random keys do.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class SimpleQueryBenchmark {

    static final int KEYS = 100_000;

    private LogicalDatabase database;
    private String[] texts;
    private int next;

    @Setup
    public void setUp() {
        database = Workload.database();
        texts = new String[KEYS];
        for (int i = 0; i < KEYS; i++) {
            texts[i] = "SELECT abalance FROM pgbench_accounts WHERE aid = " + (i * 7 + 1) + ";";
        }
    }

    @TearDown
    public void tearDown() {
        database.close();
    }

    @Benchmark
    public int[] simpleQuery() {
        String text = texts[next];
        next = next + 1 == KEYS ? 0 : next + 1;
        List<StatementRange> ranges = StatementSplitter.split(text);
        Plan plan = database.plans().get(ranges.get(0).text(text));
        return ShardedExecution.plan(database, plan, ParameterValues.NONE, new RouteValues(ParameterValues.NONE))
                .dataSources();
    }
}
