package io.ashlar.frontend.session;

import io.ashlar.protocol.FrontendMessage;
import io.ashlar.protocol.MessageMemory;
import io.ashlar.protocol.Query;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * The client's messages on their way from the event loop to the session's thread. The event loop
 * adds what it decoded from one read of the socket at once, so that the session sees a client's
 * pipeline (Bind, Execute, ..., Sync) whole and is woken once; the session's thread (a virtual
 * thread, started with the first message) takes them in order and parks while there are none.
 * One hand-off per read each way, and no thread made per message.
 *
 * <p>The session may also look at what has arrived without taking it (whether a Describe or a
 * Sync follows, a batch's rows) and wait for more of a pipeline still on its way
 * ({@link #awaitMessagesAfter}).
 *
 * <p>A large message is counted in the proxy's {@link MessageMemory} from its arrival until the
 * session is done with it: the session says so ({@link #done}), or takes the next message.
 *
 * <p>One thread adds (the client's event loop), one takes (the session's).
 */
final class SessionInbox implements Iterable<FrontendMessage> {

    /** Marks the end of the client's connection among its messages. */
    static final FrontendMessage CLIENT_GONE = new Query("\0client gone");

    /** What {@link #takeOrStop()} answers when the proxy's stop asked the session to end once idle. */
    static final FrontendMessage STOP = new Query("\0stop");

    /** What {@link #takeOrStop()} answers when a backend connection the session keeps sent something of itself (a NOTIFY). */
    static final FrontendMessage BACKEND_ASYNC = new Query("\0backend async");

    private final ConcurrentLinkedQueue<FrontendMessage> queue = new ConcurrentLinkedQueue<>();
    private final ThreadFactory threads;
    private final Runnable session;
    private final AtomicBoolean started = new AtomicBoolean();
    /** How many messages have been added (written by the adding thread only). */
    private volatile long received;
    private volatile Thread waiter;
    /** The proxy's stop asked the session to end once idle ({@link #askStop()}); cleared when answered. */
    private volatile boolean stopAsked;
    /** A kept backend connection received a notification ({@link #signalAsync()}); cleared when answered. */
    private volatile boolean asyncArrived;
    /** This client's account of large messages (the session thread's, once it starts). */
    private MessageMemory.Client memory = MessageMemory.unlimited().client();
    /** The message {@link #take()} returned last (the session thread's own). */
    private FrontendMessage lastTaken = CLIENT_GONE;

    /**
     * @param threads makes the session's thread
     * @param session what that thread runs: it takes the messages until the session ends
     */
    SessionInbox(ThreadFactory threads, Runnable session) {
        this.threads = threads;
        this.session = session;
    }

    /** The client's account of large messages; set before the first message is added. */
    void memory(MessageMemory.Client clientMemory) {
        this.memory = clientMemory;
    }

    /** One message (on the event loop). */
    void add(FrontendMessage message) {
        queue.add(message);
        received++;
        wake();
    }

    /** The messages of one read from the socket (on the event loop). */
    void addAll(List<FrontendMessage> messages) {
        queue.addAll(messages);
        received += messages.size();
        wake();
    }

    /**
     * The session's thread saw the client's end while it waited for something else (COPY data):
     * the end is put back for the session's loop to see, not counted as a message.
     */
    void putBackClientGone() {
        queue.add(CLIENT_GONE);
    }

    private void wake() {
        if (!started.get() && started.compareAndSet(false, true)) {
            threads.newThread(session).start();
        } else {
            unparkWaiter();
        }
    }

    private void unparkWaiter() {
        Thread parked = waiter;
        if (parked != null) {
            LockSupport.unpark(parked);
        }
    }

    /** Whether the session's thread was started (by the first message). */
    boolean started() {
        return started.get();
    }

    /** The proxy stops: the session's loop is to look at whether it may end ({@link #takeOrStop()}). */
    void askStop() {
        stopAsked = true;
        unparkWaiter();
    }

    /** A backend connection the session keeps received a notification (on its event loop): the idle session relays it. */
    void signalAsync() {
        asyncArrived = true;
        unparkWaiter();
    }

    /**
     * As {@link #take()}, for the session's loop: {@link #BACKEND_ASYNC} when no message is here and a kept backend
     * connection received something since the last one; {@link #STOP} when no message is here and the proxy's stop asked
     * since the last STOP, so that the session ends itself with nothing of its own still queued to its client.
     */
    FrontendMessage takeOrStop() {
        return next(true);
    }

    /** The next message, waiting for it if none is here (on the session's thread). */
    FrontendMessage take() {
        return next(false);
    }

    private FrontendMessage next(boolean stoppable) {
        // The message taken before is done with (a COPY takes its data here, not in the session's loop).
        memory.taken(lastTaken);
        while (true) {
            FrontendMessage message = queue.poll();
            if (message != null) {
                lastTaken = message;
                return message;
            }
            if (stoppable && asyncArrived) {
                asyncArrived = false;
                lastTaken = BACKEND_ASYNC;
                return BACKEND_ASYNC;
            }
            if (stoppable && stopAsked) {
                stopAsked = false;
                lastTaken = STOP;
                return STOP;
            }
            waiter = Thread.currentThread();
            if (queue.isEmpty() && !(stoppable && (stopAsked || asyncArrived))) {
                LockSupport.park(this);
            }
            waiter = null;
        }
    }

    /** How many messages have arrived so far. */
    long received() {
        return received;
    }

    /** Waits until the client's messages after the {@code seen}th have arrived. */
    void awaitMessagesAfter(long seen) {
        while (received == seen) {
            waiter = Thread.currentThread();
            if (received == seen) {
                LockSupport.park(this);
            }
            waiter = null;
        }
    }

    /** The next message without taking it, or null. */
    FrontendMessage peek() {
        return queue.peek();
    }

    /** Takes the next message without waiting (one the session already looked at and is done with). */
    FrontendMessage poll() {
        FrontendMessage result = queue.poll();
        memory.taken(result);
        return result;
    }

    /** The session is done with {@code message}, the one it took last: it is no longer counted. */
    void done(FrontendMessage message) {
        memory.taken(message);
    }

    boolean isEmpty() {
        return queue.isEmpty();
    }

    /** The messages here now, in order, without taking them. */
    @Override
    public Iterator<FrontendMessage> iterator() {
        return queue.iterator();
    }
}
