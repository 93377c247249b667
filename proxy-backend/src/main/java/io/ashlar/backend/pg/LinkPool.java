package io.ashlar.backend.pg;

import io.ashlar.backend.config.DataSourceConfig;
import io.ashlar.backend.execute.ErrorFields;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * A data source's native backend connections: one {@link LoopPool} per event loop, so that a
 * session and the connections serving it share one thread and a statement crosses none, and no
 * lock is taken to borrow or return a connection. The data source's {@code maxPoolSize} bounds
 * the connections of all the loops together; {@code connectionTimeoutMilliseconds} bounds how
 * long a session waits for one (then SQLSTATE 53300), {@code idleTimeoutMilliseconds} how long
 * one stays idle beyond {@code minPoolSize}, {@code maxLifetimeMilliseconds} how long one lives.
 * A connection is lent only while its socket is open (a backend that ended it meanwhile closed it).
 *
 * <p>While the data source is down ({@link DataSourceHealth}) a borrow fails at once with 08006 and the reason;
 * going down fails the sessions waiting for a connection, closes the idle ones, and, when the data source stopped
 * answering altogether, the lent ones too.
 */
public final class LinkPool implements AutoCloseable {

    /** How long a loop keeps an idle connection that another loop's waiting session could use. */
    private static final long SPARE_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    private final DataSourceConfig config;
    private final ConnectSpec spec;
    private final Class<? extends Channel> channelClass;
    private final AtomicInteger total = new AtomicInteger();
    private final AtomicLong opened = new AtomicLong();
    private final ConcurrentHashMap<EventLoop, LoopPool> loops = new ConcurrentHashMap<>();
    /** The loop pools, for the per-release looks at the other loops (no iterator per look). */
    private final AtomicReference<LoopPool[]> all = new AtomicReference<>(new LoopPool[0]);
    /** Every open connection of every loop, for SHOW SERVERS (changed per connection made or closed, never per statement). */
    private final java.util.Set<ServerLink> openLinks = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;
    private final DataSourceHealth health;
    /** The ParameterStatus values of the first connection that logged in (server_version, ...); empty before. */
    private volatile Map<String, String> backendParameters = Map.of();

    /** What a borrower that would not wait ({@link LoopPool#tryAcquire}) is told when every connection is taken. */
    public static final ErrorFields BUSY = ErrorFields.error("53300", "every connection of the data source is in use");

    /** A pool whose health checks run on the back end's own loop ({@link BackendLoops}). */
    public LinkPool(DataSourceConfig config) {
        this(config, BackendLoops.group().next());
    }

    /**
     * @param checkLoop where the health checks and reconnects run (not a loop that serves clients: a burst there
     *        would delay a check's answer past its deadline)
     */
    public LinkPool(DataSourceConfig config, EventLoop checkLoop) {
        this(config, checkLoop, Transport.current());
    }

    /** A pool whose connections are of the given transport (the loops given it must be of the same). */
    LinkPool(DataSourceConfig config, EventLoop checkLoop, Transport transport) {
        this.config = config;
        this.spec = ConnectSpec.of(config);
        this.channelClass = transport.socketChannel();
        this.health = new DataSourceHealth(this, config, spec, channelClass, checkLoop);
    }

    /** Whether the data source answers, and since when; start its checks with {@link DataSourceHealth#start()}. */
    public DataSourceHealth health() {
        return health;
    }

    /** The ParameterStatus values a backend of this data source reported at login; empty until one logged in. */
    public Map<String, String> backendParameters() {
        return backendParameters;
    }

    void learnParameters(ServerLink link) {
        if (backendParameters.isEmpty()) {
            backendParameters = Map.copyOf(link.parameters());
        }
    }

    /** The data source went down: every loop fails its waiters and closes its idle connections (all of them if hung). */
    void dataSourceDown(String reason, boolean hung) {
        for (LoopPool each : all.get()) {
            if (each.loop.isShuttingDown()) {
                continue;
            }
            try {
                each.loop.execute(() -> each.dataSourceDown(reason, hung));
            } catch (java.util.concurrent.RejectedExecutionException stopped) {
                // The loop stopped meanwhile, closing its channels.
            }
        }
    }

