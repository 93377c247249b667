package io.ashlar.backend.pg;

import io.netty.util.concurrent.EventExecutor;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * Whether the current thread runs on an event loop: the loop's own thread, or a virtual thread
 * that the loop's thread carries (a session of a sharded database runs as a task of its client's
 * loop, see the frontend's {@code LoopThreads}; while it runs, the loop runs nothing else).
 * Netty's {@code inEventLoop()} says no to such a virtual thread, so work meant for the loop
 * (lending a pooled connection, taking one back) would be queued as a task and the session
 * parked until the loop ran it: a round trip through the loop's queue and a park per statement
 * for what the loop would do at once.
 *
 * <p>The carrier is asked of {@code Thread.currentCarrierThread()}, reached once at start with
 * the {@code --add-opens java.base/java.lang=ALL-UNNAMED} that lets sessions run on their loops
 * at all; without it, no virtual thread counts as on a loop (and none runs on one).
 */
public final class LoopCarrier {

    private static final MethodHandle CARRIER = carrierHandle();

    private LoopCarrier() {
    }

    private static MethodHandle carrierHandle() {
        try {
            return MethodHandles.privateLookupIn(Thread.class, MethodHandles.lookup())
                    .findStatic(Thread.class, "currentCarrierThread", MethodType.methodType(Thread.class));
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    /** Whether the current thread is {@code loop}'s, or a virtual thread it carries. */
    public static boolean runsOn(EventExecutor loop) {
        Thread current = Thread.currentThread();
        if (loop.inEventLoop(current)) {
            return true;
        }
        if (!current.isVirtual() || CARRIER == null) {
            return false;
        }
        try {
            return loop.inEventLoop((Thread) CARRIER.invokeExact());
        } catch (Throwable e) {
            throw new IllegalStateException("Thread.currentCarrierThread failed", e);
        }
    }
}
