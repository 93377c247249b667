package io.ashlar.frontend.session;

import io.ashlar.backend.execute.ErrorFields;
import io.ashlar.backend.session.BackendSession;
import io.ashlar.frontend.server.ClientChannels;
import io.ashlar.protocol.FrontendMessage;
import io.netty.channel.Channel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A session whose thread met an Error (OutOfMemoryError, ...; a StackOverflowError fails only its statement, see
 * FrontendSession) while it handled a message: what
 * it held may be half built, so it ends, and only it. Its client hears why, as PostgreSQL's client hears of a
 * backend that ran out of memory (53200) or stack (54001), then the connection closes; what it ran on the backends
 * is cancelled and its connections go back (or are closed) as for any session that ends. Nothing of it reaches
 * another session, nor the event loop its thread runs on.
 */
final class SessionFailure {

    private static final Logger LOG = LoggerFactory.getLogger(SessionFailure.class);

    private SessionFailure() {
    }

    /** Tells the client and stops the backend's work; the caller then closes the session. */
    static void end(int processId, FrontendMessage message, Throwable failure, BackendSession backend, OutputBuffer out,
                    Channel channel) {
        try {
            // No stack trace: an OutOfMemoryError's says where memory ran out, not who took it, and a
            // StackOverflowError's is a thousand lines of the same frames.
            LOG.error("session {}: {} while handling {}: the session ends, the proxy goes on", processId, failure,
                    message.getClass().getSimpleName());
        } catch (Throwable ignored) {
            // Logging needs memory too.
        }
        try {
            backend.cancel();
        } catch (Throwable ignored) {
            // The session closes its connections next, which ends what they run.
        }
        try {
            out.error(fatal(failure));
            out.flush();
        } catch (Throwable ignored) {
            // The client sees its connection close without a word.
        }
        try {
            ClientChannels.closeAfterWrites(channel);
        } catch (Throwable ignored) {
            // Closed already.
        }
    }

    /** The FATAL error a client gets for its session's failure, with PostgreSQL's SQLSTATE for it. */
    static ErrorFields fatal(Throwable failure) {
        return switch (failure) {
            case OutOfMemoryError e -> fatal("53200", "out of memory", "Ashlar ran out of memory handling this session's"
                    + " statement; other sessions go on. Lower proxy-statement-memory-limit, or give the proxy more memory.");
            case StackOverflowError e -> fatal("54001", "stack depth limit exceeded",
                    "The statement nests too deeply for Ashlar to handle.");
            default -> ErrorFields.of(ErrorFields.FATAL, "XX000", "internal error in Ashlar: " + failure);
        };
    }

    private static ErrorFields fatal(String sqlState, String message, String hint) {
        return new ErrorFields(new byte[] {'S', 'V', 'C', 'M', 'H'},
                new String[] {ErrorFields.FATAL, ErrorFields.FATAL, sqlState, message, hint});
    }
}