    /**
     * The pool of the given event loop (sessions keep it: one lookup per session, none per
     * statement). The loop must be of the transport this proxy runs (epoll, or NIO).
     */
    public LoopPool on(EventLoop loop) {
        LoopPool result = loops.get(loop);
        return result != null ? result : loops.computeIfAbsent(loop, this::newLoopPool);
    }

    private LoopPool newLoopPool(EventLoop loop) {
        LoopPool result = new LoopPool(loop);
        all.updateAndGet(before -> {
            LoopPool[] after = Arrays.copyOf(before, before.length + 1);
            after[before.length] = result;
            return after;
        });
        return result;
    }

    public String name() {
        return config.name();
    }

    /** Whether the pool was closed (its data source is no longer used). */
    public boolean isClosed() {
        return closed;
    }

    /** Connections opened since the pool was made (each one a backend process). */
    public long opened() {
        return opened.get();
    }

    /** Connections open now, idle or lent, over every loop. */
    public int size() {
        return total.get();
    }

    /** Where the connections go and how they log in. */
    public ConnectSpec spec() {
        return spec;
    }

    /** The data source's settings. */
    public DataSourceConfig config() {
        return config;
    }

    /** The connections open now (logged in), idle or lent. */
    public java.util.List<ServerLink> links() {
        java.util.List<ServerLink> result = new java.util.ArrayList<>(openLinks.size());
        for (ServerLink each : openLinks) {
            if (each.isOpen()) {
                result.add(each);
            }
        }
        return result;
    }

    /**
     * The pool now, over every loop, for SHOW POOLS and SHOW STATS. The counts are read without stopping the loops
     * (see {@link LinkStats}): a moment old, never torn beyond that.
     */
    public Usage usage() {
        int idle = 0;
        int waiting = 0;
        int opening = 0;
        int held = 0;
        long oldestWait = 0;
        long now = System.nanoTime();
        LinkStats.Snapshot stats = LinkStats.Snapshot.ZERO;
        for (LoopPool each : all.get()) {
            idle += Math.max(0, each.idle.size());
            waiting += Math.max(0, each.waiters.size());
            opening += Math.max(0, each.opening);
            held += each.held;
            Waiter first = each.waiters.peekFirst();
            if (first != null) {
                oldestWait = Math.max(oldestWait, now - first.since);
            }
            stats = stats.plus(each.stats.snapshot());
        }
        int active = Math.max(0, held - idle - opening);
        return new Usage(active, idle, opening, waiting, oldestWait / 1000, total.get(), stats);
    }

    /** The backend's answer times of every loop, added up. */
    public io.ashlar.backend.metrics.Histogram.Sum queryTimes() {
        io.ashlar.backend.metrics.Histogram.Sum result = new io.ashlar.backend.metrics.Histogram.Sum();
        for (LoopPool each : all.get()) {
            result.add(each.stats.queryTimes());
        }
        return result;
    }

    /**
     * What {@link #usage()} found.
     *
     * @param active connections lent to sessions
     * @param idle connections idle in the pool
     * @param opening connections logging in
     * @param waiting sessions waiting for a connection
     * @param maxWaitMicros how long the longest of them has waited
     * @param total connections counted against {@code maxPoolSize}
     * @param stats what the connections did since the pool was made
     */
    public record Usage(int active, int idle, int opening, int waiting, long maxWaitMicros, int total,
                        LinkStats.Snapshot stats) {
    }

    @Override
    public void close() {
        closed = true;
        health.close();
        for (LoopPool each : all.get()) {
            if (each.loop.isShuttingDown()) {
                continue; // the loop closes its channels, these connections among them
            }
            try {
                each.loop.execute(each::closeIdle);
            } catch (java.util.concurrent.RejectedExecutionException stopped) {
                // The loop stopped meanwhile, closing its channels.
            }
        }
    }

    /** What a borrower is told: a connection, or why there is none. */
    public interface Borrower {
        void acquired(ServerLink link);

        void failed(ErrorFields error);
    }

