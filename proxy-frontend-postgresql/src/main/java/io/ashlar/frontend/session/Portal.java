package io.ashlar.frontend.session;

import io.ashlar.backend.datasource.ParameterValues;
import io.ashlar.backend.execute.QueryResult;

/**
 * A portal: a bound statement (Bind) or a cursor (DECLARE), one namespace as in PostgreSQL, so that
 * a client may FETCH from a portal it bound and Execute a cursor it declared. A bound statement
 * runs when it is first described or executed; a cursor's query ran when it was declared. Then
 * {@link #rows} reads the result by position.
 *
 * @see <a href="https://www.postgresql.org/docs/current/protocol-overview.html#PROTOCOL-QUERY-CONCEPTS">Portals</a>
 */
final class Portal {

    final PreparedStatement statement;
    final ParameterValues parameters;
    final short[] resultFormats;
    /** Declared with SQL's DECLARE rather than bound. */
    final boolean cursor;
    /** WITH HOLD: the cursor outlives the transaction that declared it, if that commits. */
    final boolean hold;
    final boolean scrollable;
    /** A cursor's DECLARE statement and when it ran (System.currentTimeMillis), for pg_cursors; null and 0 for a bound portal. */
    final String declaration;
    final long declaredAtMillis;
    /** Declared in the transaction now open: a rollback takes it away, hold or not. */
    boolean uncommitted;
    QueryResult result;
    PortalRows rows;
    /** How many of its result's notices went to the client; -1 before its first Execute. */
    int noticesSent = -1;

    Portal(PreparedStatement statement, ParameterValues parameters, short[] resultFormats) {
        this.statement = statement;
        this.parameters = parameters;
        this.resultFormats = resultFormats;
        this.cursor = false;
        this.hold = false;
        this.scrollable = false;
        this.declaration = null;
        this.declaredAtMillis = 0;
    }

    private Portal(String declaration, QueryResult result, short[] resultFormats, boolean hold, boolean scrollable,
                   boolean scrollDeclared, long keepLimit) {
        this.statement = null;
        this.parameters = ParameterValues.NONE;
        this.resultFormats = resultFormats;
        this.cursor = true;
        this.hold = hold;
        this.scrollable = scrollable;
        this.uncommitted = true;
        this.declaration = declaration;
        this.declaredAtMillis = System.currentTimeMillis();
        this.result = result;
        this.rows = new PortalRows(result, scrollable, scrollDeclared, keepLimit);
    }

    /**
     * A cursor over the result of its query, which has run.
     *
     * @param scroll what the DECLARE said: SCROLL, NO SCROLL, or nothing (it may then go back while its rows fit in
     *        {@code keepLimit})
     * @param keepLimit bytes of rows the cursor may keep for moves backwards
     * @param declaration the DECLARE statement's text
     */
    static Portal declared(String declaration, QueryResult result, boolean binary, boolean hold,
                           java.util.Optional<Boolean> scroll, long keepLimit) {
        return new Portal(declaration, result, binary ? new short[] {1} : new short[0], hold, scroll.orElse(true),
                scroll.orElse(false), keepLimit);
    }

    /** The rows of the result, once the statement ran. */
    PortalRows rows() {
        if (rows == null) {
            rows = new PortalRows(result);
        }
        return rows;
    }

    /** The format of each result column: the Bind's codes (none: all text; one: all that one). */
    short[] formats(int columnCount) {
        return formats(resultFormats, columnCount);
    }

    /** A Bind's result format codes (none, one for all, or one per column) as one per column. */
    static short[] formats(short[] resultFormats, int columnCount) {
        short[] result = new short[columnCount];
        if (resultFormats.length == 1) {
            java.util.Arrays.fill(result, resultFormats[0]);
        } else if (resultFormats.length == columnCount) {
            System.arraycopy(resultFormats, 0, result, 0, columnCount);
        }
        return result;
    }

    void close() {
        if (result != null) {
            result.close();
        }
    }
}
