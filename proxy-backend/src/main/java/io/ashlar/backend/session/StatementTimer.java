package io.ashlar.backend.session;

import io.ashlar.backend.execute.StatementFailure;
import io.netty.channel.EventLoop;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * {@code statement_timeout} over a statement whose units run one after another on one data source (the actual tables of
 * a sharded table that share a data source): each backend times only its own statement, so four units that took 1 s
 * each ran 4 s under a timeout of 1.5 s, where PostgreSQL cancels the one statement at 1.5 s. The timer starts with
 * such a statement and, when it expires before the statement ended (its last row read), cancels what the session's
 * connections run; the 57014 that comes of it then says {@code statement timeout}, as PostgreSQL's does. Statements of
 * one unit per data source need none: their backends time them.
 *
 * <p>Started and stopped by the session's thread; it fires on the session's event loop. A firing that comes after its
 * statement ended does nothing: it compares the statement's number.
 */
final class StatementTimer implements Runnable {

    private static final String MESSAGE = "canceling statement due to statement timeout";

    private final EventLoop loop;
    private final ShardConnections connections;
    /** The number of the statement being timed, 0 while none is. */
    private volatile long timing;
    /** The number of the last statement whose time ran out. */
    private volatile long expired;
    private long statements;
    private ScheduledFuture<?> pending;

    StatementTimer(EventLoop loop, ShardConnections connections) {
        this.loop = loop;
        this.connections = connections;
    }

    /** A statement starts that the session's timeout of {@code millis} (above 0) bounds. */
    void start(long millis) {
        stop();
        long number = ++statements;
        timing = number;
        pending = loop.schedule(this, millis, TimeUnit.MILLISECONDS);
    }

    /** Whether a statement is being timed. */
    boolean running() {
        return timing != 0;
    }

    /** The statement ended (its result read, or failed): its timer goes. */
    void stop() {
        if (pending != null) {
            pending.cancel(false);
            pending = null;
        }
        timing = 0;
    }

    /** On the loop: the time is up. */
    @Override
    public void run() {
        long number = timing;
        if (number != 0) {
            expired = number;
            connections.cancel();
        }
    }

    /**
     * A failure of the statement being timed (or of the last one, once stopped): the cancel the timer sent, as
     * PostgreSQL reports a statement timeout; any other failure as it is.
     */
    StatementFailure failure(StatementFailure failure) {
        if (expired != statements || expired == 0 || !failure.fields().sqlState().equals("57014")) {
            return failure;
        }
        return new StatementFailure(failure.fields().withField('M', MESSAGE), failure.getCause());
    }

    /**
     * The milliseconds of a {@code statement_timeout} value as PostgreSQL reads it (a number of milliseconds, or a
     * number and a unit: us, ms, s, min, h, d); 0 for none or a value it would not take (the backend refused it).
     */
    static long millis(String value) {
        if (value == null) {
            return 0;
        }
        String text = value.trim();
        int end = 0;
        while (end < text.length() && (Character.isDigit(text.charAt(end)) || text.charAt(end) == '.')) {
            end++;
        }
        if (end == 0) {
            return 0;
        }
        double number;
        try {
            number = Double.parseDouble(text.substring(0, end));
        } catch (NumberFormatException e) {
            return 0;
        }
        double scale = switch (text.substring(end).trim()) {
            case "", "ms" -> 1;
            case "us" -> 0.001;
            case "s" -> 1000;
            case "min" -> 60_000;
            case "h" -> 3_600_000;
            case "d" -> 86_400_000;
            default -> -1;
        };
        if (scale < 0) {
            return 0;
        }
        return Math.max(0, Math.round(number * scale));
    }
}
