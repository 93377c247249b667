package io.ashlar.sharding.keygen;

import io.ashlar.sharding.ShardingAlgorithmException;

import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * {@code SNOWFLAKE}: 64-bit keys laid out as ShardingSphere lays them out, so keys keep
 * increasing across a migration from ShardingSphere-Proxy:
 * <pre>
 *   0 | 41 bits: milliseconds since {@link #EPOCH} | 10 bits: worker id | 12 bits: sequence
 * </pre>
 * The sequence counts keys within one millisecond; the first key of a new millisecond starts at
 * a small offset that alternates between 0 and {@code max-vibration-offset} so that keys of a
 * quiet system are not all even. When 4096 keys have been taken in one millisecond the next
 * caller waits for the clock to move on. If the clock moves backwards by less than
 * {@code max-tolerate-time-difference-milliseconds} callers wait; by more, they fail.
 *
 * <p>Lock-free: the last millisecond and sequence are one {@code AtomicLong}, advanced by
 * compare-and-set; keys from one generator are unique and strictly increasing in the order the
 * CAS succeeds.
 *
 * <p>Properties: {@code worker-id} (0..1023, default 0; ShardingSphere 5.1+ takes it from the
 * cluster mode instead, which Ashlar's bootstrap can pass here),
 * {@code max-vibration-offset} (0..4095, default 1),
 * {@code max-tolerate-time-difference-milliseconds} (default 10).
 */
public final class SnowflakeKeyGenerator implements KeyGenerator {

    /**
     * 2016-11-01T00:00 in the JVM's default time zone, in epoch milliseconds: ShardingSphere builds
     * its epoch with {@code Calendar.getInstance()}, so it depends on the zone the same way.
     */
    public static final long EPOCH = LocalDateTime.of(2016, 11, 1, 0, 0).atZone(ZoneId.systemDefault()).toInstant().toEpochMilli();

    static final int SEQUENCE_BITS = 12;

    static final int WORKER_ID_BITS = 10;

    static final long SEQUENCE_MASK = (1L << SEQUENCE_BITS) - 1;

    static final int MAX_WORKER_ID = (1 << WORKER_ID_BITS) - 1;

    private static final String TYPE = "SNOWFLAKE";

    private final long workerIdField;

    private final int maxVibrationOffset;

    private final int maxTolerateMillis;

    private final LongSupplier clock;

    /** {@code (millis since EPOCH) << SEQUENCE_BITS | sequence} of the last key handed out. */
    private final AtomicLong last = new AtomicLong();

    /** The sequence the last new millisecond started at; a benign race may skip a step. */
    private final AtomicInteger vibration = new AtomicInteger(-1);

    /**
     * @param workerId 0..1023
     * @param maxVibrationOffset 0..4095
     * @param maxTolerateMillis how far the clock may move back before keys fail
     * @param clock the wall clock in epoch milliseconds ({@code System::currentTimeMillis})
     */
    public SnowflakeKeyGenerator(int workerId, int maxVibrationOffset, int maxTolerateMillis, LongSupplier clock) {
        if (workerId < 0 || workerId > MAX_WORKER_ID) {
            throw new IllegalArgumentException("worker id must be within 0.." + MAX_WORKER_ID + ": " + workerId);
        }
        if (maxVibrationOffset < 0 || maxVibrationOffset > SEQUENCE_MASK) {
            throw new IllegalArgumentException("max vibration offset must be within 0.." + SEQUENCE_MASK + ": " + maxVibrationOffset);
        }
        this.workerIdField = (long) workerId << SEQUENCE_BITS;
        this.maxVibrationOffset = maxVibrationOffset;
        this.maxTolerateMillis = maxTolerateMillis;
        this.clock = clock;
    }

    @Override
    public String type() {
        return TYPE;
    }

    @Override
    public Long generateKey() {
        return nextKey();
    }

    /** A new key, unboxed. */
    public long nextKey() {
        while (true) {
            long previous = last.get();
            long previousMillis = previous >>> SEQUENCE_BITS;
            long now = clock.getAsLong() - EPOCH;
            if (now > previousMillis) {
                int offset = nextVibration();
                if (last.compareAndSet(previous, now << SEQUENCE_BITS | offset)) {
                    vibration.set(offset);
                    return toKey(now, offset);
                }
            } else if (now == previousMillis) {
                if ((previous & SEQUENCE_MASK) == SEQUENCE_MASK) {
                    Thread.onSpinWait();
                } else if (last.compareAndSet(previous, previous + 1)) {
                    return toKey(now, (previous & SEQUENCE_MASK) + 1);
                }
            } else {
                waitForClock(previousMillis - now);
            }
        }
    }

    private int nextVibration() {
        int current = vibration.get();
        return current >= maxVibrationOffset ? 0 : current + 1;
    }

    private long toKey(long millis, long sequence) {
        return millis << (SEQUENCE_BITS + WORKER_ID_BITS) | workerIdField | sequence;
    }

    private void waitForClock(long behindMillis) {
        if (behindMillis >= maxTolerateMillis) {
            throw new ShardingAlgorithmException("SNOWFLAKE key generator: the clock moved back " + behindMillis
                    + " ms, more than max-tolerate-time-difference-milliseconds (" + maxTolerateMillis + ")");
        }
        try {
            Thread.sleep(behindMillis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ShardingAlgorithmException("SNOWFLAKE key generator: interrupted while waiting for the clock to catch up", e);
        }
    }

    /** The worker id field of a key. */
    public static int workerIdOf(long key) {
        return (int) (key >>> SEQUENCE_BITS & MAX_WORKER_ID);
    }

    /** The wall-clock millisecond a key was generated in (epoch milliseconds). */
    public static long timestampOf(long key) {
        return (key >>> (SEQUENCE_BITS + WORKER_ID_BITS)) + EPOCH;
    }

    /** The sequence field of a key. */
    public static int sequenceOf(long key) {
        return (int) (key & SEQUENCE_MASK);
    }
}
