/**
 * JMH microbenchmarks of the statement path's kernel, each meant to be read with {@code -prof gc}
 * (ns/op and B/op): the PostgreSQL codec ({@link io.ashlar.bench.jmh.CodecBenchmark}), analysis
 * ({@link io.ashlar.bench.jmh.AnalyzeBenchmark}), routing ({@link io.ashlar.bench.jmh.RouteBenchmark}),
 * rewriting ({@link io.ashlar.bench.jmh.RewriteBenchmark}), merging
 * ({@link io.ashlar.bench.jmh.MergeBenchmark}), a prepared statement's Bind on a sharded database
 * ({@link io.ashlar.bench.jmh.PreparedBindBenchmark}) and a simple query's planning
 * ({@link io.ashlar.bench.jmh.SimpleQueryBenchmark}). Rules and statements come from
 * {@link io.ashlar.bench.jmh.Workload}: pgbench, BenchmarkSQL's New-Order, and a join with GROUP BY,
 * ORDER BY and LIMIT.
 *
 * <pre>
 * ./mvnw -B -pl benchmarks -am package -DskipTests      # or -pl benchmarks when the other modules are installed
 * java -jar benchmarks/target/benchmarks.jar -f 1 -wi 3 -w 2s -i 5 -r 2s -prof gc
 * java -jar benchmarks/target/benchmarks.jar PreparedBind -p statement=pgbench_select -prof gc   # one benchmark
 * </pre>
 *
 * <p>Benchmarks with a {@code statement} parameter take any name of {@link io.ashlar.bench.jmh.Workload}
 * ({@code -p statement=no_stock,no_item}), and {@code new_order} for all nine New-Order statements
 * in one operation.
 */
package io.ashlar.bench.jmh;
