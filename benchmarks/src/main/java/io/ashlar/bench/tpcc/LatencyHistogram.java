package io.ashlar.bench.tpcc;

/**
 * Latencies in microseconds, counted into preallocated buckets: exact below 64 µs, then 64
 * buckets per power of two (at most 1.6% above the true value), up to about 12 days. Recording is
 * a few arithmetic operations and one array increment, with no allocation; one histogram belongs
 * to one thread, and histograms are added together after the run.
 */
final class LatencyHistogram {

    private static final int SUB_BITS = 6;
    private static final int SUB_COUNT = 1 << SUB_BITS;
    private static final int MAX_EXPONENT = 40;
    private static final int BUCKETS = SUB_COUNT + (MAX_EXPONENT - SUB_BITS + 1) * SUB_COUNT;

    private final long[] counts = new long[BUCKETS];
    private long total;

    /** Counts one latency of {@code micros} microseconds (negative counts as 0). */
    void record(long micros) {
        counts[index(Math.max(0, micros))]++;
        total++;
    }

    /** Adds every count of {@code other} to this one. */
    void add(LatencyHistogram other) {
        for (int i = 0; i < BUCKETS; i++) {
            counts[i] += other.counts[i];
        }
        total += other.total;
    }

    long count() {
        return total;
    }

    /**
     * The latency, in microseconds, that {@code fraction} (0 .. 1) of the recorded ones do not exceed:
     * the highest value of the bucket where the cumulative count reaches {@code ceil(fraction * count)};
     * 0 when nothing was recorded.
     */
    long percentile(double fraction) {
        if (total == 0) {
            return 0;
        }
        long rank = Math.max(1, (long) Math.ceil(fraction * total));
        long seen = 0;
        for (int i = 0; i < BUCKETS; i++) {
            seen += counts[i];
            if (seen >= rank) {
                return highestValue(i);
            }
        }
        return highestValue(BUCKETS - 1);
    }

    static int index(long micros) {
        if (micros < SUB_COUNT) {
            return (int) micros;
        }
        int exponent = Math.min(MAX_EXPONENT, 63 - Long.numberOfLeadingZeros(micros));
        if (exponent == MAX_EXPONENT && micros >= (1L << (MAX_EXPONENT + 1))) {
            return BUCKETS - 1;
        }
        int shift = exponent - SUB_BITS;
        int sub = (int) (micros >>> shift) - SUB_COUNT;
        return SUB_COUNT + shift * SUB_COUNT + sub;
    }

    static long highestValue(int index) {
        if (index < SUB_COUNT) {
            return index;
        }
        int shift = (index - SUB_COUNT) / SUB_COUNT;
        long sub = (index - SUB_COUNT) % SUB_COUNT;
        return ((SUB_COUNT + sub + 1) << shift) - 1;
    }
}
