package io.ashlar.bench.tpcc;

import java.io.PrintStream;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * A timed run: {@code terminals} terminals, each on its own platform thread and connection, run
 * the mix for {@code warmup} seconds (not counted) and then {@code duration} seconds (counted); the
 * figures of all terminals are added up once every thread has ended.
 *
 * <p>Terminal i's home warehouse is {@code i % W + 1} and its district {@code (i / W) % 10 + 1}
 * (every (warehouse, district) pair once, which is why there may be at most 10 terminals per
 * warehouse, as in BenchmarkSQL); with {@code fixedHome == false} every transaction draws both.
 */
final class TpccRun {

    /**
     * @param terminals             terminals (threads and connections)
     * @param durationSeconds       measured time
     * @param warmupSeconds         time run before the measured time, not counted
     * @param fixedHome             home warehouse fixed per terminal (BenchmarkSQL's terminalWarehouseFixed)
     * @param reportIntervalSeconds seconds between progress lines, 0 for none
     */
    record Settings(int terminals, int durationSeconds, int warmupSeconds, boolean fixedHome, int reportIntervalSeconds) {
    }

    /**
     * What a run measured.
     *
     * @param scale     the database's cardinalities
     * @param settings  how it ran
     * @param totals    every terminal's figures added up
     * @param constants the NURand constants the terminals used
     */
    record Result(TpccScale scale, Settings settings, TerminalStats totals, NuRandConstants constants) {

        long completed(TransactionType type) {
            return totals.completed[type.ordinal()];
        }

        long completedAll() {
            long result = 0;
            for (long each : totals.completed) {
                result += each;
            }
            return result;
        }

        long errorsAll() {
            long result = 0;
            for (long each : totals.errors) {
                result += each;
            }
            return result;
        }

        long retriesAll() {
            long result = 0;
            for (long each : totals.retries) {
                result += each;
            }
            return result;
        }

        /** New-Orders completed per minute, the 1% rolled back included (as BenchmarkSQL counts them). */
        double tpmC() {
            return completed(TransactionType.NEW_ORDER) * 60.0 / settings.durationSeconds();
        }

        /** All transactions completed per minute. */
        double tpmTotal() {
            return completedAll() * 60.0 / settings.durationSeconds();
        }

        /** Every type's latencies in one histogram. */
        LatencyHistogram allLatencies() {
            LatencyHistogram result = new LatencyHistogram();
            for (LatencyHistogram each : totals.latencies) {
                result.add(each);
            }
            return result;
        }
    }

    private TpccRun() {
    }

