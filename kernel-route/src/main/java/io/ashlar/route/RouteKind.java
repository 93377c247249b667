package io.ashlar.route;

/** What kind of statement the route result is for, which tells the executor how to run and merge it. */
public enum RouteKind {
    /** No sharded, broadcast or single table involved in a way that matters: run on the default data source as is. */
    DEFAULT,
    /** Exactly one unit: run it and pass its results through unchanged (no merge). */
    SINGLE,
    /** Several units of a query: run all, merge the row streams. */
    MULTI_QUERY,
    /** Several units of a write (or DDL): run all in one transaction, add up the row counts. */
    MULTI_WRITE,
    /** A write to a broadcast table (or DDL on one): the same statement on every data source. */
    BROADCAST_WRITE,
    /** Session-level statements (SET, RESET, SHOW, transaction control, PREPARE ...): handled by the session. */
    SESSION
}
