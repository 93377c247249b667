package io.ashlar.backend.execute;

import java.sql.SQLException;

/**
 * A COPY in progress, as the frontend drives it: {@link In} for COPY FROM STDIN (the client's data
 * goes in), {@link Out} for COPY TO STDOUT (the data comes out). The format and per-column formats
 * are what CopyInResponse / CopyOutResponse tell the client.
 *
 * @see <a href="https://www.postgresql.org/docs/current/protocol-flow.html#PROTOCOL-COPY">COPY Operations</a>
 */
public interface CopyStream {

    /** 0 text, 1 binary. */
    int getFormat();

    int getFieldCount();

    int getFieldFormat(int field);

    /** Ends the COPY as failed (the backend answers with its error; that is the point). */
    void cancelCopy() throws SQLException;

    /** Rows copied so far. */
    long getHandledRowCount();

    /** COPY FROM STDIN. */
    interface In extends CopyStream {

        /** One piece of the client's data (CopyData). */
        void writeToCopy(byte[] buf, int off, int len) throws SQLException;

        /** The client's CopyDone: the rows copied, or the backend's error. */
        long endCopy() throws SQLException;
    }

    /** COPY TO STDOUT. */
    interface Out extends CopyStream {

        /** The next piece of data (one CopyData), or null at the end. */
        byte[] readFromCopy() throws SQLException;
    }
}
