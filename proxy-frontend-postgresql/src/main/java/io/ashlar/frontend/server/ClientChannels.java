package io.ashlar.frontend.server;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/** Ending a client's connection after what it was sent. */
public final class ClientChannels {

    /** How long a client that does not read is given to take what it was sent last before its connection closes. */
    static final long DRAIN_MILLIS = 5_000;

    private ClientChannels() {
    }

    /**
     * Closes {@code channel} once what was written to it before has left, as PostgreSQL's backend sends its FATAL and
     * then exits: closing at once drops what is still in the channel's outbound buffer, and with io_uring a flush
     * only queues the write for the loop's next submission, so a FATAL flushed just before was lost. A client that
     * reads nothing is closed after {@link #DRAIN_MILLIS} all the same. Any thread may call it.
     */
    public static void closeAfterWrites(Channel channel) {
        closeWith(channel, Unpooled.EMPTY_BUFFER);
    }

    /** Sends {@code last} (a FATAL error, say) and closes the connection once it has left, as {@link #closeAfterWrites}. */
    public static void closeWith(Channel channel, Object last) {
        if (!channel.isActive()) {
            ReferenceCountUtil.release(last);
            channel.close();
            return;
        }
        channel.writeAndFlush(last).addListener(ChannelFutureListener.CLOSE);
        Future<?> deadline;
        try {
            deadline = channel.eventLoop().schedule(() -> channel.close(), DRAIN_MILLIS, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException stopping) {
            return; // the loop closes its channels as it stops
        }
        channel.closeFuture().addListener(closed -> deadline.cancel(false));
    }
}
