package io.ashlar.bench.jmh;

import io.ashlar.parser.StatementAnalyzer;
import io.ashlar.parser.statement.AnalyzedStatement;
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
 * {@link StatementAnalyzer#analyze}: lexing and analysing one SQL text, what a plan-cache miss
 * costs (a Parse of a new text, or a simple query whose text the cache has not seen). With
 * {@code statement=new_order} one operation analyses all nine statements of a TPC-C New-Order.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class AnalyzeBenchmark {

    @Param({"pgbench_select", "new_order", "join_group_order_limit"})
    public String statement;

    private String[] sql;

    @Setup
    public void setUp() {
        List<Workload.Statement> statements = Workload.statements(statement);
        sql = new String[statements.size()];
        for (int i = 0; i < sql.length; i++) {
            sql[i] = statements.get(i).sql();
        }
    }

    @Benchmark
    public void analyze(Blackhole blackhole) {
        for (String each : sql) {
            AnalyzedStatement result = StatementAnalyzer.analyze(each);
            blackhole.consume(result);
        }
    }
}