    static Result run(TpccConnector connector, Settings settings, PrintStream out) throws Exception {
        LoadedDatabase loaded;
        try (Connection connection = connector.open()) {
            loaded = LoadedDatabase.read(connection);
        }
        TpccScale scale = TpccScale.of(loaded.warehouses(), loaded.scaleDown());
        if (settings.fixedHome() && settings.terminals() > TpccScale.DISTRICTS * scale.warehouses()) {
            throw new IllegalArgumentException("at most " + TpccScale.DISTRICTS * scale.warehouses()
                    + " terminals for " + scale.warehouses() + " warehouse(s) with --home fixed");
        }
        SplittableRandom seeds = new SplittableRandom();
        NuRandConstants constants = NuRandConstants.forRun(seeds, loaded.loadLastName());
        out.println("Run: " + scale.warehouses() + " warehouse(s)" + (scale.scaleDown() == 1 ? "" : " (scaled down "
                + scale.scaleDown() + "x)") + ", " + settings.terminals() + " terminal(s), home warehouse "
                + (settings.fixedHome() ? "fixed" : "random") + ", " + settings.warmupSeconds() + " s warm-up + "
                + settings.durationSeconds() + " s measured; C_LAST " + loaded.loadLastName() + " at load, "
                + constants.lastName() + " now");

        List<TerminalStatements> connections = new ArrayList<>();
        try {
            for (int i = 0; i < settings.terminals(); i++) {
                connections.add(new TerminalStatements(connector.open()));
            }
            ErrorLog errors = new ErrorLog(System.err, 20);
            long start = System.nanoTime();
            long measureFrom = start + TimeUnit.SECONDS.toNanos(settings.warmupSeconds());
            long measureUntil = measureFrom + TimeUnit.SECONDS.toNanos(settings.durationSeconds());
            List<TerminalStats> stats = new ArrayList<>();
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < settings.terminals(); i++) {
                TerminalStats each = new TerminalStats();
                stats.add(each);
                int warehouse = i % scale.warehouses() + 1;
                int district = (i / scale.warehouses()) % TpccScale.DISTRICTS + 1;
                TpccTerminal terminal = new TpccTerminal(i + 1, warehouse, district, settings.fixedHome(), scale,
                        connections.get(i), new TpccRandom(seeds.split(), constants, scale), each, errors,
                        measureFrom, measureUntil);
                threads.add(Thread.ofPlatform().name("tpcc-terminal-" + (i + 1)).start(terminal));
            }
            report(out, settings, stats, threads, start, measureFrom);
            for (Thread thread : threads) {
                thread.join();
            }
            TerminalStats totals = new TerminalStats();
            for (TerminalStats each : stats) {
                totals.add(each);
            }
            return new Result(scale, settings, totals, constants);
        } finally {
            for (TerminalStatements each : connections) {
                try {
                    each.close();
                } catch (java.sql.SQLException ignored) {
                    // closing anyway
                }
            }
        }
    }

    /** Prints a progress line every interval until every terminal has ended. */
    private static void report(PrintStream out, Settings settings, List<TerminalStats> stats, List<Thread> threads,
                               long start, long measureFrom) throws InterruptedException {
        long interval = TimeUnit.SECONDS.toNanos(Math.max(1, settings.reportIntervalSeconds()));
        long next = start + interval;
        long lastNewOrders = 0;
        long lastTotal = 0;
        long lastAt = start;
        while (true) {
            boolean alive = false;
            for (Thread thread : threads) {
                if (thread.isAlive()) {
                    alive = true;
                    break;
                }
            }
            if (!alive) {
                return;
            }
            long wait = next - System.nanoTime();
            if (wait > 0) {
                Thread.sleep(Math.min(TimeUnit.NANOSECONDS.toMillis(wait) + 1, 200));
                continue;
            }
            long newOrders = 0;
            long total = 0;
            for (TerminalStats each : stats) {
                newOrders += each.progressNewOrders;
                total += each.progressTotal;
            }
            long now = System.nanoTime();
            double minutes = (now - lastAt) / 60e9;
            if (settings.reportIntervalSeconds() > 0) {
                out.println(String.format(Locale.ROOT, "[%4d s%s] tpmC %.0f  tpmTotal %.0f",
                        TimeUnit.NANOSECONDS.toSeconds(now - start), now < measureFrom ? " warm-up" : "",
                        (newOrders - lastNewOrders) / minutes, (total - lastTotal) / minutes));
            }
            lastNewOrders = newOrders;
            lastTotal = total;
            lastAt = now;
            next += interval;
        }
    }

    /** The result table, then one machine-readable line starting with {@code RESULT } (docs/tpcc.md). */
    static void print(Result result, PrintStream out) {
        TerminalStats t = result.totals();
        out.println();
        out.println(String.format(Locale.ROOT, "%-13s %9s %9s %7s %7s %9s %9s %9s",
                "transaction", "count", "rollbacks", "errors", "retries", "p50 ms", "p95 ms", "p99 ms"));
        for (TransactionType type : TransactionType.values()) {
            int i = type.ordinal();
            LatencyHistogram h = t.latencies[i];
            out.println(String.format(Locale.ROOT, "%-13s %9d %9d %7d %7d %9.2f %9.2f %9.2f", type.displayName(),
                    t.completed[i], t.rollbacks[i], t.errors[i], t.retries[i],
                    millis(h.percentile(0.50)), millis(h.percentile(0.95)), millis(h.percentile(0.99))));
        }
        LatencyHistogram all = result.allLatencies();
        out.println(String.format(Locale.ROOT, "%-13s %9d %9d %7d %7d %9.2f %9.2f %9.2f", "all",
                result.completedAll(), t.rollbacks[TransactionType.NEW_ORDER.ordinal()], result.errorsAll(),
                result.retriesAll(), millis(all.percentile(0.50)), millis(all.percentile(0.95)), millis(all.percentile(0.99))));
        out.println("(errors and retries include the warm-up; counts and latencies cover the measured "
                + result.settings().durationSeconds() + " s only)");
        out.println();
        out.println(String.format(Locale.ROOT, "tpmC %.1f   tpmTotal %.1f", result.tpmC(), result.tpmTotal()));
        LatencyHistogram newOrder = t.latencies[TransactionType.NEW_ORDER.ordinal()];
        StringBuilder line = new StringBuilder(400).append("RESULT")
                .append(String.format(Locale.ROOT, " tpmC=%.1f tpmTotal=%.1f", result.tpmC(), result.tpmTotal()))
                .append(String.format(Locale.ROOT, " newOrderP50=%.3f newOrderP95=%.3f newOrderP99=%.3f",
                        millis(newOrder.percentile(0.50)), millis(newOrder.percentile(0.95)), millis(newOrder.percentile(0.99))))
                .append(String.format(Locale.ROOT, " p50=%.3f p95=%.3f p99=%.3f",
                        millis(all.percentile(0.50)), millis(all.percentile(0.95)), millis(all.percentile(0.99))));
        for (TransactionType type : TransactionType.values()) {
            line.append(' ').append(type.key()).append('=').append(t.completed[type.ordinal()]);
        }
        line.append(" rollbacks=").append(t.rollbacks[TransactionType.NEW_ORDER.ordinal()])
                .append(" errors=").append(result.errorsAll())
                .append(" retries=").append(result.retriesAll())
                .append(" warehouses=").append(result.scale().warehouses())
                .append(" terminals=").append(result.settings().terminals())
                .append(" seconds=").append(result.settings().durationSeconds());
        out.println(line);
    }

    private static double millis(long micros) {
        return micros / 1000.0;
    }
}