    /**
     * The connections of one event loop. Every method runs on that loop: sessions of the loop
     * borrow and return here without any lock.
     */
    public final class LoopPool {
        private final EventLoop loop;
        private final ArrayDeque<ServerLink> idle = new ArrayDeque<>();
        private final ArrayDeque<Waiter> waiters = new ArrayDeque<>();
        /** Every connection of this loop that logged in and is not discarded yet: idle or lent. */
        private final java.util.HashSet<ServerLink> links = new java.util.HashSet<>();
        /** Logins under way, failed at once when the data source goes down. */
        private final java.util.HashSet<io.netty.util.concurrent.Promise<ServerLink>> connecting = new java.util.HashSet<>();
        private ScheduledFuture<?> sweeper;
        /** Connections of this loop: lent, idle or logging in (read by the other loops). */
        private volatile int held;
        private boolean giveUpScheduled;
        /** Connections logging in (read by admin commands). */
        private int opening;
        private final LinkStats stats = new LinkStats();

        private LoopPool(EventLoop loop) {
            this.loop = loop;
        }

        public String dataSourceName() {
            return config.name();
        }

        /** Runs a task on this pool's event loop (at once when called there, or by a session the loop carries). */
        public void execute(Runnable task) {
            if (LoopCarrier.runsOn(loop)) {
                task.run();
            } else {
                loop.execute(task);
            }
        }

        /** The pool this loop pool belongs to. */
        public LinkPool pool() {
            return LinkPool.this;
        }

        /**
         * Lends a connection: an idle one at once, else a new one once it logged in, else the
         * first one returned within the connection timeout.
         */
        public void acquire(Borrower borrower) {
            acquire(borrower, config.connectionTimeoutMilliseconds());
        }

        /**
         * Lends a connection when one can be had without waiting for another borrower to return one: an idle
         * one, else a new one once it logged in; else the borrower is told {@link #BUSY} at once. A statement that
         * needs connections of several data sources takes them so, and waits (holding none of them) only for one
         * that is busy: it never holds a connection of one data source while waiting for another's.
         */
        public void tryAcquire(Borrower borrower) {
            acquire(borrower, 0);
        }

        /**
         * Lends a connection as {@link #acquire} does, but waits at most {@code waitMillis} for one to be returned
         * (never longer than the connection timeout); past it the borrower is told {@link #BUSY}. A statement that
         * holds a connection of another data source waits so, for a moment only.
         */
        public void acquireWithin(Borrower borrower, long waitMillis) {
            acquire(borrower, Math.max(1, Math.min(waitMillis, config.connectionTimeoutMilliseconds())));
        }

        /**
         * An idle connection lent at once, or null when none is idle (none is opened or waited for): for work on the loop
         * itself, which must not wait (a session's statement run on its event loop), and falls back to a borrower that may.
         */
        public ServerLink pollIdle() {
            if (health.isDown() || closed) {
                return null;
            }
            long now = System.nanoTime();
            ServerLink link;
            while ((link = idle.pollFirst()) != null) {
                if (link.isOpen() && now - link.createdNanos < TimeUnit.MILLISECONDS.toNanos(config.maxLifetimeMilliseconds())) {
                    return link;
                }
                discard(link);
            }
            return null;
        }

