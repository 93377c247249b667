package io.ashlar.frontend.session;

import io.ashlar.backend.execute.ColumnDescription;
import io.ashlar.backend.execute.ErrorFields;
import io.ashlar.backend.execute.QueryResult;
import io.ashlar.backend.execute.RowValues;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The proxy's own answer to a statement no backend is asked about: fixed columns, rows (text
 * values) and command tag. Used for the openGauss driver's connect-time questions that a
 * PostgreSQL backend cannot answer (see {@link OpenGaussConnectQueries}).
 *
 * @param columns the result columns; empty for a statement that returns no rows ({@code SET})
 * @param rows the rows, each value in text format
 * @param tag the command tag
 */
record CannedAnswer(ColumnDescription[] columns, List<byte[][]> rows, String tag) {

    /** Type OIDs of the columns we answer with (pg_type.dat). */
    static final int TEXT = 25;
    static final int NAME = 19;
    static final int INT8 = 20;

    /** A statement with no result rows, only a tag. */
    static CannedAnswer command(String tag) {
        return new CannedAnswer(new ColumnDescription[0], List.of(), tag);
    }

    /** A one-row, one-column result. */
    static CannedAnswer single(String column, int typeOid, short typeSize, String value, String tag) {
        return new CannedAnswer(new ColumnDescription[] {new ColumnDescription(column, 0, (short) 0, typeOid, typeSize, -1)},
                List.<byte[][]>of(new byte[][] {value.getBytes(StandardCharsets.UTF_8)}), tag);
    }

    boolean hasRows() {
        return columns.length > 0;
    }

    /** A fresh result to read, as a backend's result would be read. */
    Result result() {
        return new Result();
    }

    /** A reading of the answer; its {@link #next()} cannot fail. */
    final class Result implements QueryResult, RowValues {

        private int next;
        private byte[][] current;

        @Override
        public boolean hasRows() {
            return CannedAnswer.this.hasRows();
        }

        @Override
        public ColumnDescription[] columns() {
            return columns;
        }

        @Override
        public boolean next() {
            if (next >= rows.size()) {
                return false;
            }
            current = rows.get(next++);
            return true;
        }

        @Override
        public RowValues row() {
            return this;
        }

        @Override
        public String tag() {
            return tag;
        }

        @Override
        public boolean isEmptyQuery() {
            return false;
        }

        @Override
        public List<ErrorFields> notices() {
            return List.of();
        }

        @Override
        public int columnCount() {
            return current.length;
        }

        @Override
        public byte[] value(int column) {
            return current[column];
        }
    }
}
