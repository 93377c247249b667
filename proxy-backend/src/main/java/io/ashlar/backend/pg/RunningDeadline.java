package io.ashlar.backend.pg;

/**
 * A deadline counted in the time its event loop was running, not in wall-clock time: how long a question has waited
 * for its answer, leaving out the spans in which the proxy itself stood still and could not have read the answer (its
 * heap nearly full, so that every allocation waits for the collector; a loop busy in one long task; a machine that
 * gave the process no CPU).
 *
 * <p>The loop looks every {@code step}: a look that comes about on time adds the time since the last look; a late one
 * adds at most two steps, since the loop did not run in between. So a question to a server that never answers ends
 * after {@code timeout} (one step more at most) when the proxy runs freely, and after the same time of its own running
 * when it does not. Why: a health check timed by the wall clock found a healthy data source "down" while the proxy's
 * heap ran out, and failed the statements of every session that needed it (ContainmentTest under io_uring, where a
 * check's query is sent on the loop's next turn: a loop stalled between the two never sent it before the deadline).
 *
 * <p>Used on one event loop only; no allocation per look.
 */
final class RunningDeadline {

    /** How many looks a deadline takes when the loop runs freely. */
    static final int STEPS = 10;

    private final long timeoutNanos;
    private final long stepNanos;
    private long counted;
    private long last;

    /** @param timeoutNanos how long to wait, in the loop's running time (at least one nanosecond) */
    RunningDeadline(long timeoutNanos) {
        this.timeoutNanos = Math.max(1, timeoutNanos);
        this.stepNanos = Math.max(1, this.timeoutNanos / STEPS);
    }

    /** How long to wait before the next {@link #passed} look, in nanoseconds. */
    long stepNanos() {
        return stepNanos;
    }

    /** Starts (or starts again) the wait, at {@code now} ({@link System#nanoTime()}). */
    void start(long now) {
        counted = 0;
        last = now;
    }

    /** One look at {@code now}: whether the loop has run for the whole timeout since {@link #start}. */
    boolean passed(long now) {
        long since = now - last;
        last = now;
        counted += Math.max(0, Math.min(since, 2 * stepNanos));
        return counted >= timeoutNanos;
    }

    /** The time counted so far, in nanoseconds. */
    long countedNanos() {
        return counted;
    }
}
