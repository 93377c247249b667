package io.ashlar.merge;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

/**
 * What one execution of a merge may use besides its shards' rows: its {@link MemoryBudget}, and
 * where CPU-heavy work runs. A session's thread is a virtual thread on its client's event loop;
 * sorting a million rows there would stall every other client of that loop. Work above
 * {@link #offloadRows} rows goes to {@link #cpu}, and the session's thread waits for it parked
 * (its loop serves others meanwhile).
 *
 * @param budget the statement's memory budget
 * @param cpu where large sorts run; null to run everything on the caller's thread
 * @param offloadRows rows from which a sort runs on {@code cpu}
 */
public record MergeContext(MemoryBudget budget, Executor cpu, int offloadRows) {

    /** No memory limit, everything on the caller's thread (tests, tools). */
    public static MergeContext unbounded() {
        return new MergeContext(MemoryBudget.unbounded(), null, Integer.MAX_VALUE);
    }

    /**
     * Runs {@code work} on the CPU executor when {@code rows} reach {@link #offloadRows}, the caller
     * parked until it is done; else on the caller's thread.
     */
    public <T> T compute(int rows, Supplier<T> work) {
        if (cpu == null || rows < offloadRows) {
            return work.get();
        }
        try {
            return CompletableFuture.supplyAsync(work, cpu).join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException runtime) {
                throw runtime;
            }
            if (e.getCause() instanceof Error error) {
                throw error;
            }
            throw e;
        }
    }
}