        /** {@code waitMillis}: 0 to be told {@link #BUSY} at once when no connection can be had without waiting. */
        private void acquire(Borrower borrower, long waitMillis) {
            if (health.isDown()) {
                borrower.failed(health.downError());
                return;
            }
            long now = System.nanoTime();
            ServerLink link;
            while ((link = idle.pollFirst()) != null) {
                if (link.isOpen() && now - link.createdNanos < TimeUnit.MILLISECONDS.toNanos(config.maxLifetimeMilliseconds())) {
                    borrower.acquired(link);
                    return;
                }
                discard(link);
            }
            if (closed) {
                borrower.failed(ErrorFields.error("08006", "data source " + config.name() + " is closed"));
                return;
            }
            if (reserve()) {
                open(borrower, now);
                return;
            }
            if (waitMillis == 0) {
                stealFromOtherLoops();
                borrower.failed(BUSY);
                return;
            }
            boolean full = waitMillis >= config.connectionTimeoutMilliseconds();
            Waiter waiter = new Waiter(borrower, now);
            waiters.addLast(waiter);
            waiter.timeout = loop.schedule(() -> {
                if (waiter.answered) {
                    return;
                }
                if (waiters.remove(waiter)) {
                    waiter.answered = true;
                    borrower.failed(!full ? BUSY : ErrorFields.error("53300", "no connection of data source " + config.name()
                            + " came free within " + config.connectionTimeoutMilliseconds() + " ms (maxPoolSize "
                            + config.maxPoolSize() + " in use)", "Raise maxPoolSize, or shorten the transactions that hold them."));
                } else if (!full) {
                    return; // a connection is being opened for it: it waits for that, within the connection timeout
                } else if (waiter.opening) {
                    // A connection is being opened for it and the backend has not answered: the wait
                    // ends at its deadline all the same (the connection, if it comes, serves others).
                    waiter.answered = true;
                    borrower.failed(ErrorFields.error("08006", "could not connect to data source " + config.name()
                            + " (" + spec.host() + ":" + spec.port() + "/" + spec.database() + ") within "
                            + config.connectionTimeoutMilliseconds() + " ms"));
                }
            }, waitMillis, TimeUnit.MILLISECONDS);
            stealFromOtherLoops();
        }

        /**
         * Stops a borrower's wait (its statement was cancelled); false when it does not wait here
         * (it has its connection, or one is being opened for it).
         */
        public boolean cancelWait(Borrower borrower) {
            for (Iterator<Waiter> it = waiters.iterator(); it.hasNext(); ) {
                Waiter waiter = it.next();
                if (waiter.borrower == borrower) {
                    it.remove();
                    waiter.answered = true;
                    waiter.timeout.cancel(false);
                    return true;
                }
            }
            return false;
        }

        /**
         * Takes a connection back: to the next waiter, or idle. A connection that is closed, or
         * not idle at a transaction boundary, is closed instead (its state is unknown).
         */
        public void release(ServerLink link) {
            link.receiver(null);
            if (!link.isOpen() || link.status() != 'I' || closed || link.cancelPending()) {
                // A cancel that did not land yet would end the next borrower's statement instead.
                discard(link);
                return;
            }
            // A borrower that paused reading (its client could not take more) may return it so:
            // the next one would wait for an answer nobody reads.
            link.autoRead(true);
            Waiter waiter = waiters.pollFirst();
            if (waiter != null) {
                waiter.answered = true;
                waiter.timeout.cancel(false);
                waited(waiter.since);
                if (loop.inEventLoop()) {
                    waiter.borrower.acquired(link);
                } else {
                    // Returned by a session the loop carries (LoopCarrier): the waiter is told on the loop's own thread,
                    // as always. A relayed session writes to its channels as it is told, and Netty would queue writes
                    // made from the virtual thread behind the ones the loop makes at once: out of order.
                    loop.execute(() -> waiter.borrower.acquired(link));
                }
                return;
            }
            boolean othersWait = othersWait();
            if (othersWait && held > fairShare()) {
                // A session of another loop waits, this loop has nobody and more than its share: make room there.
                discard(link);
                return;
            }
            link.idleSinceNanos = System.nanoTime();
            idle.addFirst(link);
            scheduleSweep();
            if (othersWait) {
                giveUpIdle(); // within its share: given up if this loop leaves it idle a while
            }
        }

        /**
         * The connections a loop keeps while other loops wait: maxPoolSize shared evenly by the
         * loops that use the data source (hold a connection or wait for one). A busy loop that
         * holds no more than that is not asked to close connections it will need again within
         * microseconds (closing one and logging in another costs a backend process).
         */
        private int fairShare() {
            int using = 0;
            for (LoopPool each : all.get()) {
                if (each == this || each.held > 0 || !each.waiters.isEmpty()) {
                    using++;
                }
            }
            return (config.maxPoolSize() + using - 1) / using;
        }

