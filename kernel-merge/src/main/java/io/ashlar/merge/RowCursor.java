package io.ashlar.merge;

/**
 * One stream of rows in PostgreSQL TEXT format: what one shard answered, or what a merge step
 * made of several such streams.
 *
 * <p>Deliberately small (vitess warns against a cursor with seventy methods): the merge steps
 * need only the column types, a way to advance, and the current row. Values are the bytes of
 * the backend's text representation (<a href="https://www.postgresql.org/docs/current/protocol-message-formats.html">DataRow</a>
 * with format code 0); SQL NULL is the one place this API uses {@code null}.
 *
 * <p>Contract for implementations:
 * <ul>
 *   <li>{@link #next()} may block (a shard cursor waits for its backend).</li>
 *   <li>A row array and its value arrays are never modified after {@link #row()} returned them,
 *       and stay valid after the cursor moves on: merge steps keep references to earlier rows
 *       instead of copying them. A JDBC adapter satisfies this naturally, since
 *       {@code ResultSet.getBytes} returns a fresh array per call.</li>
 *   <li>{@link #close()} is idempotent and releases the backend resources early; a merge step
 *       closes a shard as soon as it is exhausted.</li>
 * </ul>
 */
public interface RowCursor extends AutoCloseable {

    /** Number of columns of every row; still answers after {@link #close()}. */
    int columnCount();

    /**
     * PostgreSQL type OID of a column ({@code pg_type.oid}, as in RowDescription); still answers
     * after {@link #close()}.
     */
    int typeOid(int column);

    /** Moves to the next row; false when there is none (then the cursor stays exhausted). */
    boolean next();

    /** Text bytes of one column of the current row, {@code null} for SQL NULL. */
    byte[] value(int column);

    /**
     * The current row, one element per column ({@code null} elements are SQL NULLs). The caller
     * must not modify it. Steps that have to build rows allocate here; prefer {@link #value(int)}
     * when a row is only read.
     */
    byte[][] row();

    /** Releases the stream; idempotent. */
    @Override
    void close();
}
