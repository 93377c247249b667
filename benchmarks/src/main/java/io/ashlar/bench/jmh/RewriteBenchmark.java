package io.ashlar.bench.jmh;

import io.ashlar.parser.StatementAnalyzer;
import io.ashlar.rewrite.StatementRewriter;
import io.ashlar.route.RouteEngine;
import io.ashlar.route.RouteParameters;
import io.ashlar.route.RouteResult;
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
 * {@link StatementRewriter#rewrite} of an already routed statement, after the first execution
 * compiled its templates and cached each unit's SQL: what every later execution pays.
 * <ul>
 * <li>{@code pgbench_select}: one unit, no table renamed (the statement's own text).</li>
 * <li>{@code order_by_keys}: one unit whose table is renamed ({@code t_order} to {@code t_order_1}).</li>
 * <li>{@code user_orders}: two units on one data source, with an ORDER BY/LIMIT merge.</li>
 * <li>{@code join_group_order_limit}: four units of a join, with a GROUP BY/ORDER BY/LIMIT merge.</li>
 * <li>{@code new_order}: the nine New-Order statements, one unit each.</li>
 * </ul>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class RewriteBenchmark {

    @Param({"pgbench_select", "order_by_keys", "user_orders", "join_group_order_limit", "new_order"})
    public String statement;

    private StatementRewriter[] rewriters;
    private RouteResult[] routes;
    private RouteParameters[] parameters;

    @Setup
    public void setUp() {
        RouteEngine router = new RouteEngine();
        List<Workload.Statement> chosen = Workload.statements(statement);
        rewriters = new StatementRewriter[chosen.size()];
        routes = new RouteResult[chosen.size()];
        parameters = new RouteParameters[chosen.size()];
        for (int i = 0; i < rewriters.length; i++) {
            rewriters[i] = StatementRewriter.of(StatementAnalyzer.analyze(chosen.get(i).sql()));
            parameters[i] = chosen.get(i).parameters();
            routes[i] = router.route(rewriters[i].statement(), parameters[i], Workload.rules());
            rewriters[i].rewrite(routes[i], parameters[i]);
        }
    }

    @Benchmark
    public void rewrite(Blackhole blackhole) {
        for (int i = 0; i < rewriters.length; i++) {
            blackhole.consume(rewriters[i].rewrite(routes[i], parameters[i]));
        }
    }
}
