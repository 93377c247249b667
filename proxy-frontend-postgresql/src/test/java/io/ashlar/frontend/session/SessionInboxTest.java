package io.ashlar.frontend.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ashlar.protocol.Execute;
import io.ashlar.protocol.FrontendMessage;
import io.ashlar.protocol.Query;
import io.ashlar.protocol.Sync;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The hand-off of a client's messages from its event loop to the session's thread, without a socket. */
final class SessionInboxTest {

    /** Generous: only a hang fails the tests, never a slow machine. */
    private static final long TIMEOUT_SECONDS = 30;

    private final AtomicInteger threadsMade = new AtomicInteger();
    private final ThreadFactory threads = task -> {
        threadsMade.incrementAndGet();
        return Thread.ofVirtual().unstarted(task);
    };

    @Test
    void theSessionThreadStartsWithTheFirstMessageAndTakesThemAllInOrder() throws InterruptedException {
        BlockingQueue<FrontendMessage> taken = new LinkedBlockingQueue<>();
        AtomicReference<SessionInbox> holder = new AtomicReference<>();
        SessionInbox inbox = new SessionInbox(threads, () -> {
            while (true) {
                FrontendMessage message = holder.get().take();
                taken.add(message);
                if (message == SessionInbox.CLIENT_GONE) {
                    return;
                }
            }
        });
        holder.set(inbox);
        assertEquals(0, threadsMade.get(), "no thread before the first message");
        Query first = new Query("SELECT 1");
        inbox.add(first);
        List<FrontendMessage> pipeline = List.of(new Execute("", 0), Sync.INSTANCE);
        inbox.addAll(pipeline);
        for (int i = 0; i < 100; i++) {
            inbox.add(new Query("SELECT " + i));
        }
        inbox.add(SessionInbox.CLIENT_GONE);
        List<FrontendMessage> seen = new ArrayList<>();
        FrontendMessage next;
        do {
            next = taken.poll(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            assertTrue(next != null, "the session's thread stopped taking messages after " + seen.size());
            seen.add(next);
        } while (next != SessionInbox.CLIENT_GONE);
        assertEquals(104, seen.size());
        assertSame(first, seen.get(0));
        assertSame(pipeline.get(0), seen.get(1));
        assertSame(pipeline.get(1), seen.get(2));
        assertEquals("SELECT 99", ((Query) seen.get(102)).sql());
        assertEquals(1, threadsMade.get(), "one thread per session, not per message");
        assertEquals(104, inbox.received());
    }

    @Test
    void aSessionWaitingForMoreOfAPipelineWakesWhenItArrives() throws InterruptedException {
        CountDownLatch waiting = new CountDownLatch(1);
        CountDownLatch woke = new CountDownLatch(1);
        AtomicReference<SessionInbox> holder = new AtomicReference<>();
        SessionInbox inbox = new SessionInbox(threads, () -> {
            SessionInbox self = holder.get();
            self.take();
            long seen = self.received();
            waiting.countDown();
            self.awaitMessagesAfter(seen);
            woke.countDown();
        });
        holder.set(inbox);
        inbox.add(new Execute("", 0));
        assertTrue(waiting.await(TIMEOUT_SECONDS, TimeUnit.SECONDS));
        assertFalse(woke.await(50, TimeUnit.MILLISECONDS), "woke with nothing new in the inbox");
        inbox.add(Sync.INSTANCE);
        assertTrue(woke.await(TIMEOUT_SECONDS, TimeUnit.SECONDS), "the waiting session was not woken");
        assertSame(Sync.INSTANCE, inbox.peek(), "waiting takes nothing");
    }

    @Test
    void theClientsEndPutBackIsSeenAgainButNotCountedAsAMessage() {
        SessionInbox inbox = new SessionInbox(threads, () -> { });
        inbox.putBackClientGone();
        assertEquals(0, inbox.received());
        assertSame(SessionInbox.CLIENT_GONE, inbox.take());
        assertTrue(inbox.isEmpty());
    }

    @Test
    void aBackendsNotificationWakesTheIdleSessionLoopOnce() throws InterruptedException {
        BlockingQueue<FrontendMessage> taken = new LinkedBlockingQueue<>();
        AtomicReference<SessionInbox> holder = new AtomicReference<>();
        SessionInbox inbox = new SessionInbox(threads, () -> {
            while (true) {
                FrontendMessage message = holder.get().takeOrStop();
                taken.add(message);
                if (message == SessionInbox.CLIENT_GONE) {
                    return;
                }
            }
        });
        holder.set(inbox);
        Query first = new Query("LISTEN c");
        inbox.add(first);
        assertSame(first, taken.poll(TIMEOUT_SECONDS, TimeUnit.SECONDS));
        inbox.signalAsync(); // the loop idles in takeOrStop: woken
        assertSame(SessionInbox.BACKEND_ASYNC, taken.poll(TIMEOUT_SECONDS, TimeUnit.SECONDS));
        Query second = new Query("SELECT 1");
        inbox.add(second);
        assertSame(second, taken.poll(TIMEOUT_SECONDS, TimeUnit.SECONDS));
        assertEquals(2, inbox.received(), "the signal is no client message");
        inbox.add(SessionInbox.CLIENT_GONE);
        assertSame(SessionInbox.CLIENT_GONE, taken.poll(TIMEOUT_SECONDS, TimeUnit.SECONDS));
    }

    @Test
    void aClientMessageGoesBeforeTheSignalAndTakeWithinAStatementIgnoresIt() {
        SessionInbox inbox = new SessionInbox(threads, () -> { });
        inbox.signalAsync();
        inbox.signalAsync();
        assertSame(SessionInbox.BACKEND_ASYNC, inbox.takeOrStop());
        inbox.putBackClientGone();
        assertSame(SessionInbox.CLIENT_GONE, inbox.takeOrStop(), "two signals before the session looked are answered once");
        inbox.putBackClientGone();
        inbox.signalAsync();
        // What the client sent first, then the signal (the session is idle only once its queue is empty).
        assertSame(SessionInbox.CLIENT_GONE, inbox.takeOrStop());
        inbox.putBackClientGone();
        // A COPY waiting for its data takes with take(): the signal stays for the session's loop.
        assertSame(SessionInbox.CLIENT_GONE, inbox.take());
        assertSame(SessionInbox.BACKEND_ASYNC, inbox.takeOrStop());
        assertTrue(inbox.isEmpty());
    }
}
