package io.ashlar.backend.metrics;

/**
 * A latency histogram with fixed buckets (50 µs to 10 s), written by one thread (an event loop's) with plain stores
 * and read by the metrics endpoint without synchronisation: a scrape may miss the last few observations, never
 * allocate or lock the writer.
 */
public final class Histogram {

    /** The buckets' upper bounds, in nanoseconds (Prometheus's {@code le}, inclusive). */
    static final long[] BOUNDS_NANOS = {50_000L, 100_000L, 250_000L, 500_000L, 1_000_000L, 2_500_000L, 5_000_000L,
            10_000_000L, 25_000_000L, 50_000_000L, 100_000_000L, 250_000_000L, 500_000_000L, 1_000_000_000L,
            2_500_000_000L, 5_000_000_000L, 10_000_000_000L};

    /** Observations per bucket; the last one holds those above every bound. */
    final long[] counts = new long[BOUNDS_NANOS.length + 1];
    long sumNanos;

    public void record(long nanos) {
        int i = 0;
        while (i < BOUNDS_NANOS.length && nanos > BOUNDS_NANOS[i]) {
            i++;
        }
        counts[i]++;
        sumNanos += nanos;
    }

    /** Adds this histogram's counts (per bucket, not cumulative) and sum into {@code into}. */
    void addTo(Sum into) {
        for (int i = 0; i < counts.length; i++) {
            into.counts[i] += counts[i];
        }
        into.sumNanos += sumNanos;
    }

    /** Histograms of several loops added up, for one series. */
    public static final class Sum {
        final long[] counts = new long[BOUNDS_NANOS.length + 1];
        long sumNanos;

        public Sum add(Histogram histogram) {
            histogram.addTo(this);
            return this;
        }

        /** Prometheus text format lines of the histogram {@code name} with {@code labels} ({@code a="b",c="d"}). */
        public void write(StringBuilder out, String name, String labels) {
            long cumulative = 0;
            String prefix = labels.isEmpty() ? "" : labels + ",";
            for (int i = 0; i < BOUNDS_NANOS.length; i++) {
                cumulative += counts[i];
                out.append(name).append("_bucket{").append(prefix).append("le=\"").append(seconds(BOUNDS_NANOS[i]))
                        .append("\"} ").append(cumulative).append('\n');
            }
            cumulative += counts[BOUNDS_NANOS.length];
            out.append(name).append("_bucket{").append(prefix).append("le=\"+Inf\"} ").append(cumulative).append('\n');
            out.append(name).append("_sum{").append(labels).append("} ").append(seconds(sumNanos)).append('\n');
            out.append(name).append("_count{").append(labels).append("} ").append(cumulative).append('\n');
        }

        public long count() {
            long result = 0;
            for (long each : counts) {
                result += each;
            }
            return result;
        }
    }

    static String seconds(long nanos) {
        return java.math.BigDecimal.valueOf(nanos, 9).stripTrailingZeros().toPlainString();
    }
}
