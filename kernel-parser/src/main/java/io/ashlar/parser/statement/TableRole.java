package io.ashlar.parser.statement;

/** Why a statement names a table; see {@link TableReference}. */
public enum TableRole {
    /** Read: in FROM, JOIN, UPDATE ... FROM, DELETE ... USING, MERGE ... USING, COPY ... TO, LOCK. */
    FROM,
    /** Written by the statement: INSERT INTO, UPDATE, DELETE FROM, MERGE INTO, COPY ... FROM. */
    DML_TARGET,
    /** The table a DDL statement creates, alters, drops or truncates (also SELECT INTO's new table). */
    DDL_TARGET,
    /** Another table named by DDL: REFERENCES, LIKE, INHERITS, PARTITION OF, ATTACH/DETACH PARTITION, RENAME TO. */
    DDL_REFERENCE,
    /**
     * The table name used as a column qualifier ({@code t_order.id}, {@code t_order.*},
     * {@code FOR UPDATE OF t_order}) where {@code t_order} is a table of the statement written without
     * an alias. Not a new table for routing, but rewriting must rename it like the others.
     */
    COLUMN_QUALIFIER,
    /**
     * The table name used as a whole-row value that is a select-list item of its own, without an
     * alias ({@code SELECT t_order FROM t_order}): renamed like a {@link #COLUMN_QUALIFIER}, and the
     * column keeps the name PostgreSQL gives it ({@code SELECT t_order_0 AS t_order}). A whole-row
     * value inside an expression ({@code row_to_json(t_order)}) is a {@link #COLUMN_QUALIFIER}.
     */
    WHOLE_ROW_COLUMN
}
