package io.ashlar.backend.pg;

import io.netty.channel.IoHandler;
import io.netty.channel.IoHandlerContext;
import io.netty.channel.IoHandlerFactory;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An event loop's I/O handler that outlives an OutOfMemoryError met in its own work. Netty's handlers catch what a
 * channel's handlers throw, but rethrow an Error met outside them (io_uring's completion handling: a write's
 * completion, the buffer of a channel's next read), and the loop's thread then ends: every connection it served,
 * clients and backends, waits for ever, and the proxy accepts connections it never answers (found under io_uring
 * with ContainmentTest, where one session runs the heap out: another loop's thread died with it, and new clients
 * waited until their timeout). Here the error ends the turn instead: the completion it met is spent, the loop goes
 * on with the next, and the statement that holds the heap fails at its next charge ({@link
 * io.ashlar.merge.MemoryBudget#heapRanOut}), which frees it. Other Errors still end the thread.
 */
final class SurvivingIoHandler extends ForwardingIoHandler {

    private static final Logger LOG = LoggerFactory.getLogger(SurvivingIoHandler.class);
    private static final AtomicLong SURVIVED = new AtomicLong();

    private SurvivingIoHandler(IoHandler delegate) {
        super(delegate);
    }

    /** {@code factory}'s handlers, each wrapped. */
    static IoHandlerFactory wrap(IoHandlerFactory factory) {
        return new IoHandlerFactory() {
            @Override
            public IoHandler newHandler(io.netty.util.concurrent.ThreadAwareExecutor executor) {
                return new SurvivingIoHandler(factory.newHandler(executor));
            }

            @Override
            public boolean isChangingThreadSupported() {
                return factory.isChangingThreadSupported();
            }
        };
    }

    /** How many OutOfMemoryErrors the process's event loops outlived. */
    static long survived() {
        return SURVIVED.get();
    }

    @Override
    public int run(IoHandlerContext context) {
        try {
            return super.run(context);
        } catch (OutOfMemoryError e) {
            SURVIVED.incrementAndGet();
            io.ashlar.merge.MemoryBudget.heapRanOut(); // the statement holding the heap fails next, and frees it
            try {
                LOG.error("event loop: {} in its I/O handling; the loop goes on", e.toString());
            } catch (Throwable again) {
                // No memory to log with either: the count above still says it happened.
            }
            return 0;
        }
    }
}
