package io.ashlar.backend.pg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.IoHandlerContext;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * An event loop whose I/O handling meets an OutOfMemoryError goes on serving (ContainmentTest has the real one, a
 * session running a proxy process's heap out); without {@link SurvivingIoHandler} its thread ends and nothing it
 * served is answered again.
 */
final class SurvivingIoHandlerTest {

    @Test
    void aLoopOutlivesAnOutOfMemoryErrorInItsIoHandling() throws Exception {
        AtomicBoolean thrown = new AtomicBoolean();
        IoHandlerFactory real = Transport.current().ioHandlerFactory();
        // The transport's own handler, which runs out of memory once, in its second turn.
        IoHandlerFactory failingOnce = executor -> new ForwardingIoHandler(real.newHandler(executor)) {
            private int turns;

            @Override
            public int run(IoHandlerContext context) {
                if (++turns == 2 && thrown.compareAndSet(false, true)) {
                    throw new OutOfMemoryError("Java heap space (thrown by the test)");
                }
                return super.run(context);
            }
        };
        long before = SurvivingIoHandler.survived();
        MultiThreadIoEventLoopGroup group = new MultiThreadIoEventLoopGroup(1, SurvivingIoHandler.wrap(failingOnce));
        try {
            // Tasks until the loop has turned twice (tasks given while it runs its tasks may run in one turn).
            for (int i = 0; i < 500 && !thrown.get(); i++) {
                runOnTheLoop(group, "before the error, task " + i);
                Thread.sleep(10);
            }
            assertTrue(thrown.get(), "the handler threw");
            for (int i = 0; i < 5; i++) {
                runOnTheLoop(group, "after the error, task " + i);
            }
            assertEquals(1, SurvivingIoHandler.survived() - before);
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    private static void runOnTheLoop(MultiThreadIoEventLoopGroup group, String what) throws Exception {
        CompletableFuture<Boolean> ran = new CompletableFuture<>();
        group.next().execute(() -> ran.complete(true));
        assertTrue(ran.get(5, TimeUnit.SECONDS), what + " ran on the loop");
    }
}
