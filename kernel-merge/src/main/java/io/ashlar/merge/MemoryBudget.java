package io.ashlar.merge;

/**
 * The proxy memory one statement may hold for rows it cannot stream: the rows of an in-memory
 * sort, the groups of an in-memory GROUP BY, the distinct rows seen, a shard's rows kept while
 * another statement needed its connection. Each holder {@link #charge charges} what it keeps (an
 * estimate of the Java heap it takes); past the limit the charge fails with
 * {@link MemoryLimitExceededException}, which the proxy reports as SQLSTATE 53200
 * (out_of_memory), as PostgreSQL reports a statement past its own memory.
 *
 * <p>One statement's merge runs on one thread at a time (the session's, or the sort executor
 * while the session waits for it): no synchronisation.
 */
public final class MemoryBudget {

    /** A budget that never runs out (tests, tools). */
    public static MemoryBudget unbounded() {
        return new MemoryBudget(Long.MAX_VALUE, "");
    }

    /**
     * A statement holding at least this much is failed by its next charge after the heap ran out
     * ({@link #heapRanOut}); statements holding less go on.
     */
    static final long VICTIM_FLOOR = 1L << 20;
    /** How long after the heap ran out a statement's charge may still fail for it. */
    private static final long VICTIM_WINDOW_NANOS = 10_000_000_000L;

    /** When the heap last ran out (System.nanoTime), 0 when no statement is to fail for it. */
    private static volatile long heapRanOutAt;

    private final long limit;
    private final String setting;
    private long used;

    /**
     * The JVM met an OutOfMemoryError somewhere (an event loop's own work, a backend or a client
     * connection; not a session's thread, whose session ends and frees what it held): the next
     * statement to charge a budget while holding a megabyte or more fails with 53200, which frees
     * what it held. The statement that runs the heap out is the one charging rows all along, while
     * where the error lands is chance (another connection's read, an event loop's own work): without
     * this, the error ended a connection of a session that held nothing and the statement that held
     * the heap went on, and the heap stayed exhausted.
     */
    public static void heapRanOut() {
        long now = System.nanoTime();
        heapRanOutAt = now == 0 ? 1 : now;
    }

    /** {@link #heapRanOut} when {@code cause} is an OutOfMemoryError, or wraps one (a decoder's). */
    public static void heapRanOutIf(Throwable cause) {
        if (cause instanceof OutOfMemoryError || cause.getCause() instanceof OutOfMemoryError) {
            heapRanOut();
        }
    }

    /**
     * @param limit bytes the statement may hold
     * @param setting the setting that sets the limit, named in the error (how to raise it)
     */
    public MemoryBudget(long limit, String setting) {
        if (limit <= 0) {
            throw new IllegalArgumentException("a memory limit must be positive, got " + limit);
        }
        this.limit = limit;
        this.setting = setting;
    }

    /** Takes {@code bytes} more of the budget; throws, taking nothing, when they do not fit. */
    public void charge(long bytes) {
        long after = used + bytes;
        if (after > limit || after < 0) {
            throw new MemoryLimitExceededException(limit, setting);
        }
        if (heapRanOutAt != 0 && after >= VICTIM_FLOOR) {
            failForTheHeap(after);
        }
        used = after;
    }

    private void failForTheHeap(long holding) {
        long ranOut = heapRanOutAt;
        if (ranOut == 0) {
            return;
        }
        heapRanOutAt = 0; // one statement fails per time the heap ran out (a race may fail two: both held much)
        if (System.nanoTime() - ranOut < VICTIM_WINDOW_NANOS) {
            throw new MemoryLimitExceededException(limit, setting, holding);
        }
    }

    /** Gives back what was charged for rows no longer held. */
    public void release(long bytes) {
        used = Math.max(0, used - bytes);
    }

    public long used() {
        return used;
    }

    public long limit() {
        return limit;
    }

    /**
     * An estimate of the heap one row takes as the merges keep it: the row array, and each value's
     * array (16 bytes of header, the bytes rounded up to 8).
     */
    public static long rowBytes(byte[][] row) {
        long result = 16 + 8L * row.length;
        for (byte[] value : row) {
            if (value != null) {
                result += 16 + ((value.length + 7) & ~7L);
            }
        }
        return result;
    }

    /** A statement needed more memory than its budget. */
    public static final class MemoryLimitExceededException extends RuntimeException {

        private final long limit;
        private final String setting;
        private final boolean heap;

        MemoryLimitExceededException(long limit, String setting) {
            super("the statement needs more than " + describe(limit) + " of proxy memory to merge the shards' rows"
                    + (setting.isEmpty() ? "" : " (" + setting + ")"), null, false, false);
            this.limit = limit;
            this.setting = setting;
            this.heap = false;
        }

        /** The heap ran out while the statement held {@code holding} bytes of rows ({@link #heapRanOut}). */
        MemoryLimitExceededException(long limit, String setting, long holding) {
            super("the proxy's heap ran out while this statement held about " + (holding >> 20)
                    + " MiB of the shards' rows to merge", null, false, false);
            this.limit = limit;
            this.setting = setting;
            this.heap = true;
        }

        /** Whether the heap ran out (the statement held much of it) rather than the statement's own limit. */
        public boolean heap() {
            return heap;
        }

        public long limit() {
            return limit;
        }

        /** The setting that raises the limit ({@code proxy-statement-memory-limit}), or empty. */
        public String setting() {
            return setting;
        }
    }

    /** A byte count as people write it: 256 MiB, 1.5 GiB, 700 kiB. */
    public static String describe(long bytes) {
        String[] units = {"bytes", "kiB", "MiB", "GiB", "TiB"};
        double value = bytes;
        int unit = 0;
        while (value >= 1024 && unit < units.length - 1 && bytes % 1024 == 0) {
            value /= 1024;
            bytes /= 1024;
            unit++;
        }
        return (value == Math.rint(value) ? Long.toString((long) value) : String.format(java.util.Locale.ROOT, "%.1f", value))
                + " " + units[unit];
    }
}
