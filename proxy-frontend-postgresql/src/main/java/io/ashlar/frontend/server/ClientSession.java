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
}