        /** Closes a connection for good (broken, or its state unknown) and lets a waiter have a new one. */
        public void discard(ServerLink link) {
            links.remove(link);
            openLinks.remove(link);
            link.receiver(null);
            link.close("discarded by the pool");
            unreserve();
            if (!waiters.isEmpty()) {
                serveWaiter();
            } else {
                for (LoopPool other : all.get()) {
                    if (other != this && !other.waiters.isEmpty()) {
                        other.loop.execute(other::serveWaiter);
                        break;
                    }
                }
            }
        }

        private void serveWaiter() {
            if (health.isDown()) {
                return;
            }
            Waiter waiter = waiters.peekFirst();
            if (waiter != null && reserve()) {
                waiters.pollFirst();
                openFor(waiter);
            }
        }

        private boolean othersWait() {
            for (LoopPool other : all.get()) {
                if (other != this && !other.waiters.isEmpty()) {
                    return true;
                }
            }
            return false;
        }

        /** All connections are taken and some sit idle on other loops: those loops give one up. */
        private void stealFromOtherLoops() {
            for (LoopPool other : all.get()) {
                if (other != this) {
                    other.loop.execute(other::giveUpIdle);
                }
            }
        }

        /**
         * Another loop waits: closes an idle connection of this one to make room there, at once if
         * this loop holds more than its share, else once the connection sat idle for
         * {@link #SPARE_NANOS} (this loop has not needed it meanwhile).
         */
        private void giveUpIdle() {
            ServerLink link = idle.peekLast();
            if (link == null || !othersWait()) {
                return;
            }
            long idleFor = System.nanoTime() - link.idleSinceNanos;
            if (held > fairShare() || idleFor >= SPARE_NANOS) {
                idle.pollLast();
                discard(link);
            } else if (!giveUpScheduled) {
                giveUpScheduled = true;
                loop.schedule(() -> {
                    giveUpScheduled = false;
                    giveUpIdle();
                }, SPARE_NANOS - idleFor, TimeUnit.NANOSECONDS);
            }
        }

        private boolean reserve() {
            while (true) {
                int now = total.get();
                if (now >= config.maxPoolSize()) {
                    return false;
                }
                if (total.compareAndSet(now, now + 1)) {
                    held++;
                    return true;
                }
            }
        }

        private void unreserve() {
            held--;
            total.decrementAndGet();
        }

        /**
         * Opens a connection for a waiter, within the waiter's own deadline: a connect that fails
         * or outlasts it does not start the wait again (waiters waited up to twice the connection
         * timeout behind a backend that did not answer).
         */
        private void openFor(Waiter waiter) {
            waiter.opening = true;
            open(new Borrower() {
                @Override
                public void acquired(ServerLink link) {
                    if (waiter.answered) {
                        release(link);
                        return;
                    }
                    waiter.answered = true;
                    waiter.timeout.cancel(false);
                    waited(waiter.since);
                    waiter.borrower.acquired(link);
                }

                @Override
                public void failed(ErrorFields error) {
                    if (!waiter.answered) {
                        waiter.answered = true;
                        waiter.timeout.cancel(false);
                        waiter.borrower.failed(error);
                    }
                }
            }, 0);
        }

        /** A borrow that waited since {@code since} got its connection. */
        private void waited(long since) {
            stats.waits++;
            stats.waitNanos += System.nanoTime() - since;
        }

        /** Opens a connection; {@code since}: when the borrower began to wait for it (0: a waiter's, counted there). */
        private void open(Borrower borrower, long since) {
            opened.incrementAndGet();
            io.netty.util.concurrent.Promise<ServerLink> login = ServerLink.connect(loop, channelClass, spec);
            connecting.add(login);
            opening++;
            login.addListener(connected -> {
                connecting.remove(login);
                opening--;
                if (connected.isSuccess()) {
                    ServerLink link = (ServerLink) connected.getNow();
                    link.owner(this);
                    link.stats = stats;
                    links.add(link);
                    openLinks.add(link);
                    learnParameters(link);
                    if (since != 0) {
                        waited(since);
                    }
                    borrower.acquired(link);
                } else {
                    unreserve();
                    Throwable cause = connected.cause();
                    String reason = DataSourceHealth.reason(cause);
                    if (DataSourceHealth.countsAgainst(cause)) {
                        health.lost(reason, false);
                    }
                    borrower.failed(ErrorFields.error("08006", "could not connect to data source " + config.name()
                            + " (" + spec.address() + "): " + reason));
                    if (!health.isDown()) {
                        serveWaiter();
                    }
                }
            });
        }

