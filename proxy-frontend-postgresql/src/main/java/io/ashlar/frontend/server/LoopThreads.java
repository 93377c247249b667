package io.ashlar.frontend.server;

import io.netty.channel.EventLoop;
import java.lang.reflect.Constructor;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Virtual threads that run on a Netty event loop: a session whose statements are plain method
 * calls (a sharded session: analyse, route, wait for its data sources, merge) runs on the event
 * loop of its client's connection, and so do the connections to its data sources. When the
 * session waits for a backend, its virtual thread parks and the loop goes on with other
 * sessions' I/O; when the answer comes, the loop resumes it. A statement crosses no thread and
 * costs no context switch; there is no thread per session.
 *
 * <p>The JDK has no public API for a virtual thread's scheduler yet; the builder that takes one
 * ({@code java.lang.ThreadBuilders.VirtualThreadBuilder(Executor)}) is reached once, at start,
 * which needs {@code --add-opens java.base/java.lang=ALL-UNNAMED} (bin/ashlar and the build pass
 * it). Without it, sessions run on the JDK's own virtual-thread scheduler: correct, with a thread
 * hand-off each way per backend round trip (logged once).
 */
final class LoopThreads {

    private static final Logger LOG = LoggerFactory.getLogger(LoopThreads.class);
    private static final Constructor<?> BUILDER = builder();

    private final ConcurrentHashMap<EventLoop, ThreadFactory> factories = new ConcurrentHashMap<>();
    private final ThreadFactory fallback = Thread.ofVirtual().name("ashlar-session").factory();

    private static Constructor<?> builder() {
        try {
            Constructor<?> result = Class.forName("java.lang.ThreadBuilders$VirtualThreadBuilder")
                    .getDeclaredConstructor(Executor.class);
            result.setAccessible(true);
            return result;
        } catch (ReflectiveOperationException | RuntimeException e) {
            LOG.warn("sessions of sharded databases run on the JDK's virtual-thread scheduler, with a thread hand-off per"
                    + " backend round trip (start the JVM with --add-opens java.base/java.lang=ALL-UNNAMED to run them on"
                    + " their event loops): {}", e.toString());
            return null;
        }
    }

    /** Whether sessions run on their event loops (the JDK let the proxy give virtual threads a scheduler). */
    static boolean onLoops() {
        return BUILDER != null;
    }

    /** Makes the virtual threads of sessions whose clients are on {@code loop}. */
    ThreadFactory on(EventLoop loop) {
        if (BUILDER == null) {
            return fallback;
        }
        ThreadFactory result = factories.get(loop);
        return result != null ? result : factories.computeIfAbsent(loop, LoopThreads::factory);
    }

    private static ThreadFactory factory(EventLoop loop) {
        try {
            Thread.Builder.OfVirtual builder = (Thread.Builder.OfVirtual) BUILDER.newInstance((Executor) loop);
            return builder.name("ashlar-session").factory();
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot make virtual threads on an event loop", e);
        }
    }
}
