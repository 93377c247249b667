package io.ashlar.merge;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.util.ArrayList;
import java.util.List;

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

    /** The most the heap may grow to (-Xmx). */
    private static final long MAX_HEAP = Runtime.getRuntime().maxMemory();
    /**
     * The share of {@link #MAX_HEAP}, in percent, that the heap in use now and after the last collection may both reach
     * before a statement holding {@link #HOG_FLOOR} or more fails ({@link #heapNearlyFull}); 0 or 100 and above turn the
     * gate off. Set with {@code -Dashlar.heapFullPercent} (bin/ashlar: ASHLAR_HEAP_FULL_PERCENT); read once.
     */
    static final int HEAP_FULL_PERCENT = Integer.getInteger("ashlar.heapFullPercent", 80);
    private static final long HEAP_FULL = HEAP_FULL_PERCENT <= 0 || HEAP_FULL_PERCENT >= 100 ? Long.MAX_VALUE
            : MAX_HEAP / 100 * HEAP_FULL_PERCENT;
    /** A statement holding less than this (a sixteenth of the heap, 1 MiB at least) never fails for a full heap. */
    static final long HOG_FLOOR = Math.max(VICTIM_FLOOR, MAX_HEAP / 16);
    /** The heap's pools that say what they held after their last collection (ZGC's young and old generations). */
    private static final MemoryPoolMXBean[] HEAP_POOLS = heapPools();
    private static final MemoryMXBean MEMORY = ManagementFactory.getMemoryMXBean();

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

    /**
     * {@link #heapRanOut} when {@code cause} is an OutOfMemoryError, or wraps one (a decoder's).
     *
     * @return whether it was (the caller then allocates as little as it can)
     */
    public static boolean heapRanOutIf(Throwable cause) {
        if (cause instanceof OutOfMemoryError || cause.getCause() instanceof OutOfMemoryError) {
            heapRanOut();
            return true;
        }
        return false;
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
        if (after >= HOG_FLOOR && (after >>> 20) != (used >>> 20)) {
            long live = heapNearlyFull();
            if (live != 0) {
                throw new MemoryLimitExceededException(limit, setting, after, live, MAX_HEAP);
            }
        }
        used = after;
    }

    /**
     * What the heap held after its last collection when that and what it holds now are both past
     * {@code ashlar.heapFullPercent} of -Xmx, else 0. Looked at once per MiB a statement holding {@link #HOG_FLOOR} or
     * more charges: the statement filling the heap fails with 53200 before the JVM runs out, so that no
     * OutOfMemoryError lands on another session's connection (where an error lands is chance: an event loop's read for
     * a session that holds nothing). Both figures are asked for: the heap in use now counts garbage not yet collected,
     * and the heap after the last collection may be old; past the mark together, the heap is full of what is held.
     */
    private static long heapNearlyFull() {
        if (HEAP_FULL == Long.MAX_VALUE || MEMORY.getHeapMemoryUsage().getUsed() < HEAP_FULL) {
            return 0;
        }
        long live = 0;
        for (MemoryPoolMXBean each : HEAP_POOLS) {
            live += each.getCollectionUsage().getUsed(); // (only pools that report it: heapPools)
        }
        return live >= HEAP_FULL ? live : 0;
    }

    private static MemoryPoolMXBean[] heapPools() {
        List<MemoryPoolMXBean> result = new ArrayList<>();
        for (MemoryPoolMXBean each : ManagementFactory.getMemoryPoolMXBeans()) {
            if (each.getType() == MemoryType.HEAP && each.getCollectionUsage() != null) {
                result.add(each);
            }
        }
        return result.toArray(new MemoryPoolMXBean[0]);
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

        /** The heap was nearly full ({@link #heapNearlyFull}) while the statement held {@code holding} bytes of rows. */
        MemoryLimitExceededException(long limit, String setting, long holding, long live, long maxHeap) {
            super("the proxy's heap is nearly full (" + (live >> 20) + " MiB of " + (maxHeap >> 20)
                    + " MiB in use after the last collection) while this statement holds about " + (holding >> 20)
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
