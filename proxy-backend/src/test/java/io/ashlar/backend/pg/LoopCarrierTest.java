package io.ashlar.backend.pg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.lang.reflect.Constructor;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Which threads count as running on an event loop: its own, and the virtual threads it carries (sessions of sharded
 * databases run so, made as the frontend's LoopThreads makes them); nothing else.
 */
final class LoopCarrierTest {

    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
    private final EventLoop first = group.next();
    private final EventLoop second = group.next();

    @AfterEach
    void stop() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    /** A virtual thread whose scheduler is {@code loop} (needs --add-opens java.base/java.lang, as the proxy's start). */
    private static Thread.Builder.OfVirtual onLoop(EventLoop loop) throws ReflectiveOperationException {
        Constructor<?> builder = Class.forName("java.lang.ThreadBuilders$VirtualThreadBuilder").getDeclaredConstructor(Executor.class);
        builder.setAccessible(true);
        return (Thread.Builder.OfVirtual) builder.newInstance((Executor) loop);
    }

    private static boolean[] askFrom(Thread.Builder builder, EventLoop... loops) throws Exception {
        CompletableFuture<boolean[]> answer = new CompletableFuture<>();
        builder.start(() -> {
            boolean[] result = new boolean[loops.length];
            for (int i = 0; i < loops.length; i++) {
                result[i] = LoopCarrier.runsOn(loops[i]);
            }
            answer.complete(result);
        });
        return answer.get(30, TimeUnit.SECONDS);
    }

    @Test
    void aLoopsOwnThreadRunsOnIt() throws Exception {
        assertTrue(first.submit(() -> LoopCarrier.runsOn(first)).get(30, TimeUnit.SECONDS));
        assertFalse(first.submit(() -> LoopCarrier.runsOn(second)).get(30, TimeUnit.SECONDS));
    }

    @Test
    void aVirtualThreadCarriedByALoopRunsOnThatLoopOnly() throws Exception {
        boolean[] answers = askFrom(onLoop(first), first, second);
        assertTrue(answers[0], "a virtual thread the loop carries");
        assertFalse(answers[1], "another loop");
        // Still so after it parked and was resumed (by the loop, as every time it runs).
        CompletableFuture<boolean[]> afterPark = new CompletableFuture<>();
        onLoop(second).start(() -> {
            java.util.concurrent.locks.LockSupport.parkNanos(1_000_000L);
            afterPark.complete(new boolean[] {LoopCarrier.runsOn(second), LoopCarrier.runsOn(first)});
        });
        boolean[] resumed = afterPark.get(30, TimeUnit.SECONDS);
        assertTrue(resumed[0]);
        assertFalse(resumed[1]);
    }

    @Test
    void otherThreadsDoNotRunOnALoop() throws Exception {
        assertFalse(LoopCarrier.runsOn(first), "the test's own platform thread");
        boolean[] answers = askFrom(Thread.ofVirtual(), first, second);
        assertEquals(2, answers.length);
        assertFalse(answers[0], "a virtual thread of the JDK's own scheduler");
        assertFalse(answers[1]);
        assertFalse(askFrom(Thread.ofPlatform(), first)[0], "a platform thread");
    }
}
