package io.ashlar.frontend.session;

import io.ashlar.backend.datasource.ParameterValues;
import io.ashlar.backend.execute.ErrorFields;
import io.ashlar.backend.execute.ParameterCounter;
import io.ashlar.backend.execute.QueryResult;
import io.ashlar.backend.execute.ResultSink;
import io.ashlar.backend.execute.RowValues;
import io.ashlar.backend.execute.StatementFailure;
import io.ashlar.backend.session.BackendSession;
import io.ashlar.backend.sharding.TagResult;
import io.ashlar.parser.StatementAnalyzer;
import io.ashlar.parser.lexer.SqlSyntaxException;
import io.ashlar.parser.statement.AnalyzedStatement;
import io.ashlar.parser.statement.CloseCursorStatement;
import io.ashlar.parser.statement.DeclareCursorStatement;
import io.ashlar.parser.statement.FetchStatement;
import io.ashlar.parser.statement.StatementKind;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * SQL cursors, answered by the proxy over the session's portals: DECLARE runs the cursor's query
 * (routed and merged like any query, so a cursor over a sharded table reads every shard) and keeps
 * its result as a portal; FETCH and MOVE read it by position; CLOSE drops it. Cursors and bound
 * portals share one namespace, as in PostgreSQL: psycopg describes the portal of the cursor it
 * declared, asyncpg moves the portal it bound with SQL's MOVE.
 *
 * <p>Lifetimes follow PostgreSQL's: a cursor without HOLD lives until its transaction ends, one
 * WITH HOLD until it is closed or the session ends, unless the transaction that declared it rolls
 * back. The query runs when the cursor is declared, so its rows are those of that moment (as a
 * WITH HOLD cursor's are at commit); a row lock it takes is taken then.
 *
 * @see <a href="https://www.postgresql.org/docs/current/sql-declare.html">DECLARE</a>
 * @see <a href="https://www.postgresql.org/docs/current/plpgsql-cursors.html">Cursors</a>
 */
final class CursorCommands {

    /**
     * A cursor statement as Parse left it (the analysis slot of its {@link BackendSession.Prepared}).
     *
     * @param statement the analysis
     * @param query DECLARE's query, prepared by the backend session; null for FETCH, MOVE, CLOSE
     */
    record Command(AnalyzedStatement statement, BackendSession.Prepared query) {
    }

    private static final String[] KEYWORDS = {"declare", "fetch", "move", "close"};

    private final Map<String, Portal> portals;
    private final BackendSession backend;
    private final ResultSink statusSink;

    CursorCommands(Map<String, Portal> portals, BackendSession backend, ResultSink statusSink) {
        this.portals = portals;
        this.backend = backend;
        this.statusSink = statusSink;
    }

    /** Whether a statement's first word makes it a cursor statement (a cheap test before parsing). */
    static boolean startsCommand(String sql) {
        for (String keyword : KEYWORDS) {
            if (ParameterCounter.startsWithKeyword(sql, keyword)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether a query string may hold a cursor statement after its first one: it names one of
     * their keywords anywhere. Conservative: a false alarm only costs splitting the string.
     */
    static boolean mentionsCommand(String sql) {
        // Each keyword is told by its first two letters (de, fe, mo, cl): one region compare at most per candidate.
        for (int i = 0, n = sql.length() - 4; i < n; i++) {
            String keyword;
            switch ((sql.charAt(i) | 0x20) << 8 | (sql.charAt(i + 1) | 0x20)) {
                case 'd' << 8 | 'e' -> keyword = "declare";
                case 'f' << 8 | 'e' -> keyword = "fetch";
                case 'm' << 8 | 'o' -> keyword = "move";
                case 'c' << 8 | 'l' -> keyword = "close";
                default -> keyword = null;
            }
            if (keyword != null && sql.regionMatches(true, i, keyword, 0, keyword.length())) {
                return true;
            }
        }
        return false;
    }

    /**
     * Reads a statement the client sent: a cursor statement becomes a {@link Command} (DECLARE's
     * query prepared by the backend session, which checks it); anything else null. An error's
     * position counts from the start of the DECLARE, as PostgreSQL's does.
     */
    Command prepare(String sql, int[] declaredTypes) throws StatementFailure {
        AnalyzedStatement statement;
        try {
            statement = StatementAnalyzer.analyze(sql);
        } catch (SqlSyntaxException e) {
            return null; // the backend session reports it as PostgreSQL would
        }
        if (statement.kind() != StatementKind.CURSOR) {
            return null;
        }
        if (!(statement.body() instanceof DeclareCursorStatement declare)) {
            return new Command(statement, null);
        }
        String query = sql.substring(declare.query().start(), declare.query().end());
        AnalyzedStatement inner;
        try {
            inner = StatementAnalyzer.analyze(query);
        } catch (SqlSyntaxException e) {
            inner = null;
        }
        if (inner != null && inner.kind() != StatementKind.SELECT) {
            throw new StatementFailure(inner.command().equals("with")
                    ? ErrorFields.error("0A000", "DECLARE CURSOR must not contain data-modifying statements in WITH")
                    : new ErrorFields(new byte[] {'S', 'V', 'C', 'M', 'P'}, new String[] {ErrorFields.ERROR, ErrorFields.ERROR,
                            "42601", "syntax error at or near \"" + firstWord(query) + "\"",
                            Integer.toString(declare.query().start() + 1)}));
        }
        try {
            return new Command(statement, backend.prepare(query, declaredTypes));
        } catch (StatementFailure failure) {
            throw inStatement(failure, declare);
        }
    }

    /** A failure of DECLARE's query, its position (counted in the query) counted from the start of the DECLARE. */
    private static StatementFailure inStatement(StatementFailure failure, DeclareCursorStatement declare) {
        return failure.shifted(declare.query().start());
    }

    /** Runs a cursor statement; FETCH's rows come back as the result's rows. */
    QueryResult run(Command command, ParameterValues parameters) throws StatementFailure {
        if (backend.transactionStatus() == 'E') {
            throw new StatementFailure(ErrorFields.inFailedTransaction());
        }
        return switch (command.statement().body()) {
            case DeclareCursorStatement declare -> declare(command.statement().sql(), declare, command.query(), parameters);
            case FetchStatement fetch -> fetch(fetch);
            case CloseCursorStatement close -> close(close);
            default -> throw new IllegalStateException("not a cursor statement: " + command.statement().sql());
        };
    }

    private QueryResult declare(String declaration, DeclareCursorStatement declare, BackendSession.Prepared query,
                                ParameterValues parameters)
            throws StatementFailure {
        if (portals.containsKey(declare.name())) {
            throw new StatementFailure(ErrorFields.error("42P03", "cursor \"" + declare.name() + "\" already exists"));
        }
        if (!declare.hold() && backend.transactionStatus() == 'I') {
            throw new StatementFailure(ErrorFields.error("25P01", "DECLARE CURSOR can only be used in transaction blocks"));
        }
        QueryResult result;
        try {
            result = backend.execute(query, parameters, statusSink, false);
        } catch (StatementFailure failure) {
            throw inStatement(failure, declare);
        }
        // A cursor with neither SCROLL nor NO SCROLL may go back in PostgreSQL when its plan allows; here it
        // may while the rows it read fit in the statement memory limit, and scans forward only after.
        portals.put(declare.name(), Portal.declared(declaration, result, declare.binary(), declare.hold(), declare.scroll(),
                backend.statementMemoryLimit()));
        return new TagResult("DECLARE CURSOR", result.notices());
    }

    /** The cursors open now, as pg_cursors lists them. */
    List<BackendSession.OpenCursor> open() {
        List<BackendSession.OpenCursor> result = new ArrayList<>();
        for (Map.Entry<String, Portal> each : portals.entrySet()) {
            Portal portal = each.getValue();
            if (portal.cursor) {
                result.add(new BackendSession.OpenCursor(each.getKey(), portal.declaration, portal.hold,
                        portal.resultFormats.length == 1 && portal.resultFormats[0] == 1, portal.scrollable, portal.declaredAtMillis));
            }
        }
        return result;
    }

    private QueryResult fetch(FetchStatement fetch) throws StatementFailure {
        Portal portal = portals.get(fetch.cursor());
        if (portal == null || portal.result == null) {
            throw new StatementFailure(ErrorFields.error("34000", "cursor \"" + fetch.cursor() + "\" does not exist"));
        }
        if (!portal.result.hasRows()) {
            throw new StatementFailure(ErrorFields.error("55000", "portal \"" + fetch.cursor() + "\" cannot be run"));
        }
        PortalRows rows = portal.rows();
        List<byte[][]> fetched = new ArrayList<>();
        PortalRows.RowConsumer out = fetch.move() ? PortalRows.SKIP : row -> fetched.add(copy(row));
        long count = switch (fetch.direction()) {
            case FORWARD -> rows.forward(fetch.count(), out);
            case BACKWARD -> rows.backward(fetch.count(), out);
            case ABSOLUTE -> rows.absolute(fetch.count(), out);
            case RELATIVE -> rows.relative(fetch.count(), out);
        };
        if (fetch.move()) {
            return new TagResult("MOVE " + count, List.of());
        }
        return new FetchedRows(portal.result.columns(), portal.formats(portal.result.columns().length), fetched,
                "FETCH " + count);
    }

    private QueryResult close(CloseCursorStatement close) throws StatementFailure {
        if (close.cursor().isEmpty()) {
            for (Iterator<Portal> it = portals.values().iterator(); it.hasNext(); ) {
                Portal portal = it.next();
                if (portal.cursor) {
                    portal.close();
                    it.remove();
                }
            }
            return new TagResult("CLOSE CURSOR ALL", List.of());
        }
        Portal portal = portals.remove(close.cursor().get());
        if (portal == null) {
            throw new StatementFailure(ErrorFields.error("34000", "cursor \"" + close.cursor().get() + "\" does not exist"));
        }
        portal.close();
        return new TagResult("CLOSE CURSOR", List.of());
    }

    /**
     * After a query or a Sync: when no transaction is open any more, the one that was (or the
     * statement's own) has ended, and its portals with it (cursors WITH HOLD stay if it committed).
     *
     * @param failed whether the query or the pipeline failed
     * @param lastTag the tag of the last CommandComplete the client got: {@code ROLLBACK} (also what
     *        a COMMIT of a failed transaction answers) says the transaction did not commit
     */
    void afterTransactionStep(boolean failed, String lastTag) {
        if (!portals.isEmpty() && backend.transactionStatus() == 'I') {
            transactionEnded(!failed && !lastTag.equals("ROLLBACK"));
        }
    }

    /**
     * The transaction ended: portals go with it but for cursors WITH HOLD, which stay if it
     * committed (and are from then on the session's) and go if it rolled back.
     */
    private void transactionEnded(boolean committed) {
        for (Iterator<Portal> it = portals.values().iterator(); it.hasNext(); ) {
            Portal portal = it.next();
            if (portal.hold && (committed || !portal.uncommitted)) {
                portal.uncommitted = false;
                continue;
            }
            portal.close();
            it.remove();
        }
    }

    private static byte[][] copy(RowValues row) {
        byte[][] result = new byte[row.columnCount()][];
        for (int i = 0; i < result.length; i++) {
            result[i] = row.value(i);
        }
        return result;
    }

    private static String firstWord(String sql) {
        String trimmed = sql.strip();
        int end = 0;
        while (end < trimmed.length() && Character.isLetter(trimmed.charAt(end))) {
            end++;
        }
        return trimmed.substring(0, Math.max(end, Math.min(1, trimmed.length())));
    }
}
