package io.ashlar.backend.pg;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;

/**
 * Carries a backend's answers from a {@link ServerLink}'s event loop to a session that waits for
 * them in a plain method call: the loop copies each read's frames into one buffer and hands it
 * over; the session's thread takes the buffers in order and reads the frames itself. An exchange
 * ends after the number of ReadyForQuery messages it expects.
 *
 * <p>Back-pressure: past {@value #PAUSE_BYTES} bytes not yet taken, the link stops reading from
 * the backend until the session has caught up.
 */
public final class LinkCall implements ServerLink.Receiver {

    private static final long PAUSE_BYTES = 4L << 20;
    private static final java.lang.invoke.VarHandle QUEUED;

    static {
        try {
            QUEUED = java.lang.invoke.MethodHandles.lookup().findVarHandle(LinkCall.class, "queued", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final ConcurrentLinkedQueue<ByteBuf> batches = new ConcurrentLinkedQueue<>();
    /** Bytes handed over and not taken yet; changed through {@link #QUEUED} (a field, not an AtomicLong: one object less per lend). */
    @SuppressWarnings("unused")
    private volatile long queued;
    private ByteBuf pending;
    private int readiesLeft;
    /** Portal exchanges (no Sync): the frames that end one, counted down; -1 for exchanges that end at ReadyForQuery. */
    private int terminalsLeft = -1;
    private volatile boolean finished = true;
    private volatile String closedReason;
    private volatile Thread waiter;
    private volatile boolean paused;
    private ServerLink link;
    /** Told on the loop when a NotificationResponse arrived between exchanges ({@link #onAsync}); null: nobody is. */
    private volatile Runnable asyncSignal;
    /** A NotificationResponse arrived between exchanges in the frames not handed over yet. */
    private boolean asyncPending;

    /** Before the request goes out: the exchange ends at this many ReadyForQuery messages. */
    public void expect(ServerLink link, int readies) {
        this.link = link;
        this.readiesLeft = readies;
        this.terminalsLeft = -1;
        this.finished = false;
    }

    /**
     * Before a request of portal Executes ended by a Flush rather than a Sync (a merge reading
     * several portals of one connection in turns): the exchange ends after this many frames that
     * end an Execute or a simple query's statement (PortalSuspended, CommandComplete,
     * EmptyQueryResponse), or at the first ErrorResponse (the backend then ignores everything up to
     * a Sync).
     */
    public void expectPortals(ServerLink link, int terminals) {
        this.link = link;
        this.readiesLeft = -1;
        this.terminalsLeft = terminals;
        this.finished = false;
    }

    /**
     * Whom to tell (on the link's event loop) when the backend sends a NotificationResponse while no exchange runs:
     * a session that LISTENs on this connection reads it then ({@code BackendConnection.relayAsync}) instead of after
     * its next statement. Null to stop.
     */
    public void onAsync(Runnable signal) {
        this.asyncSignal = signal;
    }

    /** Whether no exchange runs: every answer expected came (what arrives now came of itself). */
    public boolean idle() {
        return finished;
    }

    // ------------------------------------------------------------------ the link's event loop

    @Override
    public void message(ServerLink from, byte type, ByteBuf buf, int start, int length) {
        ByteBuf out = pending;
        if (out == null) {
            // Room for the rest of this read: a batch's thousands of small answers would
            // otherwise grow the buffer (and copy it) many times.
            out = Unpooled.buffer(Math.max(256, buf.writerIndex() - start));
            pending = out;
        }
        out.writeBytes(buf, start, length);
        if (type == 'A' && finished) {
            asyncPending = true;
        }
        if (terminalsLeft < 0 ? type == 'Z' && --readiesLeft == 0
                : type == 'E' || ((type == 's' || type == 'C' || type == 'I') && --terminalsLeft == 0)) {
            handOver(true);
        }
    }

    @Override
    public void readComplete(ServerLink from) {
        handOver(false);
    }

    @Override
    public void closed(ServerLink from, String reason) {
        closedReason = reason;
        handOver(true);
    }

    /** Adds {@code bytes} (taken: negative) to what is queued; what is queued after. */
    private long queue(long bytes) {
        return (long) QUEUED.getAndAdd(this, bytes) + bytes;
    }

    private void handOver(boolean end) {
        ByteBuf out = pending;
        if (out != null) {
            pending = null;
            batches.add(out);
            if (queue(out.readableBytes()) > PAUSE_BYTES && !paused) {
                paused = true;
                link.autoRead(false);
            }
        }
        if (end) {
            finished = true;
        }
        Thread thread = waiter;
        if (thread != null && (out != null || end)) {
            LockSupport.unpark(thread);
        }
        if (asyncPending) {
            asyncPending = false;
            Runnable signal = asyncSignal;
            if (signal != null) {
                signal.run();
            }
        }
    }

    // ------------------------------------------------------------------ the session's thread

    /**
     * The next buffer of frames, waiting for it; null once the exchange has ended and every
     * buffer was taken.
     */
    public ByteBuf take() {
        while (true) {
            ByteBuf result = batches.poll();
            if (result != null) {
                if (queue(-result.readableBytes()) < PAUSE_BYTES / 2 && paused) {
                    paused = false;
                    link.autoRead(true);
                }
                return result;
            }
            if (finished) {
                result = batches.poll();
                if (result == null) {
                    return null;
                }
                queue(-result.readableBytes());
                return result;
            }
            waiter = Thread.currentThread();
            if (batches.isEmpty() && !finished) {
                LockSupport.park(this);
            }
            waiter = null;
        }
    }

    /** Why the connection ended, or null while it is open. */
    public String closedReason() {
        return closedReason;
    }
}
