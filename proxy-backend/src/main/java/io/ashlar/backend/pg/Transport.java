package io.ashlar.backend.pg;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioChannelOption;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.channel.uring.IoUring;
import io.netty.channel.uring.IoUringChannelOption;
import io.netty.channel.uring.IoUringIoHandler;
import io.netty.channel.uring.IoUringServerSocketChannel;
import io.netty.channel.uring.IoUringSocketChannel;
import java.util.Locale;
import jdk.net.ExtendedSocketOptions;

/**
 * How the event loops reach the kernel, for clients and backends alike (one choice per process: a client's channel
 * and the backend connections serving it share a loop, so they must be of one kind). io_uring where the kernel allows
 * it (Linux 5.x and later, not refused by a container's seccomp profile or {@code kernel.io_uring_disabled}), else
 * epoll, else NIO; {@code -Dashlar.transport=epoll} ({@code ASHLAR_TRANSPORT} in {@code bin/ashlar}) or {@code nio}
 * asks for another. io_uring hands a loop's reads and writes to the kernel in one system call per turn: 10-15% less
 * proxy CPU per statement than epoll here, and fewer context switches (docs/benchmarks.md).
 */
public enum Transport {

    IO_URING("io_uring"),
    EPOLL("epoll"),
    NIO("nio");

    /** The system property that asks for a transport: {@code io_uring}, {@code epoll} or {@code nio}. */
    public static final String PROPERTY = "ashlar.transport";

    private static final Transport CURRENT = choose(System.getProperty(PROPERTY, ""));

    private final String label;

    Transport(String label) {
        this.label = label;
    }

    /** The transport of this process, chosen once. */
    public static Transport current() {
        return CURRENT;
    }

    /**
     * The transport asked for ({@code io_uring}, {@code epoll} or {@code nio}), or the next one at hand when it is not
     * available (io_uring, then epoll, then NIO). An empty or unknown request gets the first one at hand.
     */
    static Transport choose(String requested) {
        String asked = requested.trim().toLowerCase(Locale.ROOT);
        boolean nio = asked.equals("nio");
        if (!nio && !asked.equals("epoll") && ioUringAvailable()) {
            return IO_URING;
        }
        if (!nio && epollAvailable()) {
            return EPOLL;
        }
        return NIO;
    }

    /** Whether this process was asked to run on io_uring ({@link #PROPERTY}). */
    public static boolean ioUringRequested() {
        return asksForIoUring(System.getProperty(PROPERTY, "").trim().toLowerCase(Locale.ROOT));
    }

    private static boolean asksForIoUring(String asked) {
        return asked.equals("io_uring") || asked.equals("iouring") || asked.equals("uring");
    }

    /** Why io_uring cannot be used here, or null when it can. */
    public static String ioUringRefusal() {
        if (ioUringAvailable()) {
            return null;
        }
        Throwable cause = IoUring.unavailabilityCause();
        return cause == null ? "not available" : String.valueOf(cause.getMessage());
    }

    private static boolean ioUringAvailable() {
        try {
            return IoUring.isAvailable();
        } catch (LinkageError e) { // no native library for this platform
            return false;
        }
    }

    private static boolean epollAvailable() {
        try {
            return Epoll.isAvailable();
        } catch (LinkageError e) {
            return false;
        }
    }

    /** The transport a channel class belongs to. */
    public static Transport of(Class<? extends Channel> channelClass) {
        if (channelClass == IoUringSocketChannel.class || channelClass == IoUringServerSocketChannel.class) {
            return IO_URING;
        }
        if (channelClass == EpollSocketChannel.class || channelClass == EpollServerSocketChannel.class) {
            return EPOLL;
        }
        return NIO;
    }

    /** The name operators know it by, as the log says it. */
    public String label() {
        return label;
    }

    /** What the event loops of this transport are made with: its handlers, made to outlive an OutOfMemoryError. */
    public IoHandlerFactory ioHandlerFactory() {
        return SurvivingIoHandler.wrap(switch (this) {
            case IO_URING -> IoUringIoHandler.newFactory();
            case EPOLL -> EpollIoHandler.newFactory();
            case NIO -> NioIoHandler.newFactory();
        });
    }

    /** The class of a connection this transport makes. */
    public Class<? extends Channel> socketChannel() {
        return switch (this) {
            case IO_URING -> IoUringSocketChannel.class;
            case EPOLL -> EpollSocketChannel.class;
            case NIO -> NioSocketChannel.class;
        };
    }

    /** The class of a listening socket of this transport. */
    public Class<? extends ServerChannel> serverChannel() {
        return switch (this) {
            case IO_URING -> IoUringServerSocketChannel.class;
            case EPOLL -> EpollServerSocketChannel.class;
            case NIO -> NioServerSocketChannel.class;
        };
    }

    /**
     * Short TCP keepalive on the connections {@code bootstrap} makes: probes after {@code seconds} idle, three of them
     * a third of it apart, and (io_uring and epoll) data left unacknowledged for twice {@code seconds} ends the
     * connection (TCP_USER_TIMEOUT), so a connection that is sending is covered too.
     */
    public void keepalive(Bootstrap bootstrap, int seconds) {
        if (seconds <= 0) {
            return;
        }
        int interval = Math.max(1, seconds / 3);
        switch (this) {
            case IO_URING -> bootstrap.option(IoUringChannelOption.TCP_KEEPIDLE, seconds)
                    .option(IoUringChannelOption.TCP_KEEPINTVL, interval)
                    .option(IoUringChannelOption.TCP_KEEPCNT, 3)
                    .option(IoUringChannelOption.TCP_USER_TIMEOUT, seconds * 2000);
            case EPOLL -> bootstrap.option(EpollChannelOption.TCP_KEEPIDLE, seconds)
                    .option(EpollChannelOption.TCP_KEEPINTVL, interval)
                    .option(EpollChannelOption.TCP_KEEPCNT, 3)
                    .option(EpollChannelOption.TCP_USER_TIMEOUT, seconds * 2000);
            case NIO -> bootstrap.option(NioChannelOption.of(ExtendedSocketOptions.TCP_KEEPIDLE), seconds)
                    .option(NioChannelOption.of(ExtendedSocketOptions.TCP_KEEPINTERVAL), interval)
                    .option(NioChannelOption.of(ExtendedSocketOptions.TCP_KEEPCOUNT), 3);
        }
    }
}
