package io.ashlar.backend.datasource;

import io.ashlar.backend.execute.ErrorFields;
import io.ashlar.backend.pg.LinkCall;
import io.ashlar.backend.pg.LinkPool;
import io.ashlar.backend.pg.ServerLink;
import io.netty.channel.EventLoop;
import java.sql.SQLException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * Borrows the connections a statement needs on several data sources, without ever holding one of them while it
 * waits for another. Borrowed one after another, a statement held ds_0's connection while it waited for ds_1's:
 * with ds_1 slow or down, the sessions waiting there held every connection of ds_0, and statements that needed
 * only ds_0 starved behind them (6 in 40 s against 768 with ds_1 stopped).
 *
 * <p>So: every data source is asked at once for a connection it can lend without waiting (an idle one, or a new
 * one); when they all have one, done. When one is busy (all its connections lent), what the others lent goes back
 * at once, to serve whoever waits for them, and the statement waits for the busy one alone, holding nothing else;
 * then it asks the others again, now waiting for each at most {@link #HOLDING_WAIT_MILLIS} while it holds the one
 * it waited for (asked without any wait, it lost them again and again to the sessions queued there: three
 * statements across two data sources ran at a tenth of their rate, and every session paused a second at times).
 * A data source that is down answers at once (08006), and so does the statement. The waits are each bounded by the
 * data source's connection timeout, and all of them together by the longest of those.
 */
public final class BackendConnections {

    /** How long a statement that holds a connection waits for another data source's before it lets go of it. */
    static final long HOLDING_WAIT_MILLIS = 100;

    private BackendConnections() {
    }

    /**
     * What {@link #borrowAll} got.
     *
     * @param connections one connection per data source asked for, in order; null when one could not be had
     * @param failed the index of the data source none could be had of, or -1
     * @param error why, or null
     */
    public record Borrowed(BackendConnection[] connections, int failed, ErrorFields error) {
    }

    /** Borrows one connection of each of {@code dataSources} on {@code loop}'s pools (the caller's loop), as above. */
    public static Borrowed borrowAll(BackendDataSource[] dataSources, EventLoop loop) {
        int n = dataSources.length;
        LinkPool.LoopPool[] pools = new LinkPool.LoopPool[n];
        long timeoutNanos = 0;
        for (int i = 0; i < n; i++) {
            pools[i] = dataSources[i].links().on(loop);
            timeoutNanos = Math.max(timeoutNanos, TimeUnit.MILLISECONDS.toNanos(dataSources[i].config().connectionTimeoutMilliseconds()));
        }
        long deadline = System.nanoTime() + timeoutNanos;
        BackendConnection[] result = new BackendConnection[n];
        boolean holding = false;
        while (true) {
            boolean wait = holding;
            Round round = new Round(n, Thread.currentThread());
            boolean[] asked = new boolean[n];
            for (int i = 0; i < n; i++) {
                asked[i] = result[i] == null;
                if (!asked[i]) {
                    round.answers.decrementAndGet();
                }
            }
            pools[0].execute(() -> {
                for (int i = 0; i < n; i++) {
                    if (!asked[i]) {
                        continue;
                    }
                    if (wait) {
                        pools[i].acquireWithin(round.slot(i), HOLDING_WAIT_MILLIS);
                    } else {
                        pools[i].tryAcquire(round.slot(i));
                    }
                }
            });
            round.await();
            int busy = -1;
            for (int i = 0; i < n; i++) {
                if (!asked[i]) {
                    continue;
                }
                if (round.links[i] != null) {
                    result[i] = BackendConnection.lent(dataSources[i], pools[i], round.links[i], round.calls[i]);
                } else if (round.errors[i] == LinkPool.BUSY) {
                    busy = busy < 0 ? i : busy;
                } else {
                    // Down, or a login refused: the statement fails at once; what the others lent goes back.
                    for (int j = i + 1; j < n; j++) {
                        if (asked[j] && round.links[j] != null) {
                            result[j] = BackendConnection.lent(dataSources[j], pools[j], round.links[j], round.calls[j]);
                        }
                    }
                    releaseAll(result);
                    return new Borrowed(null, i, round.errors[i]);
                }
            }
            if (busy < 0) {
                return new Borrowed(result, -1, null);
            }
            releaseAll(result);
            if (System.nanoTime() - deadline > 0) {
                return new Borrowed(null, busy, ErrorFields.error("53300", "no connection of data source "
                        + dataSources[busy].name() + " came free within " + TimeUnit.NANOSECONDS.toMillis(timeoutNanos)
                        + " ms while the statement waited for each of its data sources in turn",
                        "Raise maxPoolSize, or shorten the transactions that hold them."));
            }
            try {
                result[busy] = BackendConnection.borrow(dataSources[busy], pools[busy]);
                holding = true;
            } catch (SQLException e) {
                return new Borrowed(null, busy, ErrorFields.from(e));
            }
        }
    }

    private static void releaseAll(BackendConnection[] connections) {
        for (int i = 0; i < connections.length; i++) {
            if (connections[i] != null) {
                connections[i].release();
                connections[i] = null;
            }
        }
    }

    /** One ask of every data source still missing: the answers, and the thread that waits for them. */
    private static final class Round {
        final ServerLink[] links;
        final LinkCall[] calls;
        final ErrorFields[] errors;
        final AtomicInteger answers;
        final Thread waiter;

        Round(int n, Thread waiter) {
            this.links = new ServerLink[n];
            this.calls = new LinkCall[n];
            this.errors = new ErrorFields[n];
            this.answers = new AtomicInteger(n);
            this.waiter = waiter;
        }

        LinkPool.Borrower slot(int i) {
            LinkCall call = new LinkCall();
            calls[i] = call;
            return new LinkPool.Borrower() {
                @Override
                public void acquired(ServerLink link) {
                    link.receiver(call);
                    links[i] = link;
                    answered();
                }

                @Override
                public void failed(ErrorFields error) {
                    errors[i] = error;
                    answered();
                }
            };
        }

        private void answered() {
            if (answers.decrementAndGet() == 0 && waiter != Thread.currentThread()) {
                LockSupport.unpark(waiter);
            }
        }

        void await() {
            while (answers.get() > 0) {
                LockSupport.park(this);
            }
        }
    }
}
