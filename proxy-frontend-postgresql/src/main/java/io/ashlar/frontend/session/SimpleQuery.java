package io.ashlar.frontend.session;

import io.ashlar.backend.datasource.ParameterValues;
import io.ashlar.backend.execute.ErrorFields;
import io.ashlar.backend.execute.QueryResult;
import io.ashlar.backend.execute.ResultSink;
import io.ashlar.backend.execute.StatementFailure;
import io.ashlar.backend.session.BackendSession;
import io.ashlar.frontend.admin.AdminAnswer;
import io.ashlar.frontend.admin.AdminCommand;
import io.ashlar.frontend.admin.AdminConsole;
import io.ashlar.frontend.types.ValueEncoder;
import io.ashlar.parser.lexer.SqlSyntaxException;
import io.ashlar.parser.lexer.StatementRange;
import io.ashlar.parser.lexer.StatementSplitter;
import io.ashlar.protocol.EmptyQueryResponse;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * A simple query ({@code Q}): one query string, one statement or several, answered up to (not
 * including) its ReadyForQuery. Most strings go to the backend session whole; the proxy itself
 * answers an empty string, an openGauss client's connect-time questions
 * ({@link OpenGaussConnectQueries}), a COPY with the client ({@link CopyRelay}) and SQL cursor
 * statements ({@link CursorCommands}), which a string may mix with other statements.
 *
 * @see <a href="https://www.postgresql.org/docs/current/protocol-flow.html#PROTOCOL-FLOW-SIMPLE-QUERY">Simple Query</a>
 */
final class SimpleQuery {

    private static final int[] NO_TYPES = new int[0];

    private final OutputBuffer out;
    private final BackendSession backend;
    private final ResultSink sink;
    private final CursorCommands cursors;
    private final CopyRelay copy;
    private final boolean openGauss;
    /** The proxy's admin commands, or null where the session has none (tests that make sessions alone). */
    private AdminConsole admin;

    /**
     * @param sink where the backend session's results go (the client's output)
     * @param openGauss whether the client is an openGauss one, whose connect-time questions the proxy answers
     */
    SimpleQuery(OutputBuffer out, BackendSession backend, ResultSink sink, CursorCommands cursors, CopyRelay copy,
                boolean openGauss) {
        this.out = out;
        this.backend = backend;
        this.sink = sink;
        this.cursors = cursors;
        this.copy = copy;
        this.openGauss = openGauss;
    }

    void admin(AdminConsole console) {
        this.admin = console;
    }

    /**
     * Whether a query string is none the proxy answers or runs itself here (blank, openGauss's connect-time questions,
     * an admin command, COPY with the client, cursor statements): the backend session may run it on the event loop.
     */
    boolean mayRunOnLoop(String sql) {
        return !openGauss && !isBlank(sql) && !(admin != null && AdminCommand.mayBe(sql)) && !CopyRelay.isClientCopy(sql)
                && !CursorCommands.mentionsCommand(sql) && Deallocation.of(sql) == null;
    }

    /** Runs a query string; true when a statement of it failed (its error was written). */
    boolean run(String sql) {
        Optional<CannedAnswer> canned = openGauss ? OpenGaussConnectQueries.answer(sql) : Optional.empty();
        List<StatementRange> withCursors;
        AdminAnswer adminAnswer;
        if (isBlank(sql)) {
            out.write(EmptyQueryResponse.INSTANCE);
        } else if (canned.isPresent()) {
            answer(canned.get());
        } else if (admin != null && AdminCommand.mayBe(sql) && (adminAnswer = admin.answer(sql)) != null) {
            if (adminAnswer.error() != null) {
                // As any error in a transaction block, it aborts the block.
                backend.abortTransaction();
                out.error(adminAnswer.error());
                return true;
            }
            for (io.ashlar.protocol.BackendMessage each : adminAnswer.messages(out.text())) {
                out.write(each);
            }
        } else if (CopyRelay.isClientCopy(sql)) {
            copy.copy(sql);
        } else if (CursorCommands.mentionsCommand(sql) && (withCursors = cursorStatements(sql)) != null) {
            return runStatements(sql, withCursors);
        } else {
            try {
                backend.executeSimple(sql, sink);
            } catch (StatementFailure failure) {
                // As any error in a transaction block, it aborts the block: one the proxy raised itself (a route
                // refused, an unknown prepared statement) too, which no backend saw (its COMMIT committed).
                backend.abortTransaction();
                out.error(failure.fields());
                return true;
            }
        }
        return false;
    }

