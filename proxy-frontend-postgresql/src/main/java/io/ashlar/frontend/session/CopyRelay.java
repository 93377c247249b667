package io.ashlar.frontend.session;

import io.ashlar.backend.execute.CopyStream;
import io.ashlar.backend.execute.ErrorFields;
import io.ashlar.backend.execute.ParameterCounter;
import io.ashlar.backend.execute.StatementFailure;
import io.ashlar.backend.session.BackendSession;
import io.ashlar.frontend.server.MessageRefusals;
import io.ashlar.protocol.CopyData;
import io.ashlar.protocol.CopyDone;
import io.ashlar.protocol.CopyFail;
import io.ashlar.protocol.CopyInResponse;
import io.ashlar.protocol.CopyOutResponse;
import io.ashlar.protocol.Flush;
import io.ashlar.protocol.FrontendMessage;
import io.ashlar.protocol.Sync;
import java.sql.SQLException;

/**
 * A simple query's {@code COPY ... FROM STDIN} or {@code TO STDOUT}, relayed between the client
 * and the backend session's COPY: CopyInResponse, then the client's CopyData until its CopyDone
 * (or CopyFail) goes on; or CopyOutResponse, the backend's data as CopyData, CopyDone. The
 * session's thread stays here until the COPY ends; the CommandComplete ({@code COPY n}) or the
 * error is written, the ReadyForQuery is the caller's.
 *
 * @see <a href="https://www.postgresql.org/docs/current/protocol-flow.html#PROTOCOL-COPY">COPY Operations</a>
 */
final class CopyRelay {

    /** Hand CopyData over to Netty once this much is pending. */
    private static final int FLUSH_THRESHOLD = 64 * 1024;

    private final SessionInbox inbox;
    private final OutputBuffer out;
    private final BackendSession backend;
    private final Runnable lostSync;

    /**
     * @param lostSync ends the session with FATAL 08P01, for a message that has no place in a COPY
     */
    CopyRelay(SessionInbox inbox, OutputBuffer out, BackendSession backend, Runnable lostSync) {
        this.lostSync = lostSync;
        this.inbox = inbox;
        this.out = out;
        this.backend = backend;
    }

    /** A COPY with the client (FROM STDIN or TO STDOUT), as opposed to a COPY of a server-side file or program. */
    static boolean isClientCopy(String sql) {
        return ParameterCounter.startsWithKeyword(sql, "copy") && mentionsClientStream(sql);
    }

    private static boolean mentionsClientStream(String sql) {
        for (int i = 0, n = sql.length() - 4; i < n; i++) {
            char c = sql.charAt(i);
            if ((c == 's' || c == 'S') && (sql.regionMatches(true, i, "stdin", 0, 5) || sql.regionMatches(true, i, "stdout", 0, 6))) {
                return true;
            }
        }
        return false;
    }

    /** Runs the COPY to its end, with the client; true when it ended in an error (written). */
    boolean copy(String sql) {
        CopyStream operation;
        try {
            operation = backend.startCopy(sql);
        } catch (StatementFailure failure) {
            out.error(failure.fields());
            return true;
        }
        try {
            if (operation instanceof CopyStream.In in) {
                return copyIn(in);
            } else if (operation instanceof CopyStream.Out copyOut) {
                copyOut(copyOut);
                return false;
            } else {
                operation.cancelCopy();
                out.error(ErrorFields.error("0A000", "COPY BOTH is not supported by Ashlar"));
                return true;
            }
        } catch (SQLException e) {
            out.error(ErrorFields.from(e));
            return true;
        } finally {
            backend.endCopy();
        }
    }

    private static short[] fieldFormats(CopyStream operation) {
        short[] result = new short[operation.getFieldCount()];
        for (int i = 0; i < result.length; i++) {
            result[i] = (short) operation.getFieldFormat(i);
        }
        return result;
    }

    /** True when the COPY ended in an error (written). */
    private boolean copyIn(CopyStream.In in) throws SQLException {
        out.write(new CopyInResponse((byte) in.getFormat(), fieldFormats(in)));
        out.flush();
        while (true) {
            FrontendMessage message = inbox.take();
            if (message instanceof CopyData data) {
                in.writeToCopy(data.data(), 0, data.data().length);
            } else if (message instanceof CopyDone) {
                long rows = in.endCopy();
                out.commandComplete("COPY " + rows);
                return false;
            } else if (message instanceof CopyFail fail) {
                cancelCopy(in);
                out.error(ErrorFields.error("57014", "COPY from stdin failed: " + fail.message()));
                return true;
            } else if (message instanceof Flush || message instanceof Sync) {
                // PostgreSQL ignores Flush and Sync during COPY IN.
            } else if (message == SessionInbox.CLIENT_GONE) {
                cancelCopy(in);
                inbox.putBackClientGone();
                return true;
            } else if (message instanceof FrontendMessage.Malformed malformed) {
                // A CopyFail that does not read fails the COPY with PostgreSQL's 08P01.
                cancelCopy(in);
                out.error(MessageRefusals.error(malformed));
                return true;
            } else if (message instanceof FrontendMessage.TooLarge refusal) {
                // CopyData too large to keep: the COPY fails, as in PostgreSQL when it cannot hold it.
                cancelCopy(in);
                out.error(MessageRefusals.error(refusal));
                return true;
            } else {
                // Broken framing, or a message that has no place in a COPY: PostgreSQL raises its ERROR
                // before it reads the message's body, and having lost its place in the stream, ends
                // the session (postgres.c: "protocol synchronization was lost").
                cancelCopy(in);
                out.error(ErrorFields.error("08P01", message instanceof FrontendMessage.Malformed malformed
                        ? malformed.reason() : "unexpected message type during COPY from stdin"));
                lostSync.run();
                return true;
            }
        }
    }

    private static void cancelCopy(CopyStream operation) {
        try {
            operation.cancelCopy();
        } catch (SQLException expected) {
            // The backend answers a cancelled COPY with an error; that is the point.
        }
    }

    private void copyOut(CopyStream.Out copyOut) throws SQLException {
        out.write(new CopyOutResponse((byte) copyOut.getFormat(), fieldFormats(copyOut)));
        byte[] data;
        while ((data = copyOut.readFromCopy()) != null) {
            CopyData.encode(out.buffer(), data, 0, data.length);
            if (out.buffer().writerIndex() > FLUSH_THRESHOLD) {
                out.flush();
            }
        }
        out.write(CopyDone.INSTANCE);
        out.commandComplete("COPY " + copyOut.getHandledRowCount());
    }
}
