package io.ashlar.bench.jmh;

import io.ashlar.parser.StatementAnalyzer;
import io.ashlar.parser.statement.AnalyzedStatement;
import io.ashlar.route.RouteEngine;
import io.ashlar.route.RouteParameters;
import io.ashlar.route.rule.ShardingRules;
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
 * {@link RouteEngine#route}: an analysed statement and its bound values (already Java values) over
 * rules compiled from {@link Workload#CONFIG_YAML}, as every execution of a statement on a sharded
 * logical database runs it. {@code statement=new_order} routes all nine New-Order statements per
 * operation.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class RouteBenchmark {

    @Param({"pgbench_select", "new_order", "join_group_order_limit"})
    public String statement;

    private final RouteEngine router = new RouteEngine();
    private ShardingRules rules;
    private AnalyzedStatement[] statements;
    private RouteParameters[] parameters;

    @Setup
    public void setUp() {
        rules = Workload.rules();
        List<Workload.Statement> chosen = Workload.statements(statement);
        statements = new AnalyzedStatement[chosen.size()];
        parameters = new RouteParameters[chosen.size()];
        for (int i = 0; i < statements.length; i++) {
            statements[i] = StatementAnalyzer.analyze(chosen.get(i).sql());
            parameters[i] = chosen.get(i).parameters();
            // Fail at set-up, not in the measurement, on a statement the rules refuse.
            router.route(statements[i], parameters[i], rules);
        }
    }

    @Benchmark
    public void route(Blackhole blackhole) {
        for (int i = 0; i < statements.length; i++) {
            blackhole.consume(router.route(statements[i], parameters[i], rules));
        }
    }
}
