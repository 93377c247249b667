package io.ashlar.backend.pg;

import io.ashlar.backend.config.DataSourceConfig;
import io.ashlar.backend.execute.ErrorFields;
import io.ashlar.protocol.Query;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether a data source answers, as its {@link LinkPool} sees it. It is <b>up</b> until a connection cannot be made
 * (refused, a wrong password, an unknown database, a TLS failure, no answer in time), an established one is lost
 * without the backend saying why (a reset, the server's process gone, TCP keepalive giving up), or the health check
 * gets no answer within {@code healthCheckTimeoutMilliseconds} (counted in the time the proxy ran: a stall of its
 * own, such as a heap so full that every allocation waits, is not the server's silence; {@link RunningDeadline});
 * then it is <b>down</b>: statements that need it fail at once with 08006 naming it and the reason, instead of
 * waiting for a connection that will not come, and the proxy reconnects in the background, at once and then with a
 * backoff that doubles up to the check interval. The first login that succeeds makes it up again; nothing needs a
 * restart.
 *
 * <p>The health check: every {@code healthCheckIntervalMilliseconds}, an empty query on a connection of its own
 * ({@code application_name} "ashlar health check", one per data source and proxy, outside {@code maxPoolSize}).
 * A server whose processes are stopped (SIGSTOP, a paused container, a partition the kernel does not report)
 * keeps its connections open and never answers: only a question with a deadline finds it out. When it does, every
 * connection of the data source is closed, so that statements waiting on it end with 08006 rather than hang.
 *
 * <p>The statement path pays one volatile read per borrow ({@link #isDown()}); everything else runs on one event
 * loop of the proxy's back end (the check's), or where a connection fails.
 */
public final class DataSourceHealth {

    private static final Logger LOG = LoggerFactory.getLogger(DataSourceHealth.class);
    /** The first reconnect waits this long after the one made at once; each next one twice as long. */
    private static final long FIRST_BACKOFF_MILLIS = 100;
    /** The longest wait between reconnects when the health check is off. */
    private static final long MAX_BACKOFF_MILLIS = 5_000;

    /**
     * What the health is now: a read-only view for whoever shows it ({@code SHOW STORAGE UNITS}, metrics; a logical
     * database lists its data sources' with {@code LogicalDatabase.dataSourceHealth()}).
     *
     * @param dataSource the data source's name
     * @param up whether statements may use the data source
     * @param since when it became what it is (the proxy's start for a data source never down)
     * @param reason why it is down, or why it was last (empty if it never was)
     */
    public record State(String dataSource, boolean up, Instant since, String reason) {
    }

    private final LinkPool pool;
    private final DataSourceConfig config;
    private final ConnectSpec checkSpec;
    private final Class<? extends Channel> channelClass;
    private final EventLoop loop;
    private final AtomicReference<State> state = new AtomicReference<>();
    /** The state's {@code !up}, apart: the one read a borrow makes. */
    private volatile boolean down;

    // What follows is used on {@link #loop} only (but for the reads said otherwise).
    private boolean started;
    /** Written on the loop, read by whoever reports a failure. */
    private volatile boolean closed;
    private ServerLink checkLink;
    private boolean connecting;
    /** The check sent and not answered yet. */
    private boolean awaiting;
    /** The next look at the check sent: cancelled by its answer. */
    private ScheduledFuture<?> deadline;
    /** How long the check sent has waited, in the time the proxy ran. */
    private final RunningDeadline waited;
    /** The next check: one at a time, whatever went down and up meanwhile. */
    private ScheduledFuture<?> nextCheck;
    private boolean reconnecting;
    private long backoffMillis;
    /** Whether the first attempt (at start) has been answered, one way or the other. */
    private volatile boolean settled;
    /** Told, on the health's loop, each time the data source is up again after being down: they must not block. */
    private final java.util.List<Runnable> upListeners = new java.util.concurrent.CopyOnWriteArrayList<>();

    DataSourceHealth(LinkPool pool, DataSourceConfig config, ConnectSpec spec, Class<? extends Channel> channelClass,
                     EventLoop loop) {
        this.pool = pool;
        this.config = config;
        this.checkSpec = spec.forHealthCheck((int) Math.min(Integer.MAX_VALUE, config.healthCheckTimeoutMilliseconds()));
        this.channelClass = channelClass;
        this.loop = loop;
        this.waited = new RunningDeadline(TimeUnit.MILLISECONDS.toNanos(config.healthCheckTimeoutMilliseconds()));
        this.state.set(new State(config.name(), true, Instant.now(), ""));
    }

    /** Whether the data source is down: statements that need a new connection of it fail at once. */
    public boolean isDown() {
        return down;
    }

    /** The health now. */
    public State state() {
        return state.get();
    }

    /**
     * Whether the first check (started with {@link #start()}) has its answer: up, or down with a reason. A proxy
     * that starts waits a moment for these, so that its own start-up reads skip data sources already known down.
     */
    public boolean settled() {
        return settled || down;
    }

    /** Connects now, then checks every interval (when one is set). */
    public void start() {
        loop.execute(() -> {
            if (started || closed) {
                return;
            }
            started = true;
            if (down) {
                settled = true;
                return; // the reconnects run already
            }
            check();
        });
    }

    /** Why the 08006 of a statement that needs this data source while it is down says what it says. */
    ErrorFields downError() {
        State now = state.get();
        long seconds = Math.max(0, (System.currentTimeMillis() - now.since().toEpochMilli()) / 1000);
        return ErrorFields.error("08006", "data source " + config.name() + " is down: " + now.reason() + " (for " + seconds
                + " s)", "Ashlar reconnects to it in the background; statements that need it fail until it answers again.");
    }

    /**
     * The data source failed a connection: down, unless it is down already. {@code hung}: it stopped answering
     * altogether, and the connections statements hold are closed too.
     */
    void lost(String reason, boolean hung) {
        State before = state.get();
        if (!before.up() || closed) {
            return;
        }
        State after = new State(config.name(), false, Instant.now(), reason);
        if (!state.compareAndSet(before, after)) {
            return; // someone else marked it first
        }
        down = true;
        LOG.warn("data source {} ({}) is down: {}; statements that need it fail at once until it is back, reconnecting"
                + " in the background", config.name(), checkSpec.address(), reason);
        pool.dataSourceDown(reason, hung);
        loop.execute(() -> {
            settled = true;
            dropCheckLink(reason);
            backoffMillis = 0;
            if (!reconnecting) {
                reconnecting = true;
                reconnect();
            }
        });
    }

    /** Ends the checks and the reconnects (the pool is closing). */
    void close() {
        loop.execute(() -> {
            closed = true;
            if (deadline != null) {
                deadline.cancel(false);
            }
            if (nextCheck != null) {
                nextCheck.cancel(false);
            }
            dropCheckLink("the pool is closing");
        });
    }

    // ------------------------------------------------------------------ the check's loop

    /** One health check: a login when the check has no connection, else an empty query with a deadline. */
    private void check() {
        if (closed || down) {
            return;
        }
        ServerLink link = checkLink;
        if (link == null || !link.isOpen()) {
            checkLink = null;
            if (!connecting) {
                connecting = true;
                ServerLink.connect(loop, channelClass, checkSpec).addListener(connected -> {
                    connecting = false;
                    if (connected.isSuccess()) {
                        adopt((ServerLink) connected.getNow());
                        settled = true;
                        scheduleCheck();
                    } else {
                        failed(connected.cause());
                    }
                });
            }
            return;
        }
        if (!awaiting) {
            awaiting = true;
            link.write(new Query(""));
            link.flush();
            waited.start(System.nanoTime());
            deadline = loop.schedule(() -> lookAtCheck(link), waited.stepNanos(), TimeUnit.NANOSECONDS);
        }
        scheduleCheck();
    }

    /**
     * The check sent on {@code link} is still unanswered after a step: down once the proxy has run for the whole
     * timeout meanwhile ({@link RunningDeadline}: a stall of the proxy's own is not the server's silence).
     */
    private void lookAtCheck(ServerLink link) {
        if (!awaiting || checkLink != link) {
            return;
        }
        if (waited.passed(System.nanoTime())) {
            awaiting = false;
            lost("no answer to a health check within " + config.healthCheckTimeoutMilliseconds()
                    + " ms (the server may be stopped, or the network to it cut)", true);
        } else {
            deadline = loop.schedule(() -> lookAtCheck(link), waited.stepNanos(), TimeUnit.NANOSECONDS);
        }
    }

    private void scheduleCheck() {
        long interval = config.healthCheckIntervalMilliseconds();
        if (nextCheck != null) {
            nextCheck.cancel(false);
            nextCheck = null;
        }
        if (interval > 0 && !closed) {
            nextCheck = loop.schedule(this::checkSafely, interval, TimeUnit.MILLISECONDS);
        }
    }

    /** A check that fails in an unexpected way must not end the checks for good. */
    private void checkSafely() {
        try {
            check();
        } catch (Throwable e) {
            LOG.error("data source {}: the health check failed unexpectedly: {}", config.name(), e.toString());
            scheduleCheck();
        }
    }

    private void failed(Throwable cause) {
        if (countsAgainst(cause)) {
            lost(reason(cause), false);
        } else {
            settled = true;
            scheduleCheck();
        }
    }

    /** The check's connection: its answers end the check's wait; its loss is found out by the next check. */
    private void adopt(ServerLink link) {
        if (closed) {
            link.close("the pool is closing");
            return;
        }
        checkLink = link;
        awaiting = false;
        pool.learnParameters(link);
        link.receiver(new ServerLink.Receiver() {
            @Override
            public void message(ServerLink from, byte type, ByteBuf buf, int start, int length) {
                if (type == 'Z' && from == checkLink) {
                    awaiting = false;
                    if (deadline != null) {
                        deadline.cancel(false);
                    }
                }
            }

            @Override
            public void readComplete(ServerLink from) {
            }

            @Override
            public void closed(ServerLink from, String why) {
                if (from == checkLink) {
                    checkLink = null;
                    awaiting = false;
                    if (deadline != null) {
                        deadline.cancel(false);
                    }
                }
            }
        });
    }

    private void dropCheckLink(String why) {
        ServerLink link = checkLink;
        checkLink = null;
        awaiting = false;
        if (link != null) {
            link.receiver(null);
            link.close(why);
        }
    }

    /** One attempt to log in while down; the first login that succeeds brings the data source back. */
    private void reconnect() {
        if (closed) {
            reconnecting = false;
            return;
        }
        ServerLink.connect(loop, channelClass, checkSpec).addListener(connected -> {
            if (closed) {
                reconnecting = false;
                if (connected.isSuccess()) {
                    ((ServerLink) connected.getNow()).close("the pool is closing");
                }
                return;
            }
            if (connected.isSuccess()) {
                reconnecting = false;
                adopt((ServerLink) connected.getNow());
                up();
                scheduleCheck();
                return;
            }
            String reason = reason(connected.cause());
            State now = state.get();
            if (!reason.equals(now.reason())) {
                // Still down, for another reason (a server that restarts: refused, then starting up): said once.
                state.set(new State(config.name(), false, now.since(), reason));
                LOG.info("data source {} is still down: {}", config.name(), reason);
            }
            backoffMillis = backoffMillis == 0 ? FIRST_BACKOFF_MILLIS
                    : Math.min(backoffMillis * 2, config.healthCheckIntervalMilliseconds() > 0
                            ? Math.max(FIRST_BACKOFF_MILLIS, config.healthCheckIntervalMilliseconds()) : MAX_BACKOFF_MILLIS);
            loop.schedule(this::reconnectSafely, backoffMillis, TimeUnit.MILLISECONDS);
        });
    }

    private void reconnectSafely() {
        try {
            reconnect();
        } catch (Throwable e) {
            LOG.error("data source {}: reconnecting failed unexpectedly: {}", config.name(), e.toString());
            loop.schedule(this::reconnectSafely, MAX_BACKOFF_MILLIS, TimeUnit.MILLISECONDS);
        }
    }

    private void up() {
        State before = state.get();
        state.set(new State(config.name(), true, Instant.now(), before.reason()));
        down = false;
        long seconds = (System.currentTimeMillis() - before.since().toEpochMilli()) / 1000;
        LOG.info("data source {} ({}) is up again after {} s down ({})", config.name(), checkSpec.address(), seconds,
                before.reason());
        for (Runnable each : upListeners) {
            try {
                each.run();
            } catch (RuntimeException e) {
                LOG.warn("data source {}: a listener of its return failed: {}", config.name(), e.toString());
            }
        }
    }

    /**
     * Runs {@code listener} each time the data source is up again after being down (not when its first check at start
     * succeeds), on the health's event loop: it must hand any real work to another thread.
     */
    public void onUp(Runnable listener) {
        upListeners.add(listener);
    }

    // ------------------------------------------------------------------ reasons

    /**
     * Whether a failed login says the data source cannot serve: everything but a server that is there and refuses
     * one more connection for want of resources (53xxx: too many clients, out of memory), which the connections it
     * has may still serve.
     */
    static boolean countsAgainst(Throwable cause) {
        return !(cause instanceof ServerLink.LoginRefused refused && refused.sqlState.startsWith("53"));
    }

    /**
     * Why a connection failed, in words for a log line and an error message: the operating system's words for a
     * socket error ({@code connection refused}), without the transport's wrapping ({@code finishConnect(..) failed
     * with error(-111): ...: /127.0.0.1:5432}); the server's own message for a refused login; a TLS failure as
     * {@link BackendTls} words it.
     */
    static String reason(Throwable cause) {
        String message = cause.getMessage();
        if (message == null || message.isEmpty()) {
            return cause.getClass().getSimpleName();
        }
        if (cause instanceof java.net.UnknownHostException) {
            return "unknown host " + message;
        }
        int native_ = message.indexOf(" failed with error(");
        if (native_ >= 0) {
            int colon = message.indexOf("): ", native_);
            if (colon >= 0) {
                message = message.substring(colon + 3);
            }
        }
        if (cause instanceof io.netty.channel.ConnectTimeoutException) {
            int colon = message.indexOf(": /");
            return colon >= 0 ? message.substring(0, colon) : message;
        }
        if (cause instanceof java.net.SocketException || cause instanceof io.netty.channel.unix.Errors.NativeIoException) {
            int address = message.lastIndexOf(": /");
            if (address >= 0) {
                message = message.substring(0, address);
            }
            message = Character.toLowerCase(message.charAt(0)) + message.substring(1);
        }
        return message;
    }
}
