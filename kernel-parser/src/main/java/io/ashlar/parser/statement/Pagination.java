package io.ashlar.parser.statement;

import java.util.Optional;

/**
 * LIMIT / OFFSET / FETCH FIRST of the top-level query. A router pushes {@code offset + limit} down
 * to each shard and the merger skips and stops; see
 * <a href="https://www.postgresql.org/docs/current/queries-limit.html">7.6. LIMIT and OFFSET</a>.
 *
 * @param limit    LIMIT n or FETCH FIRST n; empty for none, {@code LIMIT ALL} or {@code LIMIT NULL}
 * @param offset   OFFSET n
 * @param fetch    whether the limit was written FETCH FIRST ... ONLY rather than LIMIT
 * @param withTies whether FETCH FIRST ... WITH TIES
 */
public record Pagination(Optional<PaginationValue> limit, Optional<PaginationValue> offset, boolean fetch,
                         boolean withTies) {
    /** No LIMIT, OFFSET or FETCH. */
    public static final Pagination NONE = new Pagination(Optional.empty(), Optional.empty(), false, false);

    public boolean isPresent() {
        return limit.isPresent() || offset.isPresent();
    }
}
