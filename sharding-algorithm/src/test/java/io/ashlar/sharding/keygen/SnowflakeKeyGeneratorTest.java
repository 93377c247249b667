package io.ashlar.sharding.keygen;

import io.ashlar.sharding.ShardingAlgorithmException;
import org.junit.jupiter.api.Test;

import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SnowflakeKeyGeneratorTest {

    @Test
    void epochIsShardingSpheresInTheDefaultZone() {
        assertEquals(LocalDateTime.of(2016, 11, 1, 0, 0).atZone(ZoneId.systemDefault()).toInstant().toEpochMilli(), SnowflakeKeyGenerator.EPOCH);
    }

    @Test
    void bitLayoutAndVibration() {
        AtomicLong now = new AtomicLong(SnowflakeKeyGenerator.EPOCH + 1000);
        SnowflakeKeyGenerator generator = new SnowflakeKeyGenerator(5, 1, 10, now::get);
        // 1000 ms since the epoch, worker 5, sequence 0 (the first millisecond starts at offset 0)
        assertEquals(1000L << 22 | 5L << 12, generator.nextKey());
        assertEquals(1000L << 22 | 5L << 12 | 1, generator.nextKey());
        now.set(SnowflakeKeyGenerator.EPOCH + 1001);
        // a new millisecond starts at the next vibration offset: 1
        assertEquals(1001L << 22 | 5L << 12 | 1, generator.nextKey());
        now.set(SnowflakeKeyGenerator.EPOCH + 1002);
        assertEquals(1002L << 22 | 5L << 12, generator.nextKey());
        long key = generator.nextKey();
        assertEquals(5, SnowflakeKeyGenerator.workerIdOf(key));
        assertEquals(SnowflakeKeyGenerator.EPOCH + 1002, SnowflakeKeyGenerator.timestampOf(key));
        assertEquals(1, SnowflakeKeyGenerator.sequenceOf(key));
    }

    @Test
    void aFullMillisecondWaitsForTheNextOne() {
        AtomicInteger reads = new AtomicInteger();
        long start = SnowflakeKeyGenerator.EPOCH + 5000;
        // the first 4097 clock reads return the same millisecond
        SnowflakeKeyGenerator generator = new SnowflakeKeyGenerator(0, 0, 10, () -> start + (reads.getAndIncrement() < 4097 ? 0 : 1));
        long previous = -1;
        for (int i = 0; i < 4096; i++) {
            long key = generator.nextKey();
            assertEquals(i, SnowflakeKeyGenerator.sequenceOf(key));
            assertTrue(key > previous);
            previous = key;
        }
        long next = generator.nextKey();
        assertEquals(start + 1, SnowflakeKeyGenerator.timestampOf(next));
        assertEquals(0, SnowflakeKeyGenerator.sequenceOf(next));
        assertTrue(next > previous);
    }

    @Test
    void clockMovingBackWithinToleranceWaits() {
        long start = SnowflakeKeyGenerator.EPOCH + 5000;
        long[] clock = {start, start - 2, start + 1};
        AtomicInteger reads = new AtomicInteger();
        SnowflakeKeyGenerator generator = new SnowflakeKeyGenerator(0, 1, 10, () -> clock[Math.min(reads.getAndIncrement(), clock.length - 1)]);
        long first = generator.nextKey();
        long second = generator.nextKey();
        assertEquals(start + 1, SnowflakeKeyGenerator.timestampOf(second));
        assertTrue(second > first);
    }

    @Test
    void clockMovingBackBeyondToleranceFails() {
        AtomicLong now = new AtomicLong(SnowflakeKeyGenerator.EPOCH + 5000);
        SnowflakeKeyGenerator generator = new SnowflakeKeyGenerator(0, 1, 10, now::get);
        generator.nextKey();
        now.addAndGet(-10);
        ShardingAlgorithmException e = assertThrows(ShardingAlgorithmException.class, generator::nextKey);
        assertEquals("SNOWFLAKE key generator: the clock moved back 10 ms, more than max-tolerate-time-difference-milliseconds (10)", e.getMessage());
    }

    @Test
    void uniqueAndIncreasingAcrossFourThreads() throws Exception {
        KeyGenerator generator = KeyGenerators.create("SNOWFLAKE", Map.of("worker-id", "7"));
        int threads = 4;
        int perThread = 100_000;
        long before = System.currentTimeMillis();
        ExecutorService executor = Executors.newFixedThreadPool(threads);
        try {
            Callable<long[]> task = () -> {
                long[] keys = new long[perThread];
                for (int i = 0; i < perThread; i++) {
                    keys[i] = (Long) generator.generateKey();
                }
                return keys;
            };
            List<Future<long[]>> results = executor.invokeAll(List.of(task, task, task, task));
            long after = System.currentTimeMillis();
            Set<Long> all = new HashSet<>(threads * perThread * 2);
            for (Future<long[]> each : results) {
                long[] keys = each.get();
                for (int i = 0; i < keys.length; i++) {
                    assertTrue(i == 0 || keys[i] > keys[i - 1], "keys of one thread increase");
                    assertEquals(7, SnowflakeKeyGenerator.workerIdOf(keys[i]));
                    long timestamp = SnowflakeKeyGenerator.timestampOf(keys[i]);
                    assertTrue(timestamp >= before && timestamp <= after + 1, "timestamp within the test");
                    assertTrue(all.add(keys[i]), "unique");
                }
            }
            assertEquals(threads * perThread, all.size());
        } finally {
            executor.shutdownNow();
        }
    }

    @Test
    void factoryAndPropertyErrors() {
        assertInstanceOf(Long.class, KeyGenerators.create("snowflake", Map.of()).generateKey());
        assertEquals("SNOWFLAKE key generator: property 'worker-id' is '1024'; expected an integer within 0..1023",
                assertThrows(ShardingAlgorithmException.class, () -> KeyGenerators.create("SNOWFLAKE", Map.of("worker-id", "1024"))).getMessage());
        assertEquals("SNOWFLAKE key generator: property 'max-vibration-offset' is '4096'; expected an integer within 0..4095",
                assertThrows(ShardingAlgorithmException.class, () -> KeyGenerators.create("SNOWFLAKE", Map.of("max-vibration-offset", "4096"))).getMessage());
        assertEquals("SNOWFLAKE key generator: property 'max-tolerate-time-difference-milliseconds' is '-1'; expected an integer >= 0",
                assertThrows(ShardingAlgorithmException.class, () -> KeyGenerators.create("SNOWFLAKE", Map.of("max-tolerate-time-difference-milliseconds", "-1"))).getMessage());
        assertEquals("unknown key generator type 'NANOID'; supported types are SNOWFLAKE, UUID",
                assertThrows(ShardingAlgorithmException.class, () -> KeyGenerators.create("NANOID", Map.of())).getMessage());
    }
}
