package io.ashlar.frontend.session;

import io.ashlar.backend.datasource.ParameterValues;
import io.ashlar.backend.execute.QueryResult;

/**
 * A bound statement (Bind): statement, parameter values and the result formats the client asked
 * for; after it ran, its result and how far the client has read it (Execute with a row limit
 * reads it in pieces).
 */
final class Portal {

    final PreparedStatement statement;
    final ParameterValues parameters;
    final short[] resultFormats;
    QueryResult result;
    /** A row read ahead to learn whether more remain after an Execute's limit. */
    boolean rowPending;
    long rowsSent;
    boolean noticesSent;
    boolean completed;

    Portal(PreparedStatement statement, ParameterValues parameters, short[] resultFormats) {
        this.statement = statement;
        this.parameters = parameters;
        this.resultFormats = resultFormats;
    }

    /** The format of each result column: the Bind's codes (none: all text; one: all that one). */
    short[] formats(int columnCount) {
        short[] result = new short[columnCount];
        if (resultFormats.length == 1) {
            java.util.Arrays.fill(result, resultFormats[0]);
        } else if (resultFormats.length == columnCount) {
            System.arraycopy(resultFormats, 0, result, 0, columnCount);
        }
        return result;
    }
}
