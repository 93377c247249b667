package io.ashlar.frontend.server;

/**
 * A logged-in client session, as the proxy's shared machinery sees it: CancelRequest finds it by
 * process id, and graceful shutdown asks whether it is quiet.
 */
public interface ClientSession {

    int processId();

    /** Cancels what the session runs now (CancelRequest); called from any thread. */
    void cancel();

    /** Whether the session is between statements outside a transaction, nothing queued (called from any thread). */
    boolean isQuiet();

    /**
     * The proxy stops: ends the session with {@code end} (FATAL 57P01, then the connection closes) if it is quiet,
     * after everything it already sent its client; a busy one is left alone (asked again later). Called on the
     * client connection's event loop. By default at once, for a session whose every write to its client is made on
     * that loop, so that nothing it sent can still be queued behind the end.
     */
    default void endIfQuiet(Runnable end) {
        if (isQuiet()) {
            end.run();
        }
    }
}
