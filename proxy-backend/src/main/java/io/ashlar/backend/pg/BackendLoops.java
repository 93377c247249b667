package io.ashlar.backend.pg;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;

/**
 * The back end's own event loop, apart from the loops that serve clients: the data sources' health checks and
 * reconnects run there, and so does work done off any session's loop (reading metadata at start, tools, tests).
 * A client's burst does not delay a health check's answer past its deadline, nor the other way round.
 */
public final class BackendLoops {

    private static final class Holder {
        static final EventLoopGroup GROUP = new MultiThreadIoEventLoopGroup(1, r -> {
            Thread thread = new Thread(r, "ashlar-backend-io");
            thread.setDaemon(true);
            return thread;
        }, Transport.current().ioHandlerFactory());
    }

    private BackendLoops() {
    }

    /** The group (one loop), made when first asked for. */
    public static EventLoopGroup group() {
        return Holder.GROUP;
    }
}