    /** The statements of a query string when one of them is a cursor statement, else null. */
    private static List<StatementRange> cursorStatements(String sql) {
        List<StatementRange> result;
        try {
            result = StatementSplitter.split(sql);
        } catch (SqlSyntaxException e) {
            return null; // the backend session reports it
        }
        for (StatementRange range : result) {
            if (CursorCommands.startsCommand(range.text(sql))) {
                return result;
            }
        }
        return null;
    }

    /**
     * A query string with cursor statements, run one statement at a time: the cursor statements
     * here, the rest by the backend session. Several statements outside a transaction block run
     * in one transaction, as PostgreSQL runs a query string (a cursor without HOLD may be
     * declared and read in it). True when one failed (its error was sent; the rest did not run).
     */
    private boolean runStatements(String sql, List<StatementRange> ranges) {
        boolean wrap = ranges.size() > 1 && backend.transactionStatus() == 'I' && !controlsTransaction(sql, ranges);
        if (ranges.size() > 1) {
            try {
                backend.checkSyntax(sql); // a syntax error anywhere, and none of them runs
            } catch (StatementFailure failure) {
                out.error(failure.fields());
                backend.abortTransaction();
                return true;
            }
        }
        try {
            if (wrap) {
                backend.executeSimple("BEGIN", ResultSink.DISCARD);
            }
            for (StatementRange range : ranges) {
                String text = range.text(sql);
                try {
                    CursorCommands.Command command = CursorCommands.startsCommand(text) ? cursors.prepare(text, NO_TYPES) : null;
                    if (command != null) {
                        emit(cursors.run(command, ParameterValues.NONE));
                    } else {
                        backend.executeSimple(text, sink);
                    }
                } catch (StatementFailure failure) {
                    throw failure.shifted(range.start()); // a position in the statement is one in the client's query string
                }
            }
            if (wrap) {
                backend.executeSimple("COMMIT", ResultSink.DISCARD);
            }
            return false;
        } catch (StatementFailure failure) {
            out.error(failure.fields());
            backend.abortTransaction();
            if (wrap) {
                try {
                    backend.executeSimple("ROLLBACK", ResultSink.DISCARD);
                } catch (StatementFailure ignored) {
                    // The statement's own error is the one the client gets.
                }
            }
            return true;
        }
    }

    private static boolean controlsTransaction(String sql, List<StatementRange> ranges) {
        for (StatementRange range : ranges) {
            if (PreparedStatement.isTransactionControl(range.text(sql))) {
                return true;
            }
        }
        return false;
    }

    /** A cursor statement's result in a simple query: a BINARY cursor's rows go out in binary. */
    private void emit(QueryResult result) throws StatementFailure {
        for (ErrorFields notice : result.notices()) {
            out.notice(notice);
        }
        if (result.hasRows()) {
            short[] formats = result instanceof FetchedRows fetched ? fetched.cursorFormats() : new short[0];
            short[] columnFormats = new short[result.columns().length];
            if (formats.length == 1) {
                Arrays.fill(columnFormats, formats[0]);
            }
            ValueEncoder[] encoders = ResultFormats.encoders(result.columns(), columnFormats, backend);
            out.rowDescription(result.columns(), columnFormats);
            while (result.next()) {
                out.dataRow(result.row(), encoders);
            }
        }
        out.commandComplete(result.tag());
    }

    /** The proxy's own answer to a query. */
    private void answer(CannedAnswer canned) {
        CannedAnswer.Result result = canned.result();
        if (result.hasRows()) {
            out.rowDescription(result.columns(), null);
            while (result.next()) {
                out.dataRow(result.row(), null);
            }
        }
        out.commandComplete(result.tag());
    }

    private static boolean isBlank(String sql) {
        for (int i = 0; i < sql.length(); i++) {
            if (!Character.isWhitespace(sql.charAt(i))) {
                return false;
            }
        }
        return true;
    }
}
