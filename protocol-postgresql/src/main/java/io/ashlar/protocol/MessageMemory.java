package io.ashlar.protocol;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The memory clients' messages may take in the proxy, shared by every connection of one proxy. A
 * proxy that reads a whole message before it passes it on (PostgreSQL itself does the same) holds
 * it while it arrives and until its session has taken it; PostgreSQL takes messages of up to 1 GB
 * ({@code PQ_LARGE_MESSAGE_LIMIT}, which the decoder keeps as PostgreSQL does: a longer length is
 * broken framing), and three clients sending 500 MB each would take a proxy's heap and direct memory.
 * So:
 * <ul>
 * <li>one message may hold at most {@link #maxMessage()} bytes, a statement's memory budget in the
 * proxy ({@code proxy-statement-memory-limit}, the budget its in-memory merges have);</li>
 * <li>all clients' large messages together may hold at most {@link #limit()} bytes.</li>
 * </ul>
 * A message past either is answered with 53200 {@code out of memory}, PostgreSQL's answer to a
 * message it cannot allocate: its bytes are read and dropped as they come (nothing is held for it)
 * and the session answers the ERROR at its place, as PostgreSQL's {@code pq_getmessage} does when
 * the allocation fails; the client's session and everyone else's go on.
 *
 * <p>Only messages over {@value #COUNTED_FROM} bytes are counted (one receive buffer of
 * PostgreSQL's, {@code PQ_RECV_BUFFER_SIZE}): the statements of nearly every client are smaller and
 * cost no shared counter. What a message costs beyond its bytes (the text decoded from it, the
 * copy written to a data source: up to about three times its size while it passes) is the reason
 * the default limit is a fraction of the heap.
 */
public final class MessageMemory {

    /** Messages up to this many bytes (type byte and length included) are not counted. */
    public static final int COUNTED_FROM = 8192;

    /** PostgreSQL's {@code PQ_LARGE_MESSAGE_LIMIT}: no message is ever larger. */
    public static final long POSTGRESQL_MAX_MESSAGE = PgFrontendDecoder.PQ_LARGE_MESSAGE_LIMIT;

    private static final MessageMemory UNLIMITED = new MessageMemory(POSTGRESQL_MAX_MESSAGE, Long.MAX_VALUE);

    private final long maxMessage;
    private final long limit;
    private final AtomicLong held = new AtomicLong();

    /**
     * @param maxMessage the most bytes one message may hold, as its length field counts them (a
     *        statement's memory budget; PostgreSQL's 1 GB - 1 at most)
     * @param limit the most bytes all clients' counted messages may hold at once
     */
    public MessageMemory(long maxMessage, long limit) {
        if (maxMessage < COUNTED_FROM || limit < COUNTED_FROM) {
            throw new IllegalArgumentException("message memory limits below " + COUNTED_FROM + " bytes: " + maxMessage
                    + ", " + limit);
        }
        this.maxMessage = Math.min(Math.min(maxMessage, limit), POSTGRESQL_MAX_MESSAGE);
        this.limit = limit;
    }

    /** No limit but PostgreSQL's own: for decoders of tests and tools. */
    public static MessageMemory unlimited() {
        return UNLIMITED;
    }

    /**
     * The most bytes one message may have, counted as its length field counts them (itself and the
     * body, as PostgreSQL's limits are): the smaller of the configured size and {@link #limit()}.
     */
    public long maxMessage() {
        return maxMessage;
    }

    public long limit() {
        return limit;
    }

    /** Bytes counted now. */
    public long held() {
        return held.get();
    }

    boolean reserve(long bytes) {
        long now;
        do {
            now = held.get();
            if (now + bytes > limit) {
                return false;
            }
        } while (!held.compareAndSet(now, now + bytes));
        return true;
    }

    void release(long bytes) {
        held.addAndGet(-bytes);
    }

    /** The account of one client connection. */
    public Client client() {
        return new Client(this);
    }

    /**
     * One connection's counted messages: the one arriving (reserved by the decoder on the event
     * loop) and those decoded and not yet taken by the session, in order. A session takes messages
     * in the order they were decoded and says so with {@link #taken}; for a message that was not
     * counted that is one look at an empty queue.
     */
    public static final class Client {

        /** Compared by identity: a message's own equals may read all of it. */
        private static final class Held {
            final FrontendMessage message;
            final long bytes;

            Held(FrontendMessage message, long bytes) {
                this.message = message;
                this.bytes = bytes;
            }
        }

        private final MessageMemory shared;
        private final ConcurrentLinkedQueue<Held> decoded = new ConcurrentLinkedQueue<>();
        /** Bytes reserved for the frame being received; touched by the decoder's thread only. */
        private long arriving;
        private volatile boolean closed;

        private Client(MessageMemory shared) {
            this.shared = shared;
        }

        MessageMemory shared() {
            return shared;
        }

        /**
         * Reserves the bytes of a frame that starts to arrive ({@code length} as its header says,
         * counting itself); null when they are reserved, else the answer to give instead.
         */
        FrontendMessage.TooLarge reserveArriving(byte type, int length) {
            long frame = 1L + length;
            if (length > shared.maxMessage) {
                // PostgreSQL's detail when palloc fails ("Failed on request of size N in memory context ...").
                return new FrontendMessage.TooLarge(type, length, FrontendMessage.TooLarge.OUT_OF_MEMORY,
                        "Failed on request of size " + frame + ": a client's message may hold at most "
                                + shared.maxMessage + " bytes in Ashlar (proxy-statement-memory-limit).",
                        "Send the data in smaller pieces (COPY FROM STDIN, or several statements), or raise the limit.");
            }
            if (closed || !shared.reserve(frame)) {
                return new FrontendMessage.TooLarge(type, length, FrontendMessage.TooLarge.OUT_OF_MEMORY,
                        "Failed on request of size " + frame + ": clients' messages being received hold "
                                + shared.held() + " of the " + shared.limit + " bytes Ashlar keeps for them.",
                        "Try again once other clients' large messages are through.");
            }
            arriving = frame;
            return null;
        }

        /** The frame whose bytes were reserved became {@code message}: counted until the session takes it. */
        void decoded(FrontendMessage message) {
            if (arriving == 0) {
                return;
            }
            long bytes = arriving;
            arriving = 0;
            Held held = new Held(message, bytes);
            decoded.add(held);
            if (closed && decoded.remove(held)) {
                shared.release(bytes);
            }
        }

        /** The session took over {@code message} (it passed it on, or is done with it). */
        public void taken(FrontendMessage message) {
            Held head = decoded.peek();
            if (head != null && head.message == message && decoded.remove(head)) {
                shared.release(head.bytes);
            }
        }

        /** The connection is gone: nothing of it is held any more. */
        public void close() {
            closed = true;
            if (arriving > 0) {
                shared.release(arriving);
                arriving = 0;
            }
            for (Held each = decoded.poll(); each != null; each = decoded.poll()) {
                shared.release(each.bytes);
            }
        }
    }
}