        /**
         * The data source went down: sessions waiting for a connection and logins under way fail at once, idle
         * connections close; {@code hung}: so do the lent ones, whose statements would wait for ever.
         */
        private void dataSourceDown(String reason, boolean hung) {
            for (Waiter waiter = waiters.pollFirst(); waiter != null; waiter = waiters.pollFirst()) {
                waiter.answered = true;
                waiter.timeout.cancel(false);
                waiter.borrower.failed(health.downError());
            }
            for (ServerLink link = idle.pollFirst(); link != null; link = idle.pollFirst()) {
                discard(link);
            }
            for (io.netty.util.concurrent.Promise<ServerLink> login : List.copyOf(connecting)) {
                login.tryFailure(new java.net.ConnectException("data source " + config.name() + " is down: " + reason));
            }
            if (hung) {
                for (ServerLink link : List.copyOf(links)) {
                    link.close("data source " + config.name() + " is down: " + reason);
                }
            }
        }

        private void scheduleSweep() {
            if (sweeper == null) {
                long period = Math.max(1000, Math.min(config.idleTimeoutMilliseconds(), 30_000) / 2);
                sweeper = loop.scheduleAtFixedRate(this::sweep, period, period, TimeUnit.MILLISECONDS);
            }
        }

        /** Closes connections idle past the idle timeout (beyond minPoolSize) or older than their lifetime. */
        private void sweep() {
            try {
                sweepIdle();
            } catch (Throwable e) {
                // A periodic task that throws is never run again: the pool would keep stale connections for good.
                org.slf4j.LoggerFactory.getLogger(LinkPool.class).error("data source {}: sweeping idle connections failed: {}",
                        config.name(), e.toString());
            }
        }

        private void sweepIdle() {
            long now = System.nanoTime();
            long idleLimit = TimeUnit.MILLISECONDS.toNanos(config.idleTimeoutMilliseconds());
            long lifeLimit = TimeUnit.MILLISECONDS.toNanos(config.maxLifetimeMilliseconds());
            for (Iterator<ServerLink> it = idle.descendingIterator(); it.hasNext(); ) {
                ServerLink link = it.next();
                boolean expired = now - link.createdNanos >= lifeLimit;
                boolean stale = now - link.idleSinceNanos >= idleLimit && total.get() > config.minPoolSize();
                if (expired || stale || !link.isOpen()) {
                    it.remove();
                    discard(link);
                }
            }
        }

        private void closeIdle() {
            for (ServerLink link = idle.pollFirst(); link != null; link = idle.pollFirst()) {
                links.remove(link);
                openLinks.remove(link);
                link.close("the pool is closing");
                unreserve();
            }
            if (sweeper != null) {
                sweeper.cancel(false);
            }
            for (Waiter waiter = waiters.pollFirst(); waiter != null; waiter = waiters.pollFirst()) {
                waiter.answered = true;
                waiter.timeout.cancel(false);
                waiter.borrower.failed(ErrorFields.error("08006", "data source " + config.name() + " is closed"));
            }
        }
    }

    /** A session waiting for a connection. */
    private static final class Waiter {
        final Borrower borrower;
        /** When it began to wait (System.nanoTime). */
        final long since;
        ScheduledFuture<?> timeout;
        /** Told already: given a connection, failed, or timed out (its loop's field, no lock). */
        boolean answered;
        /** A connection is being opened for it. */
        boolean opening;

        Waiter(Borrower borrower, long since) {
            this.borrower = borrower;
            this.since = since;
        }
    }

    /** Helper for tests: borrows on the loop and hands the result to a callback. */
    static void borrow(LoopPool pool, Consumer<ServerLink> acquired, Consumer<ErrorFields> failed) {
        pool.loop.execute(() -> pool.acquire(new Borrower() {
            @Override
            public void acquired(ServerLink link) {
                acquired.accept(link);
            }

            @Override
            public void failed(ErrorFields error) {
                failed.accept(error);
            }
        }));
    }
}
