package io.ashlar.backend.pg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.IoHandle;
import io.netty.channel.IoHandler;
import io.netty.channel.IoHandlerContext;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.IoRegistration;
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
        IoHandlerFactory failingOnce = executor -> new IoHandler() {
            private final IoHandler delegate = real.newHandler(executor);
            private int turns;

            @Override
            public int run(IoHandlerContext context) {
                if (++turns == 2 && thrown.compareAndSet(false, true)) {
                    throw new OutOfMemoryError("Java heap space (thrown by the test)");
                }
                return delegate.run(context);
            }

            @Override
            public void prepareToDestroy() {
                delegate.prepareToDestroy();
            }

            @Override
            public void destroy() {
                delegate.destroy();
            }

            @Override
            public IoRegistration register(IoHandle handle) throws Exception {
                return delegate.register(handle);
            }

            @Override
            public void wakeup() {
                delegate.wakeup();
            }

            @Override
            public boolean isCompatible(Class<? extends IoHandle> handleType) {
                return delegate.isCompatible(handleType);
            }
        };
        long before = SurvivingIoHandler.survived();
        MultiThreadIoEventLoopGroup group = new MultiThreadIoEventLoopGroup(1, SurvivingIoHandler.wrap(failingOnce));
        try {
            for (int i = 0; i < 5; i++) {
                CompletableFuture<Boolean> ran = new CompletableFuture<>();
                group.next().execute(() -> ran.complete(true));
                assertTrue(ran.get(5, TimeUnit.SECONDS), "task " + i + " ran on the loop");
            }
            assertTrue(thrown.get(), "the handler threw");
            assertEquals(1, SurvivingIoHandler.survived() - before);
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }
}
