package io.ashlar.parser.statement;

/**
 * {@code FETCH} or {@code MOVE}, its direction normalised: NEXT is FORWARD 1, PRIOR is BACKWARD 1,
 * FIRST is ABSOLUTE 1, LAST is ABSOLUTE -1, ALL is FORWARD {@link #ALL}, and a negative FORWARD or
 * BACKWARD count is the other direction.
 *
 * @param move      MOVE (positions the cursor, returns no rows) rather than FETCH
 * @param direction how {@link #count()} moves the cursor
 * @param count     rows to move over (FORWARD, BACKWARD; never negative) or the position (ABSOLUTE, RELATIVE)
 * @param cursor    the normalised cursor name
 * @see <a href="https://www.postgresql.org/docs/current/sql-fetch.html">FETCH</a>
 */
public record FetchStatement(boolean move, Direction direction, long count, String cursor) implements StatementBody {

    /** FORWARD ALL and BACKWARD ALL. */
    public static final long ALL = Long.MAX_VALUE;

    /** How a FETCH or MOVE moves the cursor. */
    public enum Direction { FORWARD, BACKWARD, ABSOLUTE, RELATIVE }
}
