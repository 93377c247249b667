package io.ashlar.backend.pg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ashlar.backend.config.DataSourceConfig;
import io.netty.channel.EventLoop;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The health check does not take the proxy's own stall for the server's silence: while its event loop stands still
 * (here: tasks that sleep; in life, a heap so full that every allocation waits), a data source that answers stays up.
 * Under io_uring a check's query leaves on the loop's next turn, so a loop stalled right after sending it used to
 * find the data source "down" at the deadline, with the query still unsent (ContainmentTest, in CI). And
 * {@link RunningDeadline}, the clock that counts only the time the loop ran.
 */
final class DataSourceHealthTest {

    private static final long CHECK_INTERVAL_MILLIS = 100;
    private static final long CHECK_TIMEOUT_MILLIS = 800;
    private static EmbeddedPostgres postgres;

    @BeforeAll
    static void start() throws Exception {
        postgres = EmbeddedPostgres.builder().start();
    }

    @AfterAll
    static void stop() throws Exception {
        if (postgres != null) {
            postgres.close();
        }
    }

    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"IO_URING", "EPOLL"})
    void aStalledLoopDoesNotMakeAnAnsweringDataSourceDown(Transport transport) throws Exception {
        assertTrue(transport != Transport.IO_URING || io.netty.channel.uring.IoUring.isAvailable(),
                () -> "io_uring is not available here: " + Transport.ioUringRefusal());
        MultiThreadIoEventLoopGroup group = new MultiThreadIoEventLoopGroup(1, transport.ioHandlerFactory());
        DataSourceConfig config = new DataSourceConfig("ds",
                "jdbc:postgresql://127.0.0.1:" + postgres.getPort() + "/postgres", "postgres", "", 10_000, 60_000,
                1_800_000, 2, 0, Map.of())
                .withHealthCheck(CHECK_INTERVAL_MILLIS, CHECK_TIMEOUT_MILLIS, 30);
        EventLoop loop = group.next();
        try (LinkPool pool = new LinkPool(config, loop, transport)) {
            pool.health().start();
            for (int i = 0; i < 200 && !pool.health().settled(); i++) {
                Thread.sleep(20);
            }
            assertTrue(pool.health().settled() && pool.health().state().up(), () -> pool.health().state().toString());
            // 4 s of a loop that turns about every 900 ms, longer than the check's timeout: a task scheduled to run
            // at once runs in the next turn, after the checks due, so each turn sends a check (under io_uring: queues
            // its query), then stands still before it reads, or sends, anything.
            CompletableFuture<Void> stalled = new CompletableFuture<>();
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(4);
            AtomicInteger turns = new AtomicInteger();
            Runnable stall = new Runnable() {
                @Override
                public void run() {
                    sleep(CHECK_TIMEOUT_MILLIS + 100);
                    turns.incrementAndGet();
                    if (System.nanoTime() < until) {
                        loop.schedule(this, 0, TimeUnit.NANOSECONDS);
                    } else {
                        stalled.complete(null);
                    }
                }
            };
            loop.schedule(stall, 0, TimeUnit.NANOSECONDS);
            stalled.get(20, TimeUnit.SECONDS);
            assertTrue(turns.get() >= 4, () -> "the loop stalled " + turns.get() + " times");
            Thread.sleep(2 * CHECK_TIMEOUT_MILLIS);
            DataSourceHealth.State state = pool.health().state();
            assertTrue(state.up(), state::toString);
            assertEquals("", state.reason(), "the data source was never down");
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    @org.junit.jupiter.api.Test
    void theDeadlineCountsOnlyTheTimeTheLoopRan() {
        long ms = TimeUnit.MILLISECONDS.toNanos(1);
        RunningDeadline deadline = new RunningDeadline(1000 * ms);
        assertEquals(100 * ms, deadline.stepNanos());
        deadline.start(0);
        // Looks on time: passed after the whole timeout, not before.
        long now = 0;
        for (int i = 0; i < 9; i++) {
            now += 100 * ms;
            assertTrue(!deadline.passed(now), "passed after " + (i + 1) + " steps");
        }
        assertTrue(deadline.passed(now + 100 * ms));
        // A look after 5 s of standing still counts two steps of it, not five seconds.
        deadline.start(0);
        assertTrue(!deadline.passed(5000 * ms));
        assertEquals(200 * ms, deadline.countedNanos());
        for (int i = 0; i < 7; i++) {
            now = 5000 * ms + (i + 1) * 100 * ms;
            assertTrue(!deadline.passed(now), "passed after " + (i + 1) + " steps past the stall");
        }
        assertTrue(deadline.passed(now + 100 * ms));
        // Starting again forgets what was counted; a clock that goes back counts nothing.
        deadline.start(now);
        assertTrue(!deadline.passed(now - 50 * ms));
        assertEquals(0, deadline.countedNanos());
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
