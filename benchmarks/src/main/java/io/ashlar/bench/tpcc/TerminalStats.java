package io.ashlar.bench.tpcc;

/**
 * What one terminal measured, per transaction type: completed transactions (with their latency),
 * New-Order's expected rollbacks (the 1% with an unused item, clause 2.4.1.4), errors, and retries
 * after a serialization failure or deadlock. Written by its terminal's thread only; read by others
 * after that thread ended, except the two progress counters, which are volatile.
 */
final class TerminalStats {

    private static final int TYPES = TransactionType.values().length;

    final long[] completed = new long[TYPES];
    final long[] rollbacks = new long[TYPES];
    final long[] errors = new long[TYPES];
    final long[] retries = new long[TYPES];
    final LatencyHistogram[] latencies = new LatencyHistogram[TYPES];

    /** Progress for the periodic report: New-Orders and all transactions completed, warm-up included. */
    volatile long progressNewOrders;
    volatile long progressTotal;

    TerminalStats() {
        for (int i = 0; i < TYPES; i++) {
            latencies[i] = new LatencyHistogram();
        }
    }

    /** Adds every figure of {@code other} to this one. */
    void add(TerminalStats other) {
        for (int i = 0; i < TYPES; i++) {
            completed[i] += other.completed[i];
            rollbacks[i] += other.rollbacks[i];
            errors[i] += other.errors[i];
            retries[i] += other.retries[i];
            latencies[i].add(other.latencies[i]);
        }
    }
}
