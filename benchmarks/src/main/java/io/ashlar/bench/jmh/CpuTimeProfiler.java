package io.ashlar.bench.jmh;

import java.lang.management.ManagementFactory;
import java.util.Collection;
import java.util.List;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ScalarResult;

/**
 * The benchmark JVM's CPU time per operation ({@code cpu.time.norm}, ns/op), next to JMH's
 * wall-clock score. On a machine whose cores are shared with other work (CI, the 2-core boxes
 * this project runs on), wall-clock time per operation counts the time the benchmark thread
 * waited for a core; CPU time does not, so it still compares two builds measured at different
 * loads. It includes what the operation makes the JVM do besides (GC, JIT once warm is rare):
 * the "µs of CPU" that DESIGN.md budgets.
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar -prof gc -prof io.ashlar.bench.jmh.CpuTimeProfiler
 * </pre>
 */
public final class CpuTimeProfiler implements InternalProfiler {

    private final com.sun.management.OperatingSystemMXBean os =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    private long startCpu;

    @Override
    public String getDescription() {
        return "CPU time of the benchmark JVM per operation (cpu.time.norm, ns/op), robust to other processes sharing the cores";
    }

    @Override
    public void beforeIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams) {
        startCpu = os.getProcessCpuTime();
    }

    @Override
    public Collection<? extends Result> afterIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams,
                                                       IterationResult result) {
        long cpu = os.getProcessCpuTime() - startCpu;
        long ops = result.getMetadata() == null ? 0 : result.getMetadata().getAllOps();
        if (ops <= 0 || cpu < 0) {
            return List.of();
        }
        return List.of(new ScalarResult("cpu.time.norm", (double) cpu / ops, "ns/op", AggregationPolicy.AVG));
    }
}
