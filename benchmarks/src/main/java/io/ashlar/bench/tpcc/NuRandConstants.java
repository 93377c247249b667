package io.ashlar.bench.tpcc;

import java.util.SplittableRandom;

/**
 * The constants C of TPC-C's non-uniform random function NURand(A, x, y) (clause 2.1.6), one per
 * use: C_LAST (A = 255), C_ID (A = 1023) and OL_I_ID (A = 8191). Every terminal of a run uses the
 * same three. The load's values are kept in {@code bmsql_config} (BenchmarkSQL's names
 * {@code nURandCLast}, {@code nURandCC_ID}, {@code nURandCI_ID}) because the run's C_LAST constant
 * must differ from the load's by a delta the specification allows (clause 2.1.6.1).
 *
 * @param lastName   C for C_LAST, 0 .. 255
 * @param customerId C for C_ID, 0 .. 1023
 * @param itemId     C for OL_I_ID, 0 .. 8191
 */
record NuRandConstants(int lastName, int customerId, int itemId) {

    /** Fresh constants for a load. */
    static NuRandConstants forLoad(SplittableRandom random) {
        return new NuRandConstants(random.nextInt(256), random.nextInt(1024), random.nextInt(8192));
    }

    /**
     * Constants for a run against a database loaded with C_LAST constant {@code loadLastName}: C_LAST
     * is drawn until |run - load| is in 65 .. 119 and not 96 or 112 (clause 2.1.6.1); the other two
     * are drawn freely.
     */
    static NuRandConstants forRun(SplittableRandom random, int loadLastName) {
        while (true) {
            int lastName = random.nextInt(256);
            int delta = Math.abs(lastName - loadLastName);
            if (delta >= 65 && delta <= 119 && delta != 96 && delta != 112) {
                return new NuRandConstants(lastName, random.nextInt(1024), random.nextInt(8192));
            }
        }
    }
}
