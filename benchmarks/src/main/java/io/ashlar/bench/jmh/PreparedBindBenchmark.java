package io.ashlar.bench.jmh;

import io.ashlar.backend.datasource.ParameterValues;
import io.ashlar.backend.session.LogicalDatabase;
import io.ashlar.backend.sharding.Plan;
import io.ashlar.backend.sharding.RouteValues;
import io.ashlar.backend.sharding.ShardedExecution;
import io.ashlar.route.RouteEngine;
import io.ashlar.route.RouteParameters;
import io.ashlar.route.RouteResult;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Parse once, Bind many (issue 4): what the proxy does per Bind of a prepared statement on a
 * sharded logical database, through proxy-backend's own public classes, with no backend behind
 * it (the data sources' pools are never asked for a connection).
 *
 * <p>Per Bind the frontend turns the message's values into {@link ParameterValues}
 * ({@code ParameterValues.of}, as {@code ExtendedProtocol.bind} does) and the session plans the
 * execution ({@code ShardedSession.routed}: {@link ShardedExecution#plan} with a
 * {@link RouteValues} over those values): route from the parameter values, converted only where
 * the router reads one, then the rewrite of the cached statement, a cache hit for the unit's SQL.
 * <ul>
 * <li>{@link #bind}: the statement's {@link Plan} held by the prepared statement, as a named
 * statement reused by pgjdbc or {@code pgbench -M prepared} has it.</li>
 * <li>{@link #parseBind}: the same, after a plan-cache hit for the text, as for an unnamed
 * statement sent again ({@code pgbench -M extended}, pgjdbc below prepareThreshold).</li>
 * <li>{@link #routeRewrite}: the kernel calls of {@link #bind} alone, in the same order
 * (ParameterValues, RouteValues, route, rewrite), without building the execution.</li>
 * </ul>
 * {@link SimpleQueryBenchmark} measures the simple-protocol path.
 *
 * <p>{@code format=text} binds every value as text with type 0, as pgbench does;
 * {@code format=binary} binds integers as binary int8 (type 20) and numerics as text of type
 * numeric, the rest as text.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class PreparedBindBenchmark {

    private static final int INT8 = 20;
    private static final int NUMERIC = 1700;

    @Param({"pgbench_select", "no_customer_warehouse", "join_group_order_limit"})
    public String statement;

    @Param({"text", "binary"})
    public String format;

    private final RouteEngine router = new RouteEngine();
    private LogicalDatabase database;
    private String sql;
    private Plan plan;
    private int[] types;
    private short[] formats;
    private byte[][] values;

    @Setup
    public void setUp() {
        database = Workload.database();
        Workload.Statement chosen = Workload.statements(statement).get(0);
        sql = chosen.sql();
        plan = database.plans().get(sql);
        Object[] bound = chosen.values();
        types = new int[bound.length];
        formats = new short[bound.length];
        values = new byte[bound.length][];
        boolean binary = format.equals("binary");
        for (int i = 0; i < bound.length; i++) {
            Object value = bound[i];
            if (binary && value instanceof Integer number) {
                types[i] = INT8;
                formats[i] = 1;
                values[i] = ByteBuffer.allocate(8).putLong(number).array();
            } else {
                types[i] = binary && value instanceof BigDecimal ? NUMERIC : 0;
                values[i] = value.toString().getBytes(StandardCharsets.UTF_8);
            }
        }
        ShardedExecution check = bindOnce(plan);
        if (check.isSession() || check.unitCount() == 0) {
            throw new IllegalStateException(statement + " did not route to a shard");
        }
    }

    @TearDown
    public void tearDown() {
        database.close();
    }

    private ShardedExecution bindOnce(Plan cached) {
        ParameterValues parameters = ParameterValues.of(types, formats, values);
        return ShardedExecution.plan(database, cached, parameters, new RouteValues(parameters));
    }

    @Benchmark
    public int[] bind() {
        return bindOnce(plan).dataSources();
    }

    @Benchmark
    public int[] parseBind() {
        return bindOnce(database.plans().get(sql)).dataSources();
    }

    @Benchmark
    public void routeRewrite(Blackhole blackhole) {
        ParameterValues parameters = ParameterValues.of(types, formats, values);
        RouteParameters routeParameters = new RouteValues(parameters);
        RouteResult route = router.route(plan.statement(), routeParameters, database.rules());
        blackhole.consume(plan.rewriter().rewrite(route, routeParameters));
    }
}
