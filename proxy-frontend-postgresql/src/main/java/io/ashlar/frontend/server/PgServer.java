package io.ashlar.frontend.server;

import io.ashlar.backend.pg.Transport;
import io.ashlar.protocol.PgFrontendDecoder;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.socket.SocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.FastThreadLocalThread;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The listening side of the proxy: Netty with the io_uring transport on Linux where the kernel allows it, epoll
 * where not, NIO elsewhere ({@link Transport}; the transport in use is logged), one pipeline per client connection:
 * frame decoder, message encoder, connection handler (and, once a client asks for TLS, an SslHandler before them).
 *
 * <p>It listens on the addresses it is given, as PostgreSQL's {@code listen_addresses} reads them:
 * a comma-separated list of host names and IP addresses, {@code *} for every interface. The
 * proxy's default is {@code 127.0.0.1}, PostgreSQL's {@code localhost}: nothing but the machine
 * itself reaches it until the operator says otherwise.
 */
public final class PgServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(PgServer.class);

    /** How the loops' threads are named (both groups' thread factories name them after their class). */
    private static final String LOOP_THREAD_NAMES = DefaultThreadFactory.toPoolName(MultiThreadIoEventLoopGroup.class);
    /** How long a stop waits for the event loops to end ({@link #stopLoops}). */
    private static final long LOOPS_STOP_MILLIS = 5_000;
    /** How long the event loops run on, idle, when they stop ({@link #stopLoops}). */
    private static final long QUIET_MILLIS = 100;
    /** How long a stop waits for the connections left on the loops to close ({@link #closeWhileLoopsRun}). */
    private static final long CLOSE_MILLIS = 2_000;

    private final FrontendContext context;
    private final String host;
    private final int requestedPort;
    private final int workerThreads;
    private EventLoopGroup boss;
    private EventLoopGroup workers;
    private final List<Channel> serverChannels = new ArrayList<>();
    private final io.netty.channel.group.ChannelGroup clients =
            new io.netty.channel.group.DefaultChannelGroup(io.netty.util.concurrent.GlobalEventExecutor.INSTANCE);

    /**
     * @param host the addresses to listen on: comma-separated host names and IP addresses, {@code *}
     *        for every interface
     * @param port port to listen on; 0 picks a free one (see {@link #port()}), the same on every address
     * @param workerThreads event-loop threads, 0 for half the cores (see {@link #defaultLoops})
     */
    public PgServer(FrontendContext context, String host, int port, int workerThreads) {
        this.context = context;
        this.host = host;
        this.requestedPort = port;
        this.workerThreads = workerThreads;
    }

    /**
     * Event loops when the configuration leaves it to the proxy: half the cores, at least one. A
     * loop that has little to do sleeps in epoll_wait and is woken for nearly every message, and
     * each wake-up is a context switch plus the scheduler's work on top of the send and receive
     * a relay does anyway; fewer, busier loops find several ready sockets per wake-up, as
     * pgbouncer's single thread does. Measured on 2 cores (pgbench -S -M prepared, 8 clients):
     * 2 loops 2.3-2.6 context switches and 21-25 µs of proxy CPU per transaction, 1 loop 0.6 and
     * 16-19 µs, at the same throughput. The other half of the cores is left to the kernel's
     * network work and to what shares the machine. Odyssey makes the same choice (one worker by
     * default; "auto" is half the cores).
     */
    static int defaultLoops(int cores) {
        return Math.max(1, cores / 2);
    }

    /**
     * The worker event loops' threads, with a stack of {@value FrontendContext#SESSION_STACK_BYTES}
     * bytes: the sessions of sharded databases are virtual threads that run on them, and a virtual
     * thread's frames live on its carrier's stack while it runs. Reading a statement nested
     * {@code StatementAnalyzer.MAX_NESTING} deep takes about 2 MB; the JVM's
     * default of 1 MB would not hold it. The memory is reserved, and only what is used is taken.
     */
    private static final class LoopThreadFactory extends DefaultThreadFactory {

        LoopThreadFactory() {
            super(MultiThreadIoEventLoopGroup.class);
        }

        @Override
        protected Thread newThread(Runnable runnable, String name) {
            return new FastThreadLocalThread(threadGroup, runnable, name,
                    FrontendContext.SESSION_STACK_BYTES);
        }
    }

    /** Binds and starts accepting clients. */
    public void start() throws InterruptedException {
        Transport transport = Transport.current();
        if (Transport.ioUringRequested() && transport != Transport.IO_URING) {
            LOG.warn("io_uring was asked for ({}) but cannot be used here ({}): the {} transport serves instead",
                    Transport.PROPERTY, Transport.ioUringRefusal(), transport.label());
        } else if (transport == Transport.EPOLL && Transport.ioUringRefusal() != null) {
            LOG.info("io_uring cannot be used here ({}): the epoll transport serves", Transport.ioUringRefusal());
        }
        IoHandlerFactory factory = transport.ioHandlerFactory();
        Class<? extends ServerChannel> channelClass = transport.serverChannel();
        int threads = workerThreads > 0 ? workerThreads : defaultLoops(Runtime.getRuntime().availableProcessors());
        boss = new MultiThreadIoEventLoopGroup(1, factory);
        workers = new MultiThreadIoEventLoopGroup(threads, new LoopThreadFactory(), factory);
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(boss, workers)
                .channel(channelClass)
                .option(ChannelOption.SO_BACKLOG, 1024)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.SO_KEEPALIVE, true)
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(256 * 1024, 1024 * 1024))
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel channel) {
                        clients.add(channel);
                        channel.pipeline()
                                .addLast("decoder", new PgFrontendDecoder(context.messageMemory().client()))
                                .addLast("encoder", BackendMessageEncoder.INSTANCE)
                                .addLast("handler", new PgConnectionHandler(context));
                    }
                });
        int port = requestedPort;
        List<String> listening = new ArrayList<>();
        try {
            for (String each : addresses(host)) {
                InetSocketAddress address = each.equals("*") ? new InetSocketAddress(port) : new InetSocketAddress(each, port);
                if (address.isUnresolved()) {
                    throw new IllegalArgumentException("cannot listen on " + each + ": no such host");
                }
                Channel channel;
                try {
                    channel = bootstrap.bind(address).sync().channel();
                } catch (InterruptedException e) {
                    throw e;
                } catch (Exception e) {
                    // Netty rethrows the bind's IOException unchecked-looking; name the address it was for.
                    throw new IllegalStateException("cannot listen on " + each + " port " + port + ": " + e.getMessage(), e);
                }
                serverChannels.add(channel);
                InetSocketAddress bound = (InetSocketAddress) channel.localAddress();
                port = bound.getPort();
                listening.add(each.equals("*") ? "every interface (*) port " + port
                        : bound.getAddress().getHostAddress() + " port " + port);
            }
        } catch (RuntimeException | InterruptedException e) {
            closeListeners();
            workers.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            boss.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            throw e;
        }
        LOG.info("listening on {} with the {} transport, {} event-loop threads", String.join(", ", listening),
                transport.label(), threads);
    }

    /**
     * The addresses of {@code proxy-bind-address}: comma-separated, blanks around each ignored, as
     * PostgreSQL's {@code listen_addresses}; {@code *} means every interface.
     */
    static List<String> addresses(String setting) {
        List<String> result = new ArrayList<>();
        for (String each : setting.split(",")) {
            String address = each.strip();
            if (!address.isEmpty() && !result.contains(address)) {
                result.add(address);
            }
        }
        if (result.isEmpty()) {
            throw new IllegalArgumentException("no address to listen on in '" + setting + "'");
        }
        return result;
    }

    /** The port the proxy listens on (the same on every address). */
    public int port() {
        return ((InetSocketAddress) serverChannels.getFirst().localAddress()).getPort();
    }

    /** The addresses the proxy listens on, with their port. */
    public List<InetSocketAddress> addresses() {
        List<InetSocketAddress> result = new ArrayList<>();
        for (Channel each : serverChannels) {
            result.add((InetSocketAddress) each.localAddress());
        }
        return result;
    }

    private void closeListeners() {
        for (Channel each : serverChannels) {
            each.close().syncUninterruptibly();
        }
    }

    public FrontendContext context() {
        return context;
    }

    /**
     * Stops as PostgreSQL's smart shutdown turning fast: stops accepting; ends each idle session (between statements,
     * outside a transaction) with FATAL 57P01 {@code terminating connection due to administrator command}, at once or
     * as soon as it finishes what it runs, for up to {@code graceMillis}; then ends the rest the same way, cancelling
     * what they still run on the backends. Sessions that end roll back what they had open and give every backend
     * connection back before the event loops stop.
     */
    public void shutdown(long graceMillis) {
        endSessions(graceMillis);
        stopLoops();
    }

    /**
     * The first half of {@link #shutdown}: stops accepting and ends every session; the event loops still run, so that
     * the backend connections the sessions gave back can be closed on them ({@link #stopLoops} next).
     */
    public void endSessions(long graceMillis) {
        closeListeners();
        context.stopping();
        int sessions = context.sessionCount();
        if (sessions > 0) {
            LOG.info("stopping: {} sessions; idle ones end now, busy ones may finish their transactions within {} ms",
                    sessions, graceMillis);
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(graceMillis);
        while (context.sessionCount() > 0 && System.nanoTime() - deadline < 0) {
            context.terminate(false);
            if (!pause(50)) {
                break;
            }
        }
        if (context.sessionCount() > 0) {
            LOG.info("stopping: {} sessions still busy after {} ms: their statements are cancelled and they end",
                    context.sessionCount(), graceMillis);
            context.terminate(true);
            long ending = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            long cancelAt = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
            boolean cancelled = false;
            while (context.sessionCount() > 0 && System.nanoTime() - ending < 0 && pause(20)) {
                // Their threads roll back and give their connections back; a statement still running after a second
                // (its session's thread did not see its client leave) is cancelled on its backend.
                if (!cancelled && System.nanoTime() - cancelAt > 0) {
                    cancelled = true;
                    context.cancelAll();
                }
            }
        }
        clients.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
        // Sessions that ended with a statement running cancelled it on its backend: the requests go out on the loops.
        io.ashlar.backend.pg.ServerLink.awaitCancels(2_000);
    }

    /**
     * Stops the event loops, closing what connections they still have. They run on for a quiet {@value
     * #QUIET_MILLIS} ms after their last task: with io_uring a connection's close completes on a later turn of its
     * loop, and a loop that stopped at once left backend connections open (idle, on the server) until the process
     * exited.
     */
    public void stopLoops() {
        if (workers != null) {
            closeWhileLoopsRun();
            if (!awaitStopped("event loops", workers.shutdownGracefully(QUIET_MILLIS, 2_000, TimeUnit.MILLISECONDS))) {
                LOG.warn("stopping: connections still open on the event loops that did not stop: {}", openOnLoops());
            }
            awaitStopped("accepting loop", boss.shutdownGracefully(0, 1, TimeUnit.SECONDS));
        }
    }

    /**
     * Closes every connection still open on the loops, clients' and backends' (those a session or a pool did not
     * close, or whose close has not completed), and waits for the closes, at most {@value #CLOSE_MILLIS} ms, while
     * the loops still run. A loop that stops closes what it still has, but under io_uring a close begun as the loop
     * ends may never reach the kernel: a backend connection then stayed open (idle, on its server) until the process
     * exited, in about one ShutdownUnderLoadTest run in twenty.
     */
    private void closeWhileLoopsRun() {
        List<io.netty.channel.ChannelFuture> closing = new ArrayList<>();
        for (Channel each : openOnLoops()) {
            closing.add(each.close());
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(CLOSE_MILLIS);
        int open = 0;
        for (io.netty.channel.ChannelFuture each : closing) {
            long left = deadline - System.nanoTime();
            if (!each.awaitUninterruptibly(Math.max(0, TimeUnit.NANOSECONDS.toMillis(left)))) {
                open++;
            }
        }
        if (open > 0) {
            LOG.warn("stopping: {} of {} connections left on the event loops did not close within {} ms", open,
                    closing.size(), CLOSE_MILLIS);
        } else if (!closing.isEmpty()) {
            LOG.debug("stopping: closed {} connections left on the event loops", closing.size());
        }
    }

    /** The connections not closed yet on the worker loops: the clients', then the backends'. */
    private List<Channel> openOnLoops() {
        List<Channel> result = new ArrayList<>(clients);
        result.addAll(io.ashlar.backend.pg.ServerLink.openOn(workers));
        return result;
    }

    /**
     * Waits for loops to stop, for at most {@value #LOOPS_STOP_MILLIS} ms, so that a stop (and a SIGTERM) never hangs on
     * them: on io_uring a stop twice did not end within 30 s in about 80 ShutdownUnderLoadTest runs, where it waited
     * without bound; with the bound, in 3 of 60 runs a loop's thread was still in io_uring's own teardown after it
     * ({@code IoUringIoHandler.prepareToDestroy}, waiting in the kernel for the operations submitted to complete),
     * though every connection {@link #closeWhileLoopsRun} knew of had closed. Past it, the log says where the loops'
     * threads are and what connections are still open on them.
     *
     * @return whether they stopped
     */
    private static boolean awaitStopped(String what, io.netty.util.concurrent.Future<?> termination) {
        if (termination.awaitUninterruptibly(LOOPS_STOP_MILLIS)) {
            return true;
        }
        StringBuilder stacks = new StringBuilder();
        for (java.util.Map.Entry<Thread, StackTraceElement[]> each : Thread.getAllStackTraces().entrySet()) {
            if (each.getKey().getName().startsWith(LOOP_THREAD_NAMES)) {
                stacks.append("\n\"").append(each.getKey().getName()).append("\" ").append(each.getKey().getState());
                for (StackTraceElement frame : each.getValue()) {
                    stacks.append("\n    at ").append(frame);
                }
            }
        }
        LOG.warn("stopping: the {} did not stop within {} ms; the stop goes on without them{}", what, LOOPS_STOP_MILLIS,
                stacks);
        return false;
    }

    private static boolean pause(long millis) {
        try {
            Thread.sleep(millis);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Override
    public void close() {
        shutdown(0);
    }
}
